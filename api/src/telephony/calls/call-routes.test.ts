import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { requestEvents } from '../../tooling/test-support/request-events.js'
import { call, createTestContext, type TestContext } from '../../tooling/test-support/test-app.js'
import { changeCall, recordCall } from './call-repo.js'
import { findActivity } from '../../crm/activities/activity-repo.js'

interface Call extends Record<string, unknown> {
  id: string
  lead_id: string
  contact_id: string | null
  date_created: string
  date_updated: string
}
interface Lead {
  id: string
  contacts: { id: string; name: string }[]
}

let ctx: TestContext
/** Ann (+1 415 555 0101) and Bob (`1234`, kept as +11234 the way Close keeps a contact's odd number). */
let lead: Lead
let otherLead: Lead
let theirLead: Lead
let outcomes: { interested: string; meetingsOnly: string; theirs: string }
const admin = () => ctx.org.admin.key
const rep = () => ctx.org.member.key

async function post<T = { id: string }>(path: string, body: unknown, key = admin()): Promise<T> {
  const res = await call(ctx.app, key, 'POST', path, { body })
  expect(res.statusCode, res.body).toBeLessThan(300)
  return res.json<T>()
}

beforeAll(async () => {
  ctx = await createTestContext()
  lead = await post<Lead>('/lead/', {
    name: 'Phone Co',
    contacts: [
      { name: 'Ann', phones: [{ phone: '+1 415 555 0101' }] },
      { name: 'Bob', phones: [{ phone: '1234' }] },
    ],
  })
  otherLead = await post<Lead>('/lead/', { name: 'Other Co', contacts: [{ name: 'Cy' }] })
  theirLead = await post<Lead>('/lead/', { name: 'Their Co', contacts: [{ name: 'Dee' }] }, ctx.other.admin.key)
  await post('/phone_number/', { number: '+1 415 555 0199', label: 'Sales line' })
  await post('/phone_number/', { number: '+1 415 555 0198' }, ctx.other.admin.key)
  outcomes = {
    interested: (await post('/outcome/', { name: 'Interested' })).id,
    meetingsOnly: (await post('/outcome/', { name: 'Met', applies_to: ['meetings'] })).id,
    theirs: (await post('/outcome/', { name: 'Interested' }, ctx.other.admin.key)).id,
  }
})
afterAll(async () => {
  await ctx.close()
})

const contactNamed = (name: string) => lead.contacts.find((c) => c.name === name)?.id
const ann = () => contactNamed('Ann')
const bob = () => contactNamed('Bob')

/** A body with the ids of the objects made above in place of their names (`it.each` runs before they exist). */
function withIds(body: Record<string, unknown>): Record<string, unknown> {
  const ids: Record<string, () => string | undefined> = {
    THEIR_LEAD: () => theirLead.id,
    OTHER_LEADS_CONTACT: () => otherLead.contacts[0]?.id,
    THEIR_CONTACT: () => theirLead.contacts[0]?.id,
    THEIR_USER: () => ctx.other.member.id,
    THEIR_OUTCOME: () => outcomes.theirs,
    MEETINGS_ONLY_OUTCOME: () => outcomes.meetingsOnly,
  }
  return Object.fromEntries(Object.entries(body).map(([k, v]) => [k, typeof v === 'string' ? (ids[v]?.() ?? v) : v]))
}

async function logCall(body: Record<string, unknown>, key = rep()): Promise<Call> {
  ctx.clock.advance(60_000)
  const res = await call(ctx.app, key, 'POST', '/activity/call/', { body: { lead_id: lead.id, ...body } })
  expect(res.statusCode, res.body).toBe(200)
  return res.json<Call>()
}

async function callsOf(leadId: string, key = admin()): Promise<Call[]> {
  const res = await call(ctx.app, key, 'GET', '/activity/call/', { query: { lead_id: leadId } })
  expect(res.statusCode, res.body).toBe(200)
  return res.json<{ data: Call[] }>().data
}

