import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Webhook } from 'standardwebhooks'
import { purgeOldReceipts, RECEIPT_RETENTION_DAYS } from './inbound-repo.js'
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

// `POST /inbound/sms/`: a signed text lands on the lead of the contact with the sender's number, with an
// `incoming_sms` task for the owner of the number it was sent to; anything not signed right stores nothing.

let ctx: TestContext
beforeAll(async () => {
  ctx = await createTestContext()
})
afterAll(async () => {
  await ctx.close()
})

let numbers = 0
/** A fresh US number in the 555 range (valid for libphonenumber), in E.164. */
function freshNumber(): string {
  numbers += 1
  return `+1415555${String(1000 + numbers).padStart(4, '0')}`
}

async function addNumber(org: TestOrg, body: Record<string, unknown>): Promise<{ id: string; number: string }> {
  const res = await call(ctx.app, org.admin.key, 'POST', '/phone_number/', { body })
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

async function createLead(org: TestOrg, body: Record<string, unknown>) {
  const res = await call(ctx.app, org.member.key, 'POST', '/lead/', { body })
  expect(res.statusCode, res.body).toBe(200)
  return res.json<{ id: string; name: string; contacts: { id: string; phones: { phone: string }[] }[] }>()
}

/** An organization with a number owned by its rep and one owned by nobody, and the inbound secret. */
async function setUp(name: string) {
  const org = await ctx.createOrg(name)
  const owned = await addNumber(org, { number: freshNumber(), label: 'Rey’s line', user_id: org.member.id })
  const shared = await addNumber(org, { number: freshNumber(), label: 'Front desk' })
  const secret = await inboundSecretOf(ctx.app, org)
  return { org, owned, shared, secret }
}

type Setup = Awaited<ReturnType<typeof setUp>>

function sms(s: Setup, body: Record<string, unknown>, rest: Partial<SignedPost> = {}) {
  return signedPost(ctx.app, ctx.clock, 'sms', { organizationId: s.org.id, secret: s.secret, body, ...rest })
}

async function smsOk(s: Setup, body: Record<string, unknown>, rest: Partial<SignedPost> = {}): Promise<Answer> {
  const res = await sms(s, body, rest)
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

function get<T>(org: TestOrg, path: string, query?: Record<string, string>): Promise<T> {
  return adminGet<T>(ctx.app, org, path, query)
}

async function activity<T>(org: TestOrg, answer: Answer): Promise<T> {
  return (await answeredActivity(ctx.app, org, answer)) as T
}

async function eventsOf(org: TestOrg, objectId: string): Promise<TestEvent[]> {
  return (await get<{ data: TestEvent[] }>(org, '/event/', { object_id: objectId })).data
}

describe('GET /inbound/secret/ and POST /inbound/secret/rotate/', () => {
  it('shows admins one secret, made on first use, as a Standard Webhooks secret; others get 403', async () => {
    const org = await ctx.createOrg('Secrets')
    const first = await call(ctx.app, org.admin.key, 'GET', '/inbound/secret/')
    expect(first.statusCode).toBe(200)
    const shown = first.json<{ organization_id: string; secret: string; date_created: string }>()
    expect(shown).toEqual({
      organization_id: org.id,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      date_created: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/),
    })
    expect(Buffer.from(shown.secret.slice('whsec_'.length), 'base64')).toHaveLength(32)
    expect((await call(ctx.app, org.admin.key, 'GET', '/inbound/secret/')).json()).toEqual(shown)
    // Another organization's secret is its own.
    expect(await inboundSecretOf(ctx.app, ctx.other)).not.toBe(shown.secret)

    for (const [method, path] of [
      ['GET', '/inbound/secret/'],
      ['POST', '/inbound/secret/rotate/'],
    ] as const) {
      const rep = await call(ctx.app, org.member.key, method, path)
      expect(rep.statusCode).toBe(403)
      expect(rep.json()).toEqual({ error: expect.any(String) })
      const anonymous = await call(ctx.app, undefined, method, path)
      expect(anonymous.statusCode).toBe(401)
    }
    expect((await call(ctx.app, org.admin.key, 'GET', '/inbound/secret/')).json()).toEqual(shown)
  })

  it('rotates: a request signed with the old secret is refused and stores nothing, the new one is taken', async () => {
    const s = await setUp('Rotation')
    const before = s.secret
    const rotated = await call(ctx.app, s.org.admin.key, 'POST', '/inbound/secret/rotate/')
    expect(rotated.statusCode).toBe(200)
    const after = rotated.json<{ secret: string }>().secret
    expect(after).toMatch(/^whsec_/)
    expect(after).not.toBe(before)
    expect(await inboundSecretOf(ctx.app, s.org)).toBe(after)

    const counts = await storedCounts(ctx.database.db, s.org.id)
    const body = { id: 'SM-rot-1', remote_phone: freshNumber(), local_phone: s.owned.number, text: 'hello' }
    const old = await sms(s, body, { secret: before })
    expect(old.statusCode).toBe(401)
    expect(old.json()).toEqual({ error: expect.any(String) })
    expect(await storedCounts(ctx.database.db, s.org.id)).toEqual(counts)
    expect((await sms(s, body, { secret: after })).statusCode).toBe(200)
  })
})

describe('POST /inbound/sms/', () => {
  it('lands on the lead of the contact with that number, with an incoming_sms task for the number’s owner', async () => {
    const s = await setUp('Texts')
    const remote = freshNumber()
    const lead = await createLead(s.org, {
      name: 'Wayne Enterprises',
      contacts: [{ name: 'Bruce Wayne', phones: [{ phone: remote.replace('+1', ''), type: 'mobile' }] }],
    })
    const contact = lead.contacts[0]
    expect(contact?.phones[0]?.phone).toBe(remote)
    const attachment = {
      url: 'https://media.example.com/a.jpg',
      filename: 'a.jpg',
      content_type: 'image/jpeg',
      size: 2048,
    }
    const answer = await smsOk(s, {
      id: 'SM-1',
      remote_phone: remote,
      local_phone: s.owned.number,
      text: 'Can we move the demo to Friday?',
      attachments: [attachment],
      date: '2026-03-01T11:58:00Z',
    })
    expect(answer).toEqual({
      activity_id: expect.stringMatching(/^acti_/),
      lead_id: lead.id,
      task_id: expect.stringMatching(/^noti_/),
    })

    const listed = await get<{ data: Record<string, unknown>[] }>(s.org, '/activity/', {
      lead_id: lead.id,
      _type: 'SMS',
    })
    expect(listed.data).toHaveLength(1)
    expect(listed.data[0]).toMatchObject({
      id: answer.activity_id,
      _type: 'SMS',
      lead_id: lead.id,
      contact_id: contact?.id,
      contact_name: 'Bruce Wayne',
      user_id: s.org.member.id,
      direction: 'inbound',
      status: 'inbox',
      text: 'Can we move the demo to Friday?',
      remote_phone: remote,
      remote_phone_formatted: expect.stringMatching(/^\+1 415 555 /),
      local_phone: s.owned.number,
      attachments: [attachment],
      provider_message_id: 'SM-1',
      activity_at: '2026-03-01T11:58:00.000000+00:00',
    })

    const task = await get<Record<string, unknown>>(s.org, `/task/${answer.task_id ?? ''}/`)
    expect(task).toMatchObject({
      _type: 'incoming_sms',
      lead_id: lead.id,
      lead_name: 'Wayne Enterprises',
      contact_id: contact?.id,
      assigned_to: s.org.member.id,
      is_complete: false,
      object_type: 'sms',
      object_id: answer.activity_id,
      text: 'Can we move the demo to Friday?',
      remote_phone: remote,
      remote_phone_formatted: listed.data[0]?.remote_phone_formatted,
      local_phone: s.owned.number,
      attachments: [attachment],
      view: 'inbox',
    })
    // The rep finds it in their inbox.
    const inbox = await call(ctx.app, s.org.member.key, 'GET', '/task/', {
      query: { view: 'inbox', _type: 'all', assigned_to: s.org.member.id },
    })
    expect(inbox.json<{ data: { id: string }[] }>().data.map((t) => t.id)).toContain(answer.task_id)

    // Events in the transaction of the write, by no user and no key.
    const [activityEvent] = await eventsOf(s.org, answer.activity_id)
    expect(activityEvent).toMatchObject({ object_type: 'activity.sms', action: 'created', lead_id: lead.id })
    expect(activityEvent).toMatchObject({ user_id: null, api_key_id: null, request_id: expect.stringMatching(/^req_/) })
    const [taskEvent] = await eventsOf(s.org, answer.task_id ?? '')
    expect(taskEvent).toMatchObject({ object_type: 'task.incoming_sms', action: 'created', user_id: null })
    expect(taskEvent?.request_id).toBe(activityEvent?.request_id)
  })

  it('assigns the task to the first admin when the number has no owner', async () => {
    const s = await setUp('Front desk')
    const remote = freshNumber()
    await createLead(s.org, { name: 'Globex', contacts: [{ name: 'Hank', phones: [{ phone: remote }] }] })
    const answer = await smsOk(s, { id: 'SM-2', remote_phone: remote, local_phone: s.shared.number, text: 'Hi' })
    const task = await get<{ assigned_to: string }>(s.org, `/task/${answer.task_id ?? ''}/`)
    expect(task.assigned_to).toBe(s.org.admin.id)
    expect((await activity<{ user_id: string }>(s.org, answer)).user_id).toBe(s.org.admin.id)
  })

  it('makes a lead named after an unknown number, which the next text from it finds', async () => {
    const s = await setUp('Strangers')
    const remote = freshNumber()
    const counts = await storedCounts(ctx.database.db, s.org.id)
    const first = await smsOk(s, {
      id: 'SM-3',
      remote_phone: remote,
      local_phone: s.owned.number,
      text: 'Who is this?',
    })
    const lead = await get<{
      name: string
      contacts: { id: string; name: string | null; phones: { phone: string; type: string }[] }[]
    }>(s.org, `/lead/${first.lead_id}/`)
    expect(lead.name).toBe(`+1 415 555 ${remote.slice(-4)}`)
    expect(lead.contacts).toHaveLength(1)
    expect(lead.contacts[0]?.phones).toEqual([expect.objectContaining({ phone: remote, type: 'mobile' })])
    const sms = await activity<{ contact_id: string }>(s.org, first)
    expect(sms.contact_id).toBe(lead.contacts[0]?.id)
    const created = await get<{ data: { _type: string }[] }>(s.org, '/activity/', { lead_id: first.lead_id })
    expect(created.data.map((a) => a._type).sort()).toEqual(['Created', 'SMS'])
    // As creating a lead through the API does: the lead's, its contact's and its Created activity's events.
    const leadEvents = await get<{ data: TestEvent[] }>(s.org, '/event/', { lead_id: first.lead_id })
    expect(leadEvents.data.map((e) => `${e.object_type} ${e.action}`).sort()).toEqual([
      'activity.created created',
      'activity.sms created',
      'contact created',
      'lead created',
      'task.incoming_sms created',
    ])
    expect(await storedCounts(ctx.database.db, s.org.id)).toEqual({
      ...counts,
      lead: counts.lead + 1,
      contact: counts.contact + 1,
      activity: counts.activity + 2,
      task: counts.task + 1,
      event: counts.event + 5,
      inbound_ref: counts.inbound_ref + 1,
      inbound_receipt: counts.inbound_receipt + 1,
    })

    const second = await smsOk(s, { id: 'SM-4', remote_phone: remote, local_phone: s.owned.number, text: 'Hello?' })
    expect(second.lead_id).toBe(first.lead_id)
    expect(second.activity_id).not.toBe(first.activity_id)
    expect((await storedCounts(ctx.database.db, s.org.id)).lead).toBe(counts.lead + 1)
  })

  it('with several contacts holding the number, picks the most recently updated lead', async () => {
    const s = await setUp('Shared phones')
    const remote = freshNumber()
    const older = await createLead(s.org, { name: 'Older', contacts: [{ name: 'A', phones: [{ phone: remote }] }] })
    const newer = await createLead(s.org, { name: 'Newer', contacts: [{ name: 'B', phones: [{ phone: remote }] }] })
    expect((await smsOk(s, { id: 'SM-5', remote_phone: remote, local_phone: s.owned.number, text: '1' })).lead_id).toBe(
      newer.id,
    )
    ctx.clock.advance(1000)
    const touched = await call(ctx.app, s.org.member.key, 'PUT', `/lead/${older.id}/`, { body: { name: 'Older!' } })
    expect(touched.statusCode).toBe(200)
    expect((await smsOk(s, { id: 'SM-6', remote_phone: remote, local_phone: s.owned.number, text: '2' })).lead_id).toBe(
      older.id,
    )
  })

  it('stores a repeated webhook-id or message id once and answers as the first time', async () => {
    const s = await setUp('Repeats')
    const body = { id: 'SM-7', remote_phone: freshNumber(), local_phone: s.owned.number, text: 'Once' }
    const first = await smsOk(s, body, { id: 'msg_repeat_1' })
    const counts = await storedCounts(ctx.database.db, s.org.id)
    // The same delivery again, signed anew as a provider's retry is.
    ctx.clock.advance(60_000)
    expect(await smsOk(s, body, { id: 'msg_repeat_1' })).toEqual(first)
    // Another delivery of the same message.
    expect(await smsOk(s, body, { id: 'msg_repeat_2' })).toEqual(first)
    expect(await storedCounts(ctx.database.db, s.org.id)).toEqual({
      ...counts,
      inbound_receipt: counts.inbound_receipt + 1,
    })
    // The same message id in another organization is another message.
    const other = await setUp('Repeats elsewhere')
    const elsewhere = await smsOk(other, { ...body, local_phone: other.owned.number }, { id: 'msg_repeat_1' })
    expect(elsewhere.activity_id).not.toBe(first.activity_id)
  })

  it('forgets webhook-ids after a week; a message delivered again after that is still stored once', async () => {
    const s = await setUp('Old receipts')
    const body = { id: 'SM-old', remote_phone: freshNumber(), local_phone: s.owned.number, text: 'Long ago' }
    const first = await smsOk(s, body, { id: 'msg_old' })
    const counts = await storedCounts(ctx.database.db, s.org.id)
    const weekLater = { now: () => new Date(ctx.clock.now().getTime() + (RECEIPT_RETENTION_DAYS * 24 + 1) * 3_600_000) }
    expect(await purgeOldReceipts(ctx.database.db, weekLater)).toBeGreaterThanOrEqual(1)
    expect((await storedCounts(ctx.database.db, s.org.id)).inbound_receipt).toBe(counts.inbound_receipt - 1)
    expect(await smsOk(s, body, { id: 'msg_old' })).toEqual(first)
    expect(await storedCounts(ctx.database.db, s.org.id)).toEqual(counts)
  })

  it('takes any of several signatures, and a body without attachments or date', async () => {
    const s = await setUp('Several signatures')
    const body = { id: 'SM-8', remote_phone: freshNumber(), local_phone: s.owned.number, text: '' }
    const id = 'msg_several'
    const at = ctx.clock.now()
    const good = new Webhook(s.secret).sign(id, at, JSON.stringify(body))
    const bad = new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`).sign(id, at, JSON.stringify(body))
    const answer = await smsOk(s, body, { id, at, headers: { 'webhook-signature': `${bad} v1a,ignored ${good}` } })
    const stored = await activity<{ text: string; attachments: unknown[]; activity_at: string; date_created: string }>(
      s.org,
      answer,
    )
    expect(stored).toMatchObject({ text: '', attachments: [] })
    expect(stored.activity_at).toBe(stored.date_created)
  })
})

describe('POST /inbound/sms/ refuses what is not signed right, storing nothing', () => {
  let s: Setup
  let body: Record<string, unknown>
  beforeAll(async () => {
    s = await setUp('Refusals')
    body = { id: 'SM-9', remote_phone: freshNumber(), local_phone: s.owned.number, text: 'Let me in' }
  })

  async function refused(rest: Partial<SignedPost>, what: RegExp = /./) {
    const counts = await storedCounts(ctx.database.db, s.org.id)
    const res = await sms(s, body, rest)
    expect(res.statusCode, res.body).toBe(401)
    expect(res.json()).toEqual({ error: expect.stringMatching(what) })
    expect(res.headers['www-authenticate']).toBeDefined()
    expect(await storedCounts(ctx.database.db, s.org.id)).toEqual(counts)
  }

  it('a wrong signature, or a body changed after signing', async () => {
    await refused({ secret: `whsec_${Buffer.alloc(32, 9).toString('base64')}` }, /not signed/)
    await refused({ secret: await inboundSecretOf(ctx.app, ctx.other) })
    await refused({ headers: { 'webhook-signature': 'v1,' } })
    await refused({ headers: { 'webhook-signature': 'v1,bm90IGEgc2lnbmF0dXJl' } })
    // Signed for this body, sent with another.
    await refused({ id: 'msg_x', sent: JSON.stringify({ ...body, text: 'Changed' }) })
    // The signature of one webhook-id does not sign another.
    const at = ctx.clock.now()
    const signature = new Webhook(s.secret).sign('msg_x', at, JSON.stringify(body))
    await refused({ id: 'msg_y', at, headers: { 'webhook-signature': signature } })
  })

  it('a timestamp more than five minutes old or ahead, or not in seconds', async () => {
    const now = ctx.clock.now().getTime()
    await refused({ at: new Date(now - 6 * 60_000) }, /five minutes/)
    await refused({ at: new Date(now + 6 * 60_000) }, /five minutes/)
    await refused({ headers: { 'webhook-timestamp': new Date(now).toISOString() } }, /seconds/)
    // Four minutes old is still fresh.
    expect((await sms(s, { ...body, id: 'SM-fresh' }, { at: new Date(now - 4 * 60_000) })).statusCode).toBe(200)
  })

  it('an unknown organization, or one that never made its secret', async () => {
    await refused({ organizationId: 'orga_unknown' })
    const fresh = await ctx.createOrg('No secret yet')
    await refused({ organizationId: fresh.id })
    // Another organization's id with this organization's signature.
    await refused({ organizationId: ctx.other.id })
  })

  it('a missing header', async () => {
    for (const header of ['leadline-organization', 'webhook-id', 'webhook-timestamp', 'webhook-signature']) {
      await refused({ headers: { [header]: undefined } }, /Missing/)
    }
    const counts = await storedCounts(ctx.database.db, s.org.id)
    const bare = await ctx.app.inject({ method: 'POST', url: '/api/v1/inbound/sms/', payload: body })
    expect(bare.statusCode).toBe(401)
    expect(await storedCounts(ctx.database.db, s.org.id)).toEqual(counts)
  })

  it('an API key instead of a signature', async () => {
    const res = await call(ctx.app, s.org.admin.key, 'POST', '/inbound/sms/', { body })
    expect(res.statusCode).toBe(401)
  })
})

describe('POST /inbound/sms/ validates a signed body (400, nothing stored)', () => {
  let s: Setup
  beforeAll(async () => {
    s = await setUp('Bad bodies')
  })

  async function invalid(body: Record<string, unknown>, fieldErrors: Record<string, unknown>) {
    const counts = await storedCounts(ctx.database.db, s.org.id)
    const res = await sms(s, body)
    expect(res.statusCode, res.body).toBe(400)
    expect(res.json()).toEqual({ errors: [], 'field-errors': fieldErrors })
    expect(await storedCounts(ctx.database.db, s.org.id)).toEqual(counts)
  }

  it('refuses missing and mistyped fields, numbers that are not numbers, and a local number of someone else', async () => {
    const good = { id: 'SM-10', remote_phone: freshNumber(), local_phone: s.owned.number, text: 'ok' }
    await invalid({ ...good, text: undefined }, { text: 'This field is required.' })
    await invalid({ ...good, id: '' }, { id: 'This field may not be blank.' })
    await invalid({ ...good, text: 42 }, { text: 'Must be a string.' })
    await invalid({ ...good, remote_phone: 'anonymous' }, { remote_phone: 'Enter a valid phone number.' })
    await invalid({ ...good, local_phone: 'none' }, { local_phone: expect.stringMatching(/phone numbers/) })
    // A number of the organization's contacts or of another organization is not one of its own.
    const theirs = await addNumber(ctx.other, { number: freshNumber() })
    await invalid({ ...good, local_phone: theirs.number }, { local_phone: expect.stringMatching(/phone numbers/) })
    await invalid(
      {
        ...good,
        attachments: [{ url: 'http://media.example.com/a.jpg', filename: 'a.jpg', content_type: 'image/jpeg' }],
      },
      { 'attachments.0.url': 'Enter an https:// URL.' },
    )
    await invalid(
      { ...good, attachments: [{ url: 'https://x.example.com/a' }] },
      {
        'attachments.0.filename': 'This field is required.',
        'attachments.0.content_type': 'This field is required.',
      },
    )
    await invalid({ ...good, date: 'yesterday' }, { date: 'Enter an ISO 8601 timestamp.' })
  })

  it('refuses a body that is not JSON', async () => {
    const counts = await storedCounts(ctx.database.db, s.org.id)
    const res = await sms(s, {}, { payload: '{"id": ' })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual({ error: 'Malformed JSON in the request body.' })
    expect(await storedCounts(ctx.database.db, s.org.id)).toEqual(counts)
  })
})

describe('rate limits of the inbound endpoint', () => {
  let limited: TestContext
  beforeAll(async () => {
    limited = await createTestContext({ env: { LEADLINE_RATE_LIMIT: '3', LEADLINE_RATE_WINDOW: '60' } })
  })
  afterAll(async () => {
    await limited.close()
  })

  it('counts signed requests per organization, and refused ones per address', async () => {
    const setUpIn = async (org: TestOrg) => {
      const number = await call(limited.app, org.admin.key, 'POST', '/phone_number/', {
        body: { number: freshNumber() },
      })
      return { number: number.json<{ number: string }>().number, secret: await inboundSecretOf(limited.app, org) }
    }
    const a = await setUpIn(limited.org)
    const b = await setUpIn(limited.other)
    const post = (org: TestOrg, s: { number: string; secret: string }, n: number, secret = s.secret) =>
      signedPost(limited.app, limited.clock, 'sms', {
        organizationId: org.id,
        secret,
        body: { id: `SM-rl-${n}`, remote_phone: '+14155550100', local_phone: s.number, text: String(n) },
      })
    for (let n = 0; n < 3; n++) {
      const res = await post(limited.org, a, n)
      expect(res.statusCode, res.body).toBe(200)
      expect(res.headers['x-rate-limit-remaining']).toBe(String(2 - n))
    }
    const over = await post(limited.org, a, 3)
    expect(over.statusCode).toBe(429)
    expect(over.json()).toMatchObject({
      error: { rate_limit_type: 'organization', rate_endpoint_group: 'inbound', rate_limit: 3 },
    })
    expect(over.headers['retry-after']).toBeDefined()
    // Another organization has its own count.
    expect((await post(limited.other, b, 10)).statusCode).toBe(200)
    // Refused requests are counted by address: they cannot use up an organization's limit, and are limited too.
    const bad = `whsec_${Buffer.alloc(32, 3).toString('base64')}`
    const refusals = []
    for (let n = 0; n < 4; n++) refusals.push((await post(limited.other, b, 20 + n, bad)).statusCode)
    expect(refusals).toEqual([401, 401, 401, 429])
    expect((await post(limited.other, b, 11)).statusCode).toBe(200)
  })
})
