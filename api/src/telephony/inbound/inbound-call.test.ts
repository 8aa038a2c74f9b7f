import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  adminGet,
  answeredActivity,
  inboundSecretOf,
  signedPost,
  storedCounts,
  type InboundAnswer as Answer,
  type SignedPost,
} from '../../tooling/test-support/inbound-client.js'
import {
  call,
  createTestContext,
  type TestContext,
  type TestEvent,
  type TestOrg,
} from '../../tooling/test-support/test-app.js'

// `POST /inbound/call/`: a call's first report stores a Call, later ones update it; when it is over, the task its
// outcome calls for is made once; while it is in progress its user is online with it in `active_calls`.

let ctx: TestContext
beforeAll(async () => {
  ctx = await createTestContext()
})
afterAll(async () => {
  await ctx.close()
})

interface Availability {
  user_id: string
  status: string
  status_by_type: Record<string, string>
  active_calls: Record<string, unknown>[]
}

let numbers = 0
function freshNumber(): string {
  numbers += 1
  return `+1212555${String(1000 + numbers).padStart(4, '0')}`
}

let calls = 0
function callId(): string {
  calls += 1
  return `CA-${String(calls)}`
}

async function setUp(name: string) {
  const org = await ctx.createOrg(name)
  const add = async (body: Record<string, unknown>) => {
    const res = await call(ctx.app, org.admin.key, 'POST', '/phone_number/', { body })
    expect(res.statusCode, res.body).toBe(200)
    return res.json<{ number: string }>()
  }
  const owned = await add({ number: freshNumber(), label: 'Sales line', user_id: org.member.id })
  const shared = await add({ number: freshNumber(), label: 'Main number' })
  const remote = freshNumber()
  const lead = await call(ctx.app, org.member.key, 'POST', '/lead/', {
    body: { name: 'Stark Industries', contacts: [{ name: 'Pepper Potts', phones: [{ phone: remote }] }] },
  })
  expect(lead.statusCode).toBe(200)
  const created = lead.json<{ id: string; contacts: { id: string }[] }>()
  return {
    org,
    owned,
    shared,
    remote,
    leadId: created.id,
    contactId: created.contacts[0]?.id ?? '',
    secret: await inboundSecretOf(ctx.app, org),
  }
}

type Setup = Awaited<ReturnType<typeof setUp>>

function report(s: Setup, body: Record<string, unknown>, rest: Partial<SignedPost> = {}) {
  return signedPost(ctx.app, ctx.clock, 'call', { organizationId: s.org.id, secret: s.secret, body, ...rest })
}