describe('POST /activity/call/', () => {
  it('logs a call made elsewhere as log_call.json does, naming the contact its number belongs to', async () => {
    const res = await call(ctx.app, rep(), 'POST', '/activity/call/', {
      body: {
        lead_id: lead.id,
        created_by: ctx.org.admin.id,
        user_id: ctx.org.admin.id,
        direction: 'outbound',
        disposition: 'answered',
        duration: 345,
        note: 'call originated from mobile',
        phone: '(415) 555-0101',
        recording_url: 'https://recordings.example.com/345.mp3',
        status: 'completed',
      },
    })
    expect(res.statusCode, res.body).toBe(200)
    const logged = res.json<Call>()
    expect(logged).toMatchObject({
      _type: 'Call',
      id: expect.stringMatching(/^acti_/),
      organization_id: ctx.org.id,
      lead_id: lead.id,
      contact_id: ann(),
      contact_name: 'Ann',
      user_id: ctx.org.admin.id,
      user_name: 'Ada Admin',
      created_by: ctx.org.admin.id,
      created_by_name: 'Ada Admin',
      updated_by: ctx.org.member.id,
      updated_by_name: 'Rey Rep',
      direction: 'outbound',
      status: 'completed',
      disposition: 'answered',
      duration: 345,
      note: 'call originated from mobile',
      phone: '+14155550101',
      remote_phone: '+14155550101',
      remote_phone_formatted: '+1 415 555 0101',
      remote_country_iso: 'US',
      local_phone: null,
      local_phone_formatted: null,
      recording_url: 'https://recordings.example.com/345.mp3',
      has_recording: true,
      voicemail_url: null,
      voicemail_duration: 0,
      source: 'External',
      call_method: 'external',
      outcome_id: null,
      users: [],
    })
    expect(logged.activity_at).toBe(logged.date_created)
    expect((await call(ctx.app, rep(), 'GET', `/activity/call/${logged.id}/`)).json()).toEqual(logged)
    const [event] = await requestEvents(ctx.app, admin(), res)
    expect(event).toMatchObject({ object_type: 'activity.call', action: 'created', lead_id: lead.id })
    expect(event?.data).toEqual(logged)
    const all = (await call(ctx.app, rep(), 'GET', '/activity/', { query: { lead_id: lead.id } })).json()
    expect(all.data.map((a: Call) => a.id)).toContain(logged.id)
  })

  it('needs only the lead: an outbound completed call by the caller, with nothing else known', async () => {
    const logged = await logCall({})
    expect(logged).toMatchObject({
      contact_id: null,
      contact_name: null,
      user_id: ctx.org.member.id,
      created_by: ctx.org.member.id,
      direction: 'outbound',
      status: 'completed',
      disposition: null,
      duration: 0,
      note: null,
      phone: null,
      remote_phone: null,
      recording_url: null,
      has_recording: false,
      outcome_id: null,
    })
  })

  it('takes every field: an inbound call on one of the organization’s numbers, its outcome, voicemail and time', async () => {
    const logged = await logCall({
      contact_id: bob(),
      phone: '1234',
      local_phone: '(415) 555-0199',
      direction: 'inbound',
      status: 'no-answer',
      disposition: 'vm-left',
      outcome_id: outcomes.interested,
      note: '   ',
      voicemail_url: 'https://voicemail.example.com/1',
      voicemail_duration: 21,
      activity_at: '2026-02-27T10:30:00+01:00',
      duration: null,
    })
    expect(logged).toMatchObject({
      contact_id: bob(),
      contact_name: 'Bob',
      phone: '+11234',
      remote_phone: '+11234',
      local_phone: '+14155550199',
      local_phone_formatted: '+1 415 555 0199',
      direction: 'inbound',
      status: 'no-answer',
      disposition: 'vm-left',
      outcome_id: outcomes.interested,
      note: null,
      voicemail_url: 'https://voicemail.example.com/1',
      voicemail_duration: 21,
      activity_at: '2026-02-27T09:30:00.000000+00:00',
      duration: 0,
    })
  })

  it('keeps contact_id as sent, even when the number is another contact’s', async () => {
    expect(await logCall({ contact_id: bob(), phone: '+1 415 555 0101' })).toMatchObject({ contact_id: bob() })
    expect(await logCall({ contact_id: null, phone: '+1 415 555 0101' })).toMatchObject({ contact_id: null })
    // A valid number none of the lead's contacts has names none.
    expect(await logCall({ phone: '+44 20 7946 0958' })).toMatchObject({ contact_id: null, phone: '+442079460958' })
  })

  it('takes the number of a contact logged without one from the contact, unless the number is sent as null', async () => {
    expect(await logCall({ contact_id: ann() })).toMatchObject({
      contact_id: ann(),
      phone: '+14155550101',
      remote_phone: '+14155550101',
      remote_phone_formatted: '+1 415 555 0101',
    })
    expect(await logCall({ contact_id: ann(), phone: null })).toMatchObject({ contact_id: ann(), phone: null })
  })

  it('ignores fields it does not take, read-only ones and Close’s it has no use for', async () => {
    const logged = await logCall({
      id: 'acti_mine',
      organization_id: ctx.other.id,
      date_created: '2020-01-01T00:00:00Z',
      source: 'Close.io',
      call_method: 'regular',
      note_html: '<p>hi</p>',
      custom_fields: { a: 1 },
      colour: 'red',
    })
    expect(logged.id).not.toBe('acti_mine')
    expect(logged).toMatchObject({ organization_id: ctx.org.id, source: 'External', call_method: 'external' })
    expect(logged).not.toHaveProperty('colour')
    expect(logged).not.toHaveProperty('note_html')
    expect(logged.date_created.startsWith('2026-')).toBe(true)
  })

  it.each([
    [{ recording_url: 'http://recordings.example.com/1.mp3' }, 'recording_url'],
    [{ recording_url: 'some-recording-url.com' }, 'recording_url'],
    [{ recording_url: 'ftp://recordings.example.com/1.mp3' }, 'recording_url'],
    [{ voicemail_url: 'http://voicemail.example.com/1' }, 'voicemail_url'],
    [{ duration: -1 }, 'duration'],
    [{ duration: 1.5 }, 'duration'],
    [{ duration: '60' }, 'duration'],
    [{ voicemail_duration: -5 }, 'voicemail_duration'],
    [{ voicemail_duration: 2.5 }, 'voicemail_duration'],
    [{ direction: 'sideways' }, 'direction'],
    [{ status: 'done' }, 'status'],
    [{ disposition: 'maybe' }, 'disposition'],
    [{ phone: 'call me' }, 'phone'],
    [{ phone: '12' }, 'phone'],
    [{ local_phone: '+1 415 555 0123' }, 'local_phone'],
    [{ local_phone: '+1 415 555 0198' }, 'local_phone'],
    [{ local_phone: 'desk' }, 'local_phone'],
    [{ activity_at: 'yesterday' }, 'activity_at'],
    [{ note: 42 }, 'note'],
    [{ lead_id: undefined }, 'lead_id'],
    [{ lead_id: 'lead_nope' }, 'lead_id'],
    [{ lead_id: 'THEIR_LEAD' }, 'lead_id'],
    [{ contact_id: 'OTHER_LEADS_CONTACT' }, 'contact_id'],
    [{ contact_id: 'THEIR_CONTACT' }, 'contact_id'],
    [{ user_id: 'THEIR_USER' }, 'user_id'],
    [{ created_by: 'user_nope' }, 'created_by'],
    [{ outcome_id: 'THEIR_OUTCOME' }, 'outcome_id'],
    [{ outcome_id: 'MEETINGS_ONLY_OUTCOME' }, 'outcome_id'],
  ])('refuses %j with a field error on %s, storing nothing', async (raw, field) => {
    const body = withIds({ lead_id: lead.id, ...raw })
    const before = (await callsOf(lead.id)).length
    const res = await call(ctx.app, rep(), 'POST', '/activity/call/', { body })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual({ errors: [], 'field-errors': { [field]: expect.any(String) } })
    expect(await callsOf(lead.id)).toHaveLength(before)
    expect(await callsOf(theirLead.id, ctx.other.admin.key)).toEqual([])
  })

  it('says everything wrong at once', async () => {
    const res = await call(ctx.app, rep(), 'POST', '/activity/call/', {
      body: { lead_id: lead.id, recording_url: 'http://x.example.com', phone: 'nope', outcome_id: 'outcome_nope' },
    })
    expect(res.statusCode).toBe(400)
    expect(Object.keys(res.json()['field-errors']).sort()).toEqual(['outcome_id', 'phone', 'recording_url'])
  })
})

