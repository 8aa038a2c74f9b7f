import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { formatTimestamp } from '../../platform/data/time.js'
import { call, createTestContext, type TestContext, type TestEvent } from '../../tooling/test-support/test-app.js'
import {
  CONTACT_PHONE,
  EXTERNAL_PHONE,
  INTERNAL_PHONE,
  smsScene,
  type SmsScene,
} from '../../tooling/test-support/sms-scene.js'

let ctx: TestContext
let scene: SmsScene
let otherScene: SmsScene
let secondLead: { id: string; contacts: { id: string }[] }

beforeAll(async () => {
  ctx = await createTestContext()
  scene = await smsScene(ctx.app, ctx.org)
  otherScene = await smsScene(ctx.app, ctx.other)
  secondLead = (
    await call(ctx.app, ctx.org.member.key, 'POST', '/lead/', {
      body: { name: 'Second Co', contacts: [{ name: 'Sam Second' }] },
    })
  ).json()
})
afterAll(async () => {
  await ctx.close()
})
beforeEach(() => {
  ctx.clock.advance(60_000)
})

const rep = () => ctx.org.member.key

interface Sms {
  id: string
  status: string
  text: string
  direction: string
  date_sent: string | null
  date_scheduled: string | null
  [key: string]: unknown
}

async function post(body: Record<string, unknown>) {
  return call(ctx.app, rep(), 'POST', '/activity/sms/', {
    body: { lead_id: scene.leadId, local_phone: INTERNAL_PHONE, ...body },
  })
}