async function reportOk(s: Setup, body: Record<string, unknown>, rest: Partial<SignedPost> = {}): Promise<Answer> {
  const res = await report(s, body, rest)
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

function get<T>(org: TestOrg, path: string, query?: Record<string, string>): Promise<T> {
  return adminGet<T>(ctx.app, org, path, query)
}

function callActivity(s: Setup, answer: Answer): Promise<Record<string, unknown>> {
  return answeredActivity(ctx.app, s.org, answer)
}

async function taskOf(s: Setup, answer: Answer): Promise<Record<string, unknown>> {
  expect(answer.task_id).toEqual(expect.stringMatching(/^noti_/))
  return get(s.org, `/task/${answer.task_id ?? ''}/`)
}

async function availability(org: TestOrg): Promise<Map<string, Availability>> {
  const page = await get<{ data: Availability[] }>(org, '/user/availability/')
  return new Map(page.data.map((a) => [a.user_id, a]))
}

describe('POST /inbound/call/: the tasks of calls that are over', () => {
  let s: Setup
  beforeAll(async () => {
    s = await setUp('Missed calls')
  })

  it('stores a missed call on the contact’s lead with a missed_call task for the number’s owner', async () => {
    const id = callId()
    const answer = await reportOk(s, { id, status: 'no-answer', remote_phone: s.remote, local_phone: s.owned.number })
    expect(answer.lead_id).toBe(s.leadId)
    expect(await callActivity(s, answer)).toMatchObject({
      _type: 'Call',
      contact_id: s.contactId,
      contact_name: 'Pepper Potts',
      user_id: s.org.member.id,
      direction: 'inbound',
      status: 'no-answer',
      disposition: null,
      duration: 0,
      remote_phone: s.remote,
      phone: s.remote,
      local_phone: s.owned.number,
      call_method: 'regular',
      source: 'External',
      provider_call_id: id,
      has_recording: false,
    })
    const task = await taskOf(s, answer)
    expect(task).toMatchObject({
      _type: 'missed_call',
      lead_id: s.leadId,
      contact_id: s.contactId,
      assigned_to: s.org.member.id,
      object_type: 'call',
      object_id: answer.activity_id,
      phone: s.remote,
      phone_formatted: expect.stringMatching(/^\+1 212 555 /),
      local_phone: s.owned.number,
      phone_number_description: 'Sales line',
      is_complete: false,
    })
    const [event] = (await get<{ data: TestEvent[] }>(s.org, '/event/', { object_id: answer.activity_id })).data
    expect(event).toMatchObject({ object_type: 'activity.call', action: 'created', user_id: null, api_key_id: null })
  })

  it.each(['busy', 'cancel', 'failed', 'timeout'])('a call ended %s is missed too', async (status) => {
    const answer = await reportOk(s, { id: callId(), status, remote_phone: s.remote, local_phone: s.owned.number })
    expect((await taskOf(s, answer))._type).toBe('missed_call')
  })

  it('a call completed without being answered is missed; one answered from a known contact makes no task', async () => {
    const base = { remote_phone: s.remote, local_phone: s.owned.number, status: 'completed' }
    const unanswered = await reportOk(s, { ...base, id: callId(), disposition: 'no-answer' })
    expect((await taskOf(s, unanswered))._type).toBe('missed_call')
    const counts = await storedCounts(ctx.database.db, s.org.id)
    const answered = await reportOk(s, { ...base, id: callId(), disposition: 'answered', duration: 95 })
    expect(answered.task_id).toBeNull()
    expect((await storedCounts(ctx.database.db, s.org.id)).task).toBe(counts.task)
    const byDuration = await reportOk(s, { ...base, id: callId(), duration: 12 })
    expect(byDuration.task_id).toBeNull()
  })

  it('a voicemail makes a voicemail task with its URL and length, assigned to the first admin on a shared number', async () => {
    const answer = await reportOk(s, {
      id: callId(),
      status: 'no-answer',
      disposition: 'vm-left',
      remote_phone: s.remote,
      local_phone: s.shared.number,
      voicemail_url: 'https://media.example.com/vm/1.mp3',
      voicemail_duration: 23,
    })
    expect(await taskOf(s, answer)).toMatchObject({
      _type: 'voicemail',
      assigned_to: s.org.admin.id,
      phone: s.remote,
      local_phone: s.shared.number,
      voicemail_url: 'https://media.example.com/vm/1.mp3',
      voicemail_duration: 23,
    })
    expect(await callActivity(s, answer)).toMatchObject({
      user_id: s.org.admin.id,
      voicemail_url: 'https://media.example.com/vm/1.mp3',
      voicemail_duration: 23,
    })
  })

  it('an answered call from a number tied to no contact makes a lead and an answered_detached_call task', async () => {
    const stranger = freshNumber()
    const answer = await reportOk(s, {
      id: callId(),
      status: 'completed',
      disposition: 'answered',
      duration: 42,
      remote_phone: stranger,
      local_phone: s.owned.number,
      recording_url: 'https://media.example.com/rec/1.mp3',
    })
    expect(answer.lead_id).not.toBe(s.leadId)
    const lead = await get<{ name: string; contacts: { phones: { phone: string; type: string }[] }[] }>(
      s.org,
      `/lead/${answer.lead_id}/`,
    )
    expect(lead.name).toBe(`+1 212 555 ${stranger.slice(-4)}`)
    expect(lead.contacts[0]?.phones).toEqual([expect.objectContaining({ phone: stranger, type: 'office' })])
    expect(await taskOf(s, answer)).toMatchObject({
      _type: 'answered_detached_call',
      assigned_to: s.org.member.id,
      phone: stranger,
      phone_formatted: `+1 212 555 ${stranger.slice(-4)}`,
      phone_number_description: 'Sales line',
      recording_url: 'https://media.example.com/rec/1.mp3',
    })
    expect(await callActivity(s, answer)).toMatchObject({ has_recording: true, duration: 42, disposition: 'answered' })
  })

  it('an outbound call makes no task, whatever its outcome', async () => {
    const answer = await reportOk(s, {
      id: callId(),
      direction: 'outbound',
      status: 'no-answer',
      remote_phone: s.remote,
      local_phone: s.owned.number,
    })
    expect(answer.task_id).toBeNull()
    expect((await callActivity(s, answer)).direction).toBe('outbound')
  })
})

describe('POST /inbound/call/: later reports of a call', () => {
  it('update the call, make its task once when it ends, and keep a user online while it is in progress', async () => {
    const s = await setUp('Live calls')
    const id = callId()
    const body = { id, remote_phone: s.remote, local_phone: s.shared.number }
    const ringing = await reportOk(s, { ...body, status: 'created' })
    expect(ringing.task_id).toBeNull()
    expect((await availability(s.org)).get(s.org.admin.id)?.active_calls).toEqual([])

    const counts = await storedCounts(ctx.database.db, s.org.id)
    const live = await reportOk(s, { ...body, status: 'in-progress', user_id: s.org.member.id })
    expect(live).toEqual(ringing)
    const during = await availability(s.org)
    expect(during.get(s.org.member.id)).toMatchObject({
      status: 'online',
      status_by_type: { mobile: 'offline', native: 'offline', web: 'offline' },
      active_calls: [
        {
          activity_id: ringing.activity_id,
          provider_call_id: id,
          lead_id: s.leadId,
          contact_id: s.contactId,
          direction: 'inbound',
          status: 'in-progress',
          remote_phone: s.remote,
          local_phone: s.shared.number,
          date_started: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        },
      ],
    })
    expect(during.get(s.org.admin.id)).toMatchObject({ status: 'offline', active_calls: [] })
    const calling = await callActivity(s, live)
    expect(calling).toMatchObject({ status: 'in-progress', user_id: s.org.member.id })
    // The update is an event with the call as it was, and nothing else was stored.
    const events = (await get<{ data: TestEvent[] }>(s.org, '/event/', { object_id: live.activity_id })).data
    expect(events[0]).toMatchObject({ action: 'updated', previous_data: { status: 'created' } })
    expect(events[0]?.changed_fields).toEqual(expect.arrayContaining(['status', 'user_id']))
    expect(await storedCounts(ctx.database.db, s.org.id)).toEqual({
      ...counts,
      event: counts.event + 1,
      inbound_receipt: counts.inbound_receipt + 1,
    })

    ctx.clock.advance(90_000)
    const ended = await reportOk(s, {
      ...body,
      status: 'completed',
      disposition: 'answered',
      duration: 88,
      recording_url: 'https://media.example.com/rec/live.mp3',
    })
    expect(ended.task_id).toBeNull()
    expect(await callActivity(s, ended)).toMatchObject({
      status: 'completed',
      disposition: 'answered',
      duration: 88,
      recording_url: 'https://media.example.com/rec/live.mp3',
      user_id: s.org.member.id,
    })
    expect((await availability(s.org)).get(s.org.member.id)).toMatchObject({ status: 'offline', active_calls: [] })

    // A report that arrives late cannot take the call back.
    await reportOk(s, { ...body, status: 'in-progress' })
    expect((await callActivity(s, ended)).status).toBe('completed')
    expect((await availability(s.org)).get(s.org.member.id)?.active_calls).toEqual([])
  })

  it('make one task per call even when its end is reported twice', async () => {
    const s = await setUp('Twice ended')
    const body = { id: callId(), remote_phone: s.remote, local_phone: s.owned.number }
    const first = await reportOk(s, { ...body, status: 'no-answer' })
    const counts = await storedCounts(ctx.database.db, s.org.id)
    const again = await reportOk(s, { ...body, status: 'no-answer', disposition: 'no-answer' })
    expect(again).toEqual(first)
    expect((await storedCounts(ctx.database.db, s.org.id)).task).toBe(counts.task)
    // The very same delivery again changes nothing at all.
    const before = await storedCounts(ctx.database.db, s.org.id)
    await reportOk(s, { ...body, status: 'busy' }, { id: 'msg_same' })
    const after = await storedCounts(ctx.database.db, s.org.id)
    await reportOk(s, { ...body, status: 'busy' }, { id: 'msg_same' })
    expect(await storedCounts(ctx.database.db, s.org.id)).toEqual(after)
    expect(after.task).toBe(before.task)
  })

  it('turn the open missed call task into a voicemail task when the voicemail is reported after the end', async () => {
    const s = await setUp('Late voicemail')
    const body = { id: callId(), remote_phone: s.remote, local_phone: s.owned.number }
    const missed = await reportOk(s, { ...body, status: 'no-answer' })
    expect((await taskOf(s, missed))._type).toBe('missed_call')
    const counts = await storedCounts(ctx.database.db, s.org.id)
    const voicemail = { voicemail_url: 'https://media.example.com/vm/late.mp3', voicemail_duration: 31 }
    const late = await reportOk(s, { ...body, status: 'no-answer', disposition: 'vm-left', ...voicemail })
    expect(late).toEqual(missed)
    expect(await taskOf(s, late)).toMatchObject({ _type: 'voicemail', assigned_to: s.org.member.id, ...voicemail })
    expect((await storedCounts(ctx.database.db, s.org.id)).task).toBe(counts.task)
    const [event] = (await get<{ data: TestEvent[] }>(s.org, '/event/', { object_id: late.task_id ?? '' })).data
    expect(event).toMatchObject({
      object_type: 'task.voicemail',
      action: 'updated',
      previous_data: { _type: 'missed_call' },
    })

    // A missed call task its user completed stays as it was.
    const other = { ...body, id: callId() }
    const done = await reportOk(s, { ...other, status: 'busy' })
    const completed = await call(ctx.app, s.org.member.key, 'PUT', `/task/${done.task_id ?? ''}/`, {
      body: { is_complete: true },
    })
    expect(completed.statusCode).toBe(200)
    await reportOk(s, { ...other, status: 'busy', ...voicemail })
    expect(await taskOf(s, done)).toMatchObject({ _type: 'missed_call', is_complete: true })
  })

  it('a call in progress counts for the number’s owner when no user is given, until it is 4 hours without a report', async () => {
    const s = await setUp('Stale calls')
    const body = { id: callId(), remote_phone: s.remote, local_phone: s.owned.number, status: 'in-progress' }
    await reportOk(s, body)
    expect((await availability(s.org)).get(s.org.member.id)?.active_calls).toHaveLength(1)
    ctx.clock.advance(3 * 3_600_000)
    expect((await availability(s.org)).get(s.org.member.id)?.status).toBe('online')
    ctx.clock.advance(3_600_000 + 1000)
    expect((await availability(s.org)).get(s.org.member.id)).toMatchObject({ status: 'offline', active_calls: [] })
    // A call on a number nobody owns and no user given is nobody's.
    await reportOk(s, { ...body, id: callId(), local_phone: s.shared.number })
    const everyone = await availability(s.org)
    expect([...everyone.values()].flatMap((a) => a.active_calls)).toEqual([])
  })
})

describe('POST /inbound/call/ refuses bad reports, storing nothing', () => {
  let s: Setup
  beforeAll(async () => {
    s = await setUp('Bad calls')
  })

  async function invalid(body: Record<string, unknown>, fieldErrors: Record<string, unknown>) {
    const counts = await storedCounts(ctx.database.db, s.org.id)
    const res = await report(s, body)
    expect(res.statusCode, res.body).toBe(400)
    expect(res.json()).toEqual({ errors: [], 'field-errors': fieldErrors })
    expect(await storedCounts(ctx.database.db, s.org.id)).toEqual(counts)
  }

  it('with field errors', async () => {
    const good = { id: callId(), status: 'completed', remote_phone: s.remote, local_phone: s.owned.number }
    await invalid({ ...good, status: 'ringing' }, { status: 'Not a valid choice.' })
    await invalid({ ...good, status: undefined }, { status: 'This field is required.' })
    await invalid({ ...good, direction: 'sideways' }, { direction: 'Not a valid choice.' })
    await invalid({ ...good, disposition: 'maybe' }, { disposition: 'Not a valid choice.' })
    await invalid({ ...good, duration: -1 }, { duration: 'Ensure this value is greater than or equal to 0.' })
    await invalid({ ...good, duration: 1.5 }, { duration: 'A valid integer is required.' })
    await invalid(
      { ...good, recording_url: 'http://media.example.com/r.mp3' },
      { recording_url: 'Enter an https:// URL.' },
    )
    await invalid({ ...good, voicemail_url: 'ftp://x' }, { voicemail_url: 'Enter an https:// URL.' })
    await invalid({ ...good, user_id: ctx.other.admin.id }, { user_id: 'Not a member of this organization.' })
    await invalid(
      { ...good, local_phone: freshNumber() },
      { local_phone: 'Not one of the organization’s phone numbers.' },
    )
  })

  it('unsigned', async () => {
    const counts = await storedCounts(ctx.database.db, s.org.id)
    const body = { id: callId(), status: 'completed', remote_phone: s.remote, local_phone: s.owned.number }
    const wrong = await report(s, body, { secret: await inboundSecretOf(ctx.app, ctx.other) })
    expect(wrong.statusCode).toBe(401)
    const stale = await report(s, body, { at: new Date(ctx.clock.now().getTime() - 10 * 60_000) })
    expect(stale.statusCode).toBe(401)
    expect(await storedCounts(ctx.database.db, s.org.id)).toEqual(counts)
  })
})