describe('GET /activity/call/', () => {
  it('lists calls only, newest first, by lead, user, contact and creation time', async () => {
    const context = await createTestContext()
    try {
      const key = context.org.member.key
      const as = async (method: 'GET' | 'POST', path: string, body?: unknown, query?: Record<string, string>) => {
        const res = await call(context.app, key, method, path, {
          ...(body === undefined ? {} : { body }),
          ...(query === undefined ? {} : { query }),
        })
        expect(res.statusCode, res.body).toBe(200)
        return res.json()
      }
      const first = await as('POST', '/lead/', { name: 'First', contacts: [{ name: 'Fay' }] })
      const second = await as('POST', '/lead/', { name: 'Second' })
      await as('POST', '/activity/note/', { lead_id: first.id, note: 'Not a call' })
      const logged: Call[] = []
      for (const body of [
        { lead_id: first.id, contact_id: first.contacts[0].id },
        { lead_id: first.id, user_id: context.org.admin.id },
        { lead_id: second.id },
      ]) {
        context.clock.advance(60_000)
        logged.push(await as('POST', '/activity/call/', body))
      }
      const [fay, admins, seconds] = logged.map((c) => c.id)
      const ids = async (query: Record<string, string>) =>
        (await as('GET', '/activity/call/', undefined, query)).data.map((c: Call) => c.id)
      expect(await ids({})).toEqual([seconds, admins, fay])
      expect(await ids({ lead_id: first.id })).toEqual([admins, fay])
      expect(await ids({ user_id: context.org.admin.id })).toEqual([admins])
      expect(await ids({ contact_id: first.contacts[0].id })).toEqual([fay])
      const middle = logged[1]?.date_created ?? ''
      expect(await ids({ date_created__gt: middle })).toEqual([seconds])
      expect(await ids({ date_created__lt: middle })).toEqual([fay])
      expect(await ids({ _limit: '1', _skip: '1' })).toEqual([admins])
      const typed = await as('GET', '/activity/', undefined, { _type: 'Call', lead_id: first.id })
      expect(typed.data.map((c: Call) => c.id)).toEqual([admins, fay])
      // Another organization sees none of them, and not one by id.
      const theirs = await call(context.app, context.other.admin.key, 'GET', '/activity/call/')
      expect(theirs.json().data).toEqual([])
      expect((await call(context.app, context.other.admin.key, 'GET', `/activity/call/${fay}/`)).statusCode).toBe(404)
    } finally {
      await context.close()
    }
  })
})