async function create(body: Record<string, unknown>): Promise<Sms> {
  const res = await post(body)
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

async function put(id: string, body: Record<string, unknown>) {
  return call(ctx.app, rep(), 'PUT', `/activity/sms/${id}/`, { body })
}

const draft = (extra: Record<string, unknown> = {}) =>
  create({ status: 'draft', text: 'Hello', remote_phone: CONTACT_PHONE, contact_id: scene.contactId, ...extra })

/** The message's sends in the outbox, oldest first. */
function sends(activityId: string) {
  return ctx.database.db
    .selectFrom('outbox')
    .select(['status', 'next_attempt_at', 'kind', 'ordering_key', 'payload'])
    .where('ordering_key', '=', `sms:${activityId}`)
    .orderBy('seq')
    .execute()
}

async function eventsOf(id: string): Promise<TestEvent[]> {
  const res = await call(ctx.app, rep(), 'GET', '/event/', { query: { object_id: id } })
  return res.json<{ data: TestEvent[] }>().data.reverse()
}

const inOneHour = () => formatTimestamp(new Date(ctx.clock.now().getTime() + 3_600_000))

describe('POST /activity/sms/', () => {
  it('records a message sent elsewhere as Close does: sent now, outbound, External, nothing to send', async () => {
    const sms = await create({
      status: 'sent',
      text: 'this is the message body',
      remote_phone: '+447946666666',
      contact_id: scene.contactId,
    })
    expect(sms).toMatchObject({
      _type: 'SMS',
      status: 'sent',
      direction: 'outbound',
      source: 'External',
      text: 'this is the message body',
      remote_phone: '+447946666666',
      remote_phone_formatted: '+44 7946 666666',
      remote_country_iso: 'GB',
      local_phone: INTERNAL_PHONE,
      local_phone_formatted: '+1 415 555 0100',
      lead_id: scene.leadId,
      contact_id: scene.contactId,
      contact_name: 'Tess Text',
      user_id: ctx.org.member.id,
      user_name: 'Rey Rep',
      created_by: ctx.org.member.id,
      created_by_name: 'Rey Rep',
      updated_by_name: 'Rey Rep',
      error_message: null,
      date_scheduled: null,
      attachments: [],
      send_attempts: [],
      template_id: null,
    })
    expect(sms.id).toMatch(/^acti_/)
    expect(sms.date_sent).toBe(sms.date_created)
    expect(await sends(sms.id)).toEqual([])
    const [event] = await eventsOf(sms.id)
    expect(event).toMatchObject({ object_type: 'activity.sms', action: 'created', lead_id: scene.leadId })
    expect(event?.data).toEqual(sms)
    // Listed with its type and in the lead's activities.
    const listed = await call(ctx.app, rep(), 'GET', '/activity/sms/', { query: { lead_id: scene.leadId } })
    expect(listed.json<{ data: Sms[] }>().data.map((s) => s.id)).toContain(sms.id)
    const mixed = await call(ctx.app, rep(), 'GET', '/activity/', { query: { lead_id: scene.leadId, _type: 'SMS' } })
    expect(mixed.json<{ data: Sms[] }>().data.map((s) => s.id)).toContain(sms.id)
    expect((await call(ctx.app, rep(), 'GET', `/activity/sms/${sms.id}/`)).json()).toEqual(sms)
  })

  it('logs a received message as inbound, and keeps MMS attachments', async () => {
    const attachments = [
      { url: 'https://files.example.com/a.jpg', filename: 'a.jpg', content_type: 'image/jpeg', size: 2048 },
      { url: 'https://files.example.com/b.pdf', filename: 'b.pdf', content_type: 'application/pdf' },
    ]
    const sms = await create({ status: 'inbox', text: '', remote_phone: '(415) 555-0123', attachments })
    // No contact_id: the message is with the lead's contact who has the number.
    expect(sms).toMatchObject({
      status: 'inbox',
      direction: 'inbound',
      remote_phone: CONTACT_PHONE,
      date_sent: null,
      contact_id: scene.contactId,
      contact_name: 'Tess Text',
    })
    expect(sms.attachments).toEqual([attachments[0], { ...attachments[1], size: null }])
    expect(await sends(sms.id)).toEqual([])
  })

  it('names no contact when told so, or when none of the lead’s has the number', async () => {
    const none = await create({ status: 'sent', text: 'x', remote_phone: CONTACT_PHONE, contact_id: null })
    expect(none).toMatchObject({ contact_id: null, contact_name: null })
    const stranger = await create({ status: 'sent', text: 'x', remote_phone: '+14155550777' })
    expect(stranger).toMatchObject({ contact_id: null, contact_name: null })
  })

  it('keeps a draft, which may lack a recipient and text', async () => {
    const sms = await create({ status: 'draft' })
    expect(sms).toMatchObject({ status: 'draft', text: '', remote_phone: null, source: 'Close.io' })
    expect(await sends(sms.id)).toEqual([])
  })

  it('puts a message in the outbox: its send is due after send_in seconds', async () => {
    const sms = await create({ status: 'outbox', text: 'On my way', remote_phone: CONTACT_PHONE, send_in: 5 })
    expect(sms).toMatchObject({ status: 'outbox', date_sent: null, date_scheduled: null, direction: 'outbound' })
    const [send] = await sends(sms.id)
    expect(send).toMatchObject({ kind: 'sms_send', status: 'pending' })
    const due = Date.parse(send?.next_attempt_at ?? '') - Date.parse(String(sms.date_created))
    expect(due).toBe(5000)
  })

  it('schedules a message: its send is due at date_scheduled', async () => {
    const at = '2031-01-02T03:04:05+01:00'
    const sms = await create({
      status: 'scheduled',
      text: 'Happy new year',
      remote_phone: CONTACT_PHONE,
      date_scheduled: at,
    })
    expect(sms).toMatchObject({ status: 'scheduled', date_scheduled: '2031-01-02T02:04:05.000000+00:00' })
    expect(await sends(sms.id)).toEqual([
      expect.objectContaining({ status: 'pending', next_attempt_at: '2031-01-02T02:04:05.000000+00:00' }),
    ])
  })

  it.each([
    ['no local_phone', { local_phone: undefined }, 'local_phone', 'This field is required.'],
    ['an external local_phone', { local_phone: EXTERNAL_PHONE }, 'local_phone', 'internal'],
    ['a local_phone the organization does not have', { local_phone: '+14155550142' }, 'local_phone', 'internal'],
    ['a local_phone that is no number', { local_phone: 'front desk' }, 'local_phone', 'valid phone number'],
    ['a remote_phone that is no number', { remote_phone: 'call me' }, 'remote_phone', 'valid phone number'],
    ['send_in 60', { send_in: 60 }, 'send_in', 'less than or equal to 59'],
    ['send_in -1', { send_in: -1 }, 'send_in', 'greater than or equal to 0'],
    ['send_in 2.5', { send_in: 2.5 }, 'send_in', 'integer'],
    ['send_in with status sent', { status: 'sent', send_in: 5 }, 'send_in', 'outbox'],
    ['scheduled without a date', { status: 'scheduled' }, 'date_scheduled', 'Required'],
    [
      'scheduled in the past',
      { status: 'scheduled', date_scheduled: '2020-01-01T00:00:00Z' },
      'date_scheduled',
      'future',
    ],
    ['scheduled at no time', { status: 'scheduled', date_scheduled: 'tomorrow' }, 'date_scheduled', 'ISO 8601'],
    [
      'a date_scheduled on a sent message',
      { status: 'sent', date_scheduled: '2031-01-01T00:00:00Z' },
      'date_scheduled',
      '',
    ],
    ['status error', { status: 'error' }, 'status', 'Not a valid choice'],
    ['no status', { status: undefined }, 'status', 'required'],
    ['nobody to send to', { remote_phone: undefined }, 'remote_phone', 'required'],
    ['nothing to say', { text: '  ' }, 'text', 'blank'],
    ['a lead that does not exist', { lead_id: 'lead_nope' }, 'lead_id', 'does not exist'],
    ['a contact of another lead', { contact_id: 'second' }, 'contact_id', 'Not a contact of this lead'],
    [
      'an attachment not on https',
      { attachments: [{ url: 'http://files.example.com/a.jpg', filename: 'a.jpg', content_type: 'image/jpeg' }] },
      'attachments.0.url',
      'https',
    ],
    [
      'an attachment without a content type',
      { attachments: [{ url: 'https://files.example.com/a', filename: 'a', content_type: 'jpeg' }] },
      'attachments.0.content_type',
      '',
    ],
  ])('refuses %s with a 400 on that field, storing nothing', async (_, extra, field, message) => {
    const body: Record<string, unknown> = { status: 'outbox', text: 'Hi', remote_phone: CONTACT_PHONE, ...extra }
    if (body.contact_id === 'second') body.contact_id = secondLead.contacts[0]?.id
    const before = await ctx.database.db.selectFrom('activity').select('id').where('type', '=', 'SMS').execute()
    const res = await post(body)
    expect(res.statusCode, res.body).toBe(400)
    const errors = res.json<{ errors: string[]; 'field-errors': Record<string, string> }>()
    expect(errors.errors).toEqual([])
    expect(errors['field-errors'][field]).toContain(message)
    const after = await ctx.database.db.selectFrom('activity').select('id').where('type', '=', 'SMS').execute()
    expect(after).toHaveLength(before.length)
  })

  it('refuses another organization’s lead, contact and internal number', async () => {
    const foreignLead = await post({
      status: 'sent',
      text: 'x',
      remote_phone: CONTACT_PHONE,
      lead_id: otherScene.leadId,
    })
    expect(foreignLead.statusCode).toBe(400)
    expect(foreignLead.json()['field-errors']).toEqual({ lead_id: 'Object does not exist.' })
    const foreignContact = await post({
      status: 'sent',
      text: 'x',
      remote_phone: CONTACT_PHONE,
      contact_id: otherScene.contactId,
    })
    expect(foreignContact.json()['field-errors']).toEqual({ contact_id: 'Not a contact of this lead.' })
    // The other organization has the same number as its own internal one; it is not this one's until this one adds it.
    await ctx.database.db
      .deleteFrom('phone_number')
      .where('organization_id', '=', ctx.org.id)
      .where('number', '=', INTERNAL_PHONE)
      .execute()
    try {
      const foreignNumber = await post({ status: 'sent', text: 'x', remote_phone: CONTACT_PHONE })
      expect(foreignNumber.json()['field-errors']).toEqual({
        local_phone: 'Not one of your organization’s internal phone numbers.',
      })
    } finally {
      const res = await call(ctx.app, ctx.org.admin.key, 'POST', '/phone_number/', { body: { number: INTERNAL_PHONE } })
      expect(res.statusCode, res.body).toBe(200)
    }
  })
})

/** What each status allows, as the refusal says it. */
const ALLOWED: Record<string, string> = {
  draft: 'a draft message can only become scheduled or outbox',
  scheduled: 'a scheduled message can only become draft',
  outbox: 'an outbox message can only become draft',
  sent: 'a sent message keeps its status',
  inbox: 'an inbox message keeps its status',
}
const MOVES = new Set(['draft scheduled', 'draft outbox', 'scheduled draft', 'outbox draft'])

/** Every move between two statuses but the four the state machine has (error as a target: it is output only). */
function refusedMoves(): [string, string, string][] {
  const targets = [...Object.keys(ALLOWED), 'error']
  return Object.entries(ALLOWED).flatMap(([from, allowed]) =>
    targets
      .filter((to) => to !== from && !MOVES.has(`${from} ${to}`))
      .map((to): [string, string, string] => [from, to, allowed]),
  )
}

describe('PUT /activity/sms/{id}/: the state machine', () => {
  it('edits a draft’s content, recording what changed; a PUT that changes nothing writes nothing', async () => {
    const sms = await draft()
    const res = await put(sms.id, {
      text: 'Hello again',
      remote_phone: '415-555-0124',
      contact_id: null,
      attachments: [{ url: 'https://files.example.com/c.png', filename: 'c.png', content_type: 'image/png', size: 1 }],
    })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toMatchObject({
      status: 'draft',
      text: 'Hello again',
      remote_phone: '+14155550124',
      contact_id: null,
      contact_name: null,
      attachments: [{ url: 'https://files.example.com/c.png', filename: 'c.png', content_type: 'image/png', size: 1 }],
    })
    const again = await put(sms.id, { text: 'Hello again', remote_phone: '+14155550124', status: 'draft' })
    expect(again.statusCode, again.body).toBe(200)
    expect(again.json()).toEqual(res.json())
    const events = await eventsOf(sms.id)
    expect(events.map((e) => e.action)).toEqual(['created', 'updated'])
    expect(events[1]?.changed_fields).toEqual(
      expect.arrayContaining(['text', 'remote_phone', 'remote_phone_formatted', 'contact_id', 'attachments']),
    )
  })

  it('schedules a draft (date_scheduled needed), and back to draft cancels the send; then sends it with send_in, and cancels again', async () => {
    const sms = await draft()
    const undated = await put(sms.id, { status: 'scheduled' })
    expect(undated.statusCode).toBe(400)
    expect(undated.json()['field-errors']).toEqual({ date_scheduled: 'Required to schedule a message.' })
    expect(await sends(sms.id)).toEqual([])

    const at = inOneHour()
    const scheduled = await put(sms.id, { status: 'scheduled', date_scheduled: at })
    expect(scheduled.statusCode, scheduled.body).toBe(200)
    expect(scheduled.json()).toMatchObject({ status: 'scheduled', date_scheduled: at })
    expect(await sends(sms.id)).toEqual([expect.objectContaining({ status: 'pending', next_attempt_at: at })])

    const back = await put(sms.id, { status: 'draft' })
    expect(back.statusCode, back.body).toBe(200)
    expect(back.json()).toMatchObject({ status: 'draft', date_scheduled: at })
    expect((await sends(sms.id)).map((s) => s.status)).toEqual(['cancelled'])

    // The draft keeps its date: scheduling it again needs no other.
    expect((await put(sms.id, { status: 'scheduled' })).json()).toMatchObject({ status: 'scheduled' })
    expect((await put(sms.id, { status: 'draft' })).statusCode).toBe(200)

    const outbox = await put(sms.id, { status: 'outbox', send_in: 5 })
    expect(outbox.statusCode, outbox.body).toBe(200)
    expect(outbox.json()).toMatchObject({ status: 'outbox', date_scheduled: null })
    const waiting = (await sends(sms.id)).at(-1)
    expect(waiting?.status).toBe('pending')
    expect(Date.parse(waiting?.next_attempt_at ?? '') - Date.parse(String(outbox.json().date_updated))).toBe(5000)

    const undo = await put(sms.id, { status: 'draft' })
    expect(undo.statusCode, undo.body).toBe(200)
    expect((await sends(sms.id)).map((s) => s.status)).toEqual(['cancelled', 'cancelled', 'cancelled'])
    const actions = (await eventsOf(sms.id)).map((e) => e.action)
    expect(actions).toEqual(['created', ...Array<string>(6).fill('updated')])
  })

  it('sends a draft edited in the same request, and refuses one with nobody to send to', async () => {
    const empty = await create({ status: 'draft' })
    const refused = await put(empty.id, { status: 'outbox' })
    expect(refused.statusCode).toBe(400)
    expect(refused.json()['field-errors']).toEqual({
      remote_phone: 'This field is required.',
      text: 'This field may not be blank.',
    })
    const sent = await put(empty.id, { status: 'outbox', text: 'Now', remote_phone: CONTACT_PHONE })
    expect(sent.statusCode, sent.body).toBe(200)
    expect(sent.json()).toMatchObject({ status: 'outbox', text: 'Now', remote_phone: CONTACT_PHONE })
    expect(await sends(empty.id)).toHaveLength(1)
  })

  it('sends once when the same draft is sent twice at the same moment (a double click)', async () => {
    const drafts = await Promise.all([draft(), draft(), draft()])
    const answers = await Promise.all(
      drafts.flatMap((d) => [put(d.id, { status: 'outbox' }), put(d.id, { status: 'outbox' })]),
    )
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200, 200, 200, 200])
    for (const d of drafts) expect((await sends(d.id)).map((s) => s.status)).toEqual(['pending'])
  })

  it('refuses to send from a number that stopped being internal since the draft was written', async () => {
    const sms = await draft()
    const number = await ctx.database.db
      .selectFrom('phone_number')
      .select('id')
      .where('organization_id', '=', ctx.org.id)
      .where('number', '=', INTERNAL_PHONE)
      .executeTakeFirstOrThrow()
    const admin = ctx.org.admin.key
    expect(
      (await call(ctx.app, admin, 'PUT', `/phone_number/${number.id}/`, { body: { type: 'external' } })).statusCode,
    ).toBe(200)
    try {
      const res = await put(sms.id, { status: 'outbox' })
      expect(res.statusCode).toBe(400)
      expect(res.json()['field-errors']).toEqual({
        local_phone: 'Not one of your organization’s internal phone numbers.',
      })
      expect(await sends(sms.id)).toEqual([])
    } finally {
      await call(ctx.app, admin, 'PUT', `/phone_number/${number.id}/`, { body: { type: 'internal' } })
    }
  })

  it.each(refusedMoves())('refuses %s → %s with a 400 on status naming what is allowed', async (from, to, allowed) => {
    const extra = from === 'scheduled' ? { date_scheduled: inOneHour() } : from === 'outbox' ? { send_in: 30 } : {}
    const sms = await create({ status: from, text: 'Hi', remote_phone: CONTACT_PHONE, ...extra })
    const body = to === 'scheduled' ? { status: to, date_scheduled: inOneHour() } : { status: to }
    const res = await put(sms.id, body)
    expect(res.statusCode).toBe(400)
    const message = res.json<{ 'field-errors': Record<string, string> }>()['field-errors'].status
    expect(message).toContain(`from ${from} to ${to}`)
    expect(message).toContain(allowed)
    expect((await call(ctx.app, rep(), 'GET', `/activity/sms/${sms.id}/`)).json()).toEqual(sms)
    expect((await sends(sms.id)).map((s) => s.status)).toEqual(
      from === 'scheduled' || from === 'outbox' ? ['pending'] : [],
    )
  })

  it.each(['sent', 'scheduled', 'outbox', 'inbox'])(
    'refuses to edit the text of a message %s (400 on text), and accepts it unchanged',
    async (status) => {
      const extra =
        status === 'scheduled' ? { date_scheduled: inOneHour() } : status === 'outbox' ? { send_in: 30 } : {}
      const sms = await create({ status, text: 'Original', remote_phone: CONTACT_PHONE, ...extra })
      const res = await put(sms.id, { text: 'Edited' })
      expect(res.statusCode).toBe(400)
      expect(res.json()['field-errors']).toEqual({ text: `Only a draft can be changed; this message is ${status}.` })
      const others = await put(sms.id, { remote_phone: '+14155550999', contact_id: null })
      expect(Object.keys(others.json()['field-errors']).sort()).toEqual(['contact_id', 'remote_phone'])
      const unchanged = await put(sms.id, { text: 'Original', remote_phone: CONTACT_PHONE })
      expect(unchanged.statusCode, unchanged.body).toBe(200)
      expect(unchanged.json()).toEqual(sms)
      expect((await eventsOf(sms.id)).map((e) => e.action)).toEqual(['created'])
    },
  )

  it('takes send_in only into the outbox, and a date_scheduled only on a draft', async () => {
    const sms = await draft()
    const early = await put(sms.id, { status: 'scheduled', date_scheduled: inOneHour(), send_in: 5 })
    expect(early.json()['field-errors']).toEqual({ send_in: 'Only when the status becomes outbox.' })
    const scheduled = await create({
      status: 'scheduled',
      text: 'Hi',
      remote_phone: CONTACT_PHONE,
      date_scheduled: inOneHour(),
    })
    const moved = await put(scheduled.id, {
      date_scheduled: formatTimestamp(new Date(ctx.clock.now().getTime() + 7_200_000)),
    })
    expect(Object.keys(moved.json()['field-errors'])).toEqual(['date_scheduled'])
    // The same time, written another way, is no change.
    const same = await put(scheduled.id, {
      date_scheduled: String(scheduled.date_scheduled).replace('.000000+00:00', 'Z'),
    })
    expect(same.statusCode, same.body).toBe(200)
  })

  it('answers 404 for another organization’s message, and for another type of activity', async () => {
    const theirs = await call(ctx.app, ctx.other.member.key, 'POST', '/activity/sms/', {
      body: { lead_id: otherScene.leadId, local_phone: INTERNAL_PHONE, status: 'draft' },
    })
    expect(theirs.statusCode, theirs.body).toBe(200)
    const id = theirs.json<{ id: string }>().id
    expect((await call(ctx.app, rep(), 'GET', `/activity/sms/${id}/`)).statusCode).toBe(404)
    expect((await put(id, { text: 'Mine now' })).statusCode).toBe(404)
    expect((await call(ctx.app, rep(), 'DELETE', `/activity/sms/${id}/`)).statusCode).toBe(404)
    const note = await call(ctx.app, rep(), 'POST', '/activity/note/', { body: { lead_id: scene.leadId, note: 'n' } })
    expect((await put(note.json<{ id: string }>().id, { text: 'x' })).statusCode).toBe(404)
  })
})

describe('DELETE /activity/sms/{id}/', () => {
  it('deletes a message and cancels the send it was waiting for', async () => {
    const sms = await create({ status: 'outbox', text: 'Oops', remote_phone: CONTACT_PHONE, send_in: 30 })
    const res = await call(ctx.app, rep(), 'DELETE', `/activity/sms/${sms.id}/`)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({})
    expect((await call(ctx.app, rep(), 'GET', `/activity/sms/${sms.id}/`)).statusCode).toBe(404)
    expect((await sends(sms.id)).map((s) => s.status)).toEqual(['cancelled'])
    expect((await eventsOf(sms.id)).map((e) => e.action)).toEqual(['created', 'deleted'])
  })
})