describe('PUT /activity/call/{id}/', () => {
  it('changes what is sent, with an updated event telling what changed', async () => {
    const logged = await logCall({ phone: '+1 415 555 0101', note: 'First try', duration: 30 })
    ctx.clock.advance(60_000)
    const res = await call(ctx.app, rep(), 'PUT', `/activity/call/${logged.id}/`, {
      body: {
        note: 'Reached Bob instead',
        outcome_id: outcomes.interested,
        disposition: 'answered',
        duration: 95,
        recording_url: 'https://recordings.example.com/95.mp3',
        activity_at: '2026-02-28',
        contact_id: bob(),
      },
    })
    expect(res.statusCode, res.body).toBe(200)
    const changed = res.json<Call>()
    expect(changed).toMatchObject({
      id: logged.id,
      note: 'Reached Bob instead',
      outcome_id: outcomes.interested,
      disposition: 'answered',
      duration: 95,
      recording_url: 'https://recordings.example.com/95.mp3',
      has_recording: true,
      activity_at: '2026-02-28T00:00:00.000000+00:00',
      contact_id: bob(),
      contact_name: 'Bob',
      phone: '+14155550101',
      date_created: logged.date_created,
    })
    expect(changed.date_updated > logged.date_updated).toBe(true)
    expect((await call(ctx.app, rep(), 'GET', `/activity/call/${logged.id}/`)).json()).toEqual(changed)
    const [event] = await requestEvents(ctx.app, admin(), res)
    expect(event).toMatchObject({ object_type: 'activity.call', action: 'updated', object_id: logged.id })
    expect(event?.data).toEqual(changed)
    expect(event?.changed_fields).toEqual(
      expect.arrayContaining([
        'activity_at',
        'contact_id',
        'contact_name',
        'disposition',
        'duration',
        'has_recording',
        'note',
        'outcome_id',
        'recording_url',
      ]),
    )
    expect(event?.changed_fields).not.toContain('phone')
    expect(event?.previous_data).toMatchObject({ note: 'First try', duration: 30, contact_id: ann() })

    // Null clears; a duration of null is 0.
    const cleared = await call(ctx.app, rep(), 'PUT', `/activity/call/${logged.id}/`, {
      body: { outcome_id: null, recording_url: null, contact_id: null, note: null, duration: null },
    })
    expect(cleared.json()).toMatchObject({
      outcome_id: null,
      recording_url: null,
      has_recording: false,
      contact_id: null,
      note: null,
      duration: 0,
    })
  })

  it('writes nothing, not even its date, when nothing changes', async () => {
    const logged = await logCall({ note: 'Same', duration: 12, contact_id: ann() })
    ctx.clock.advance(60_000)
    for (const body of [{}, { note: 'Same', duration: 12, contact_id: ann() }]) {
      const res = await call(ctx.app, rep(), 'PUT', `/activity/call/${logged.id}/`, { body })
      expect(res.statusCode, res.body).toBe(200)
      expect(res.json()).toEqual(logged)
      expect(await requestEvents(ctx.app, admin(), res)).toEqual([])
    }
  })

  it.each([
    [{ recording_url: 'http://recordings.example.com/1.mp3' }, 'recording_url'],
    [{ duration: -3 }, 'duration'],
    [{ duration: 0.5 }, 'duration'],
    [{ activity_at: '28/02/2026' }, 'activity_at'],
    [{ disposition: 'shrug' }, 'disposition'],
    [{ contact_id: 'OTHER_LEADS_CONTACT' }, 'contact_id'],
    [{ contact_id: 'THEIR_CONTACT' }, 'contact_id'],
    [{ outcome_id: 'THEIR_OUTCOME' }, 'outcome_id'],
    [{ outcome_id: 'MEETINGS_ONLY_OUTCOME' }, 'outcome_id'],
  ])('refuses %j with a field error on %s, changing nothing', async (raw, field) => {
    const body = withIds({ note: 'Changed?', ...raw })
    const logged = await logCall({ note: 'Kept' })
    const res = await call(ctx.app, rep(), 'PUT', `/activity/call/${logged.id}/`, { body })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual({ errors: [], 'field-errors': { [field]: expect.any(String) } })
    expect(await requestEvents(ctx.app, admin(), res)).toEqual([])
    expect((await call(ctx.app, rep(), 'GET', `/activity/call/${logged.id}/`)).json()).toEqual(logged)
  })

  it('answers 404 for another organization’s call and for an activity that is not a call', async () => {
    const logged = await logCall({})
    const theirs = await call(ctx.app, ctx.other.admin.key, 'PUT', `/activity/call/${logged.id}/`, {
      body: { note: 'Hijacked' },
    })
    expect(theirs.statusCode).toBe(404)
    const note = await post('/activity/note/', { lead_id: lead.id, note: 'A note' })
    const wrongType = await call(ctx.app, admin(), 'PUT', `/activity/call/${note.id}/`, { body: { note: 'x' } })
    expect(wrongType.statusCode).toBe(404)
    expect((await call(ctx.app, rep(), 'GET', `/activity/call/${logged.id}/`)).json().note).toBeNull()
  })
})

describe('DELETE /activity/call/{id}/', () => {
  it('deletes a call (200 {}) with a deleted event holding its last state', async () => {
    const logged = await logCall({ note: 'Goodbye' })
    expect((await call(ctx.app, ctx.other.admin.key, 'DELETE', `/activity/call/${logged.id}/`)).statusCode).toBe(404)
    const res = await call(ctx.app, rep(), 'DELETE', `/activity/call/${logged.id}/`)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({})
    const [event] = await requestEvents(ctx.app, admin(), res)
    expect(event).toMatchObject({ object_type: 'activity.call', action: 'deleted', object_id: logged.id })
    expect(event?.data).toBeNull()
    expect(event?.previous_data).toEqual(logged)
    expect((await call(ctx.app, rep(), 'GET', `/activity/call/${logged.id}/`)).statusCode).toBe(404)
    expect((await call(ctx.app, rep(), 'DELETE', `/activity/call/${logged.id}/`)).statusCode).toBe(404)
  })
})

describe('a deleted outcome', () => {
  it('stays on the calls that have it, and can be set on no other', async () => {
    const outcome = await post('/outcome/', { name: 'Retired' })
    const logged = await logCall({ outcome_id: outcome.id })
    const other = await logCall({})
    expect((await call(ctx.app, admin(), 'DELETE', `/outcome/${outcome.id}/`)).statusCode).toBe(200)
    expect((await call(ctx.app, rep(), 'GET', `/activity/call/${logged.id}/`)).json().outcome_id).toBe(outcome.id)
    // Its own call can still be changed, keeping it.
    const renote = await call(ctx.app, rep(), 'PUT', `/activity/call/${logged.id}/`, { body: { note: 'Later' } })
    expect(renote.json()).toMatchObject({ note: 'Later', outcome_id: outcome.id })
    const res = await call(ctx.app, rep(), 'PUT', `/activity/call/${other.id}/`, { body: { outcome_id: outcome.id } })
    expect(res.statusCode).toBe(400)
    expect(res.json()['field-errors']).toEqual({ outcome_id: 'Not an outcome of your organization.' })
    const fresh = await call(ctx.app, rep(), 'POST', '/activity/call/', {
      body: { lead_id: lead.id, outcome_id: outcome.id },
    })
    expect(fresh.statusCode).toBe(400)
  })
})

describe('recordCall and changeCall', () => {
  it('store a call the organization’s telephony reported, and change it, as the inbound endpoint will', async () => {
    const db = ctx.database.db
    const now = '2026-03-02T08:00:00.000000+00:00'
    const id = await db.transaction().execute((tx) =>
      recordCall(
        tx,
        {
          organizationId: ctx.org.id,
          leadId: lead.id,
          contactId: ann() ?? null,
          userId: ctx.org.member.id,
          now,
          call: {
            direction: 'inbound',
            status: 'in-progress',
            remote_phone: '+14155550101',
            local_phone: '+14155550199',
            source: 'Close.io',
            call_method: 'regular',
            provider_call_id: 'CA123',
          },
        },
        null,
      ),
    )
    const row = await findActivity(db, ctx.org.id, id, 'Call')
    expect(row).toMatchObject({ created_by: ctx.org.member.id, updated_by: ctx.org.member.id, date_created: now })
    const view = (await call(ctx.app, rep(), 'GET', `/activity/call/${id}/`)).json()
    expect(view).toMatchObject({
      status: 'in-progress',
      phone: '+14155550101',
      remote_phone: '+14155550101',
      call_method: 'regular',
      source: 'Close.io',
      provider_call_id: 'CA123',
      activity_at: now,
      duration: 0,
      disposition: null,
    })
    if (row === undefined) throw new Error('no row')
    const writer = { userId: ctx.org.member.id, now: '2026-03-02T08:05:00.000000+00:00', events: null }
    const same = await changeCall(db, row, { call: { status: 'in-progress' } }, writer)
    expect(same).toEqual(row)
    const ended = await changeCall(db, row, { call: { status: 'completed', duration: 300 } }, writer)
    expect(ended.date_updated).toBe(writer.now)
    expect((await call(ctx.app, rep(), 'GET', `/activity/call/${id}/`)).json()).toMatchObject({
      status: 'completed',
      duration: 300,
      provider_call_id: 'CA123',
    })
  })
})
