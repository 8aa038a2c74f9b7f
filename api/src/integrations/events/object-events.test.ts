import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  call,
  createTestContext,
  type TestContext,
  type TestEvent,
  type TestOrg,
} from '../../tooling/test-support/test-app.js'

// Every write of leads, contacts, activities, opportunities (and their due tasks), statuses, pipelines and custom
// fields writes its events in the transaction of the change: `data` is what the API answers, `previous_data` and
// `changed_fields` tell an update, a deletion has `data` null and the last state in `previous_data` (as Close's), a
// refused write leaves none.

type EventView = TestEvent

type Json = Record<string, unknown> & { id: string }

let ctx: TestContext
let org: TestOrg

beforeAll(async () => {
  ctx = await createTestContext()
  org = ctx.org
})

afterAll(async () => {
  await ctx.close()
})

/** A write through the API, and the events it wrote in the order it wrote them. */
async function write(method: 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown, key = org.admin.key) {
  const res = await call(ctx.app, key, method, path, body === undefined ? {} : { body })
  const requestId = String(res.headers['x-request-id'])
  const page = await call(ctx.app, org.admin.key, 'GET', '/event/', { query: { request_id: requestId, _limit: '50' } })
  expect(page.statusCode, page.body).toBe(200)
  const events = page.json<{ data: EventView[] }>().data.reverse()
  const json = res.body === '' ? { id: '' } : res.json<Json>()
  return { res, json, events, kinds: events.map((e) => `${e.object_type} ${e.action}`) }
}

/** A `deleted` event as Close shows one: no `data`, the object's last state in `previous_data`. */
function expectDeleted(event: EventView | undefined, last: Record<string, unknown>) {
  expect(event?.action).toBe('deleted')
  expect(event?.data).toBeNull()
  expect(event?.previous_data).toEqual(last)
  expect(event?.changed_fields).toEqual([])
}

async function get(path: string): Promise<Json> {
  const res = await call(ctx.app, org.admin.key, 'GET', path)
  expect(res.statusCode, res.body).toBe(200)
  return res.json<Json>()
}

async function leadStatuses(): Promise<Json[]> {
  return (await call(ctx.app, org.admin.key, 'GET', '/status/lead/')).json<{ data: Json[] }>().data
}

async function opportunityStatuses(): Promise<(Json & { type: string })[]> {
  return (await call(ctx.app, org.admin.key, 'GET', '/status/opportunity/')).json<{
    data: (Json & { type: string })[]
  }>().data
}

describe('lead events', () => {
  it('a new lead announces itself, then its contacts and its Created activity, each as the API shows it', async () => {
    const { res, json, events, kinds } = await write('POST', '/lead/', {
      name: 'Acme',
      contacts: [{ name: 'Wile E.', emails: [{ email: 'wile@acme.test' }] }],
    })
    expect(res.statusCode, res.body).toBe(200)
    expect(kinds).toEqual(['lead created', 'contact created', 'activity.created created'])
    const [lead, contact, activity] = events
    expect(lead).toMatchObject({ object_id: json.id, lead_id: json.id, user_id: org.admin.id })
    expect(lead?.data).toEqual(json)
    expect(lead?.data).toEqual(await get(`/lead/${json.id}/`))
    const contacts = json.contacts as Json[]
    expect(contact?.data).toEqual(contacts[0])
    expect(contact?.lead_id).toBe(json.id)
    expect(activity?.data).toMatchObject({ _type: 'Created', lead_id: json.id, source: 'api' })
  })

  it('an update tells only what changed, with a status change’s activity after it; a no-op writes none', async () => {
    const lead = (await write('POST', '/lead/', { name: 'Before' })).json
    const [, other] = await leadStatuses()
    const { json, events, kinds } = await write('PUT', `/lead/${lead.id}/`, { name: 'After', status_id: other?.id })
    expect(kinds).toEqual(['lead updated', 'activity.lead_status_change created'])
    const [updated, change] = events
    expect(updated?.data).toEqual(json)
    expect(updated?.changed_fields).toEqual(
      expect.arrayContaining(['name', 'display_name', 'status_id', 'status_label']),
    )
    expect(updated?.changed_fields).not.toContain('description')
    expect(updated?.previous_data).toMatchObject({ name: 'Before', status_id: lead.status_id })
    expect(change?.data).toMatchObject({ old_status_id: lead.status_id, new_status_id: other?.id })

    ctx.clock.advance(1000)
    expect((await write('PUT', `/lead/${lead.id}/`, { name: 'After' })).events).toEqual([])
  })

  it('a refused update writes no event', async () => {
    const lead = (await write('POST', '/lead/', { name: 'Kept' })).json
    const { res, events } = await write('PUT', `/lead/${lead.id}/`, { name: 'Gone', status_id: 'stat_nope' })
    expect(res.statusCode).toBe(400)
    expect(events).toEqual([])
  })

  it('a delete holds the lead’s last state', async () => {
    const lead = (await write('POST', '/lead/', { name: 'Doomed', description: 'last words' })).json
    const last = await get(`/lead/${lead.id}/`)
    const { kinds, events } = await write('DELETE', `/lead/${lead.id}/`)
    expect(kinds).toEqual(['lead deleted'])
    expectDeleted(events[0], last)
    expect(events[0]).toMatchObject({ object_id: lead.id, lead_id: lead.id })
    // How it was deleted: by this request, and no merge.
    expect(events[0]?.meta).toEqual({ request_method: 'DELETE', request_path: `/api/v1/lead/${lead.id}/` })
  })

  it('a merge says where the source went, how the destination changed, and that the source is deleted', async () => {
    const source = (await write('POST', '/lead/', { name: 'Source', contacts: [{ name: 'Moving' }] })).json
    const destination = (await write('POST', '/lead/', { name: 'Destination' })).json
    const last = await get(`/lead/${source.id}/`)
    const { res, kinds, events } = await write('POST', '/lead/merge/', {
      source: source.id,
      destination: destination.id,
    })
    expect(res.statusCode, res.body).toBe(200)
    expect(kinds).toEqual(['lead merged', 'lead updated', 'lead deleted'])
    const [merged, updated, deleted] = events
    expect(merged).toMatchObject({ object_id: source.id, lead_id: destination.id })
    expect(merged?.data).toMatchObject({ id: source.id, name: 'Source' })
    expect(updated).toMatchObject({ object_id: destination.id, lead_id: destination.id })
    expect(updated?.changed_fields).toContain('contacts')
    expect(updated?.data).toEqual(await get(`/lead/${destination.id}/`))
    expect(deleted).toMatchObject({ object_id: source.id, lead_id: source.id })
    expectDeleted(deleted, last)
    // Every event of the merge says it was one, and which lead went into which (Close's `meta`).
    for (const event of events)
      expect(event.meta).toEqual({
        request_method: 'POST',
        request_path: '/api/v1/lead/merge/',
        merge_source_lead_id: source.id,
        merge_destination_lead_id: destination.id,
      })
    expect((await call(ctx.app, org.admin.key, 'GET', `/event/${deleted?.id ?? ''}/`)).json()).toEqual(deleted)
  })
})

describe('contact and activity events', () => {
  it('contacts: created, updated with the old values, deleted with the last state', async () => {
    const lead = (await write('POST', '/lead/', { name: 'Contacts Co' })).json
    const created = await write('POST', '/contact/', { lead_id: lead.id, name: 'Road Runner' })
    expect(created.kinds).toEqual(['contact created'])
    expect(created.events[0]?.data).toEqual(created.json)
    const updated = await write('PUT', `/contact/${created.json.id}/`, { title: 'Sprinter' })
    expect(updated.kinds).toEqual(['contact updated'])
    expect(updated.events[0]).toMatchObject({ lead_id: lead.id, previous_data: { title: '' } })
    expect(updated.events[0]?.changed_fields).toEqual(expect.arrayContaining(['title', 'date_updated']))
    const deleted = await write('DELETE', `/contact/${created.json.id}/`)
    expect(deleted.kinds).toEqual(['contact deleted'])
    expectDeleted(deleted.events[0], updated.json)
  })

  it('notes: created, updated, deleted, under their lead', async () => {
    const lead = (await write('POST', '/lead/', { name: 'Notes Co' })).json
    const note = await write('POST', '/activity/note/', { lead_id: lead.id, note: 'First' }, org.member.key)
    expect(note.kinds).toEqual(['activity.note created'])
    expect(note.events[0]).toMatchObject({ lead_id: lead.id, user_id: org.member.id })
    expect(note.events[0]?.data).toEqual(note.json)
    const edited = await write('PUT', `/activity/note/${note.json.id}/`, { note: 'Second' })
    expect(edited.kinds).toEqual(['activity.note updated'])
    expect(edited.events[0]?.previous_data).toMatchObject({ note: 'First' })
    expect(edited.events[0]?.data).toEqual(edited.json)
    const deleted = await write('DELETE', `/activity/note/${note.json.id}/`)
    expect(deleted.kinds).toEqual(['activity.note deleted'])
    expectDeleted(deleted.events[0], edited.json)
    expect(deleted.events[0]?.previous_data).toMatchObject({ id: note.json.id, note: 'Second' })
    // A refused note writes nothing.
    expect((await write('POST', '/activity/note/', { lead_id: lead.id, note: '  ' })).events).toEqual([])
  })

  it('a completed task announces its TaskCompleted, whose deletion is announced too', async () => {
    const lead = (await write('POST', '/lead/', { name: 'Tasks Co' })).json
    const task = (await write('POST', '/task/', { lead_id: lead.id, text: 'Ring' })).json
    const done = await write('PUT', `/task/${task.id}/`, { is_complete: true })
    expect(done.kinds).toEqual(['task.lead completed', 'activity.task_completed created'])
    const completion = done.events[1]
    expect(completion?.data).toMatchObject({ task_id: task.id, task_text: 'Ring' })
    const removed = await write('DELETE', `/activity/task_completed/${completion?.object_id ?? ''}/`)
    expect(removed.kinds).toEqual(['activity.task_completed deleted'])
    expect(removed.events[0]?.data).toBeNull()
    expect(removed.events[0]?.previous_data).toMatchObject({ id: completion?.object_id, task_id: task.id })
  })
})

describe('opportunity events', () => {
  it('an opportunity, its status changes and its due task are told together', async () => {
    const lead = (await write('POST', '/lead/', { name: 'Deals Co' })).json
    const statuses = await opportunityStatuses()
    const active = statuses.find((s) => s.type === 'active')
    const won = statuses.find((s) => s.type === 'won')
    const created = await write('POST', '/opportunity/', {
      lead_id: lead.id,
      status_id: active?.id,
      value: 5000,
      date_won: '2026-12-01',
    })
    expect(created.res.statusCode, created.res.body).toBe(200)
    expect(created.kinds).toEqual([
      'opportunity created',
      'activity.opportunity_status_change created',
      'task.opportunity_due created',
    ])
    expect(created.events[0]?.data).toEqual(created.json)
    expect(created.events.every((e) => e.lead_id === lead.id)).toBe(true)
    const dueId = created.events[2]?.object_id ?? ''
    expect(created.events[2]?.data).toMatchObject({ object_id: created.json.id, is_complete: false })

    const moved = await write('PUT', `/opportunity/${created.json.id}/`, { status_id: won?.id })
    expect(moved.kinds).toEqual([
      'opportunity updated',
      'activity.opportunity_status_change created',
      'task.opportunity_due completed',
    ])
    expect(moved.events[0]?.changed_fields).toEqual(expect.arrayContaining(['status_id', 'status_type']))
    expect(moved.events[0]?.previous_data).toMatchObject({ status_id: active?.id, status_type: 'active' })
    expect(moved.events[0]?.data).toEqual(moved.json)
    expect(moved.events[2]?.object_id).toBe(dueId)

    const deleted = await write('DELETE', `/opportunity/${created.json.id}/`)
    expect(deleted.kinds).toEqual(['opportunity deleted', 'task.opportunity_due deleted'])
    expectDeleted(deleted.events[0], moved.json)
    expect(deleted.events[1]?.data).toBeNull()
    expect(deleted.events[1]?.previous_data).toMatchObject({ id: dueId, object_id: created.json.id })
  })
})

describe('organization-wide events', () => {
  it('lead statuses: created, renamed, deleted, under no lead', async () => {
    const created = await write('POST', '/status/lead/', { label: 'Nurturing' })
    expect(created.kinds).toEqual(['status.lead created'])
    expect(created.events[0]).toMatchObject({ lead_id: null, data: created.json })
    const renamed = await write('PUT', `/status/lead/${created.json.id}/`, { label: 'Nurture' })
    expect(renamed.kinds).toEqual(['status.lead updated'])
    expect(renamed.events[0]).toMatchObject({ previous_data: { label: 'Nurturing' }, changed_fields: ['label'] })
    const deleted = await write('DELETE', `/status/lead/${created.json.id}/`)
    expect(deleted.kinds).toEqual(['status.lead deleted'])
    expectDeleted(deleted.events[0], { ...created.json, label: 'Nurture' })
    // Refused for a non-admin: nothing written.
    expect((await write('POST', '/status/lead/', { label: 'Sneaky' }, org.member.key)).events).toEqual([])
  })

  it('an opportunity status given a new type tells what happened to its opportunities’ due tasks', async () => {
    const lead = (await write('POST', '/lead/', { name: 'Retype Co' })).json
    const status = (await write('POST', '/status/opportunity/', { label: 'Verbal yes', type: 'active' })).json
    const opportunity = (
      await write('POST', '/opportunity/', { lead_id: lead.id, status_id: status.id, date_won: '2026-12-10' })
    ).json
    const retyped = await write('PUT', `/status/opportunity/${status.id}/`, { type: 'won' })
    expect(retyped.kinds).toEqual(['status.opportunity updated', 'task.opportunity_due completed'])
    expect(retyped.events[0]?.previous_data).toEqual({ type: 'active' })
    expect(retyped.events[1]?.data).toMatchObject({ object_id: opportunity.id, is_complete: true })
  })

  it('pipelines: created with their statuses, reordered, deleted', async () => {
    const created = await write('POST', '/pipeline/', {
      name: 'Partners',
      statuses: [{ label: 'Talking' }, { label: 'Signed', type: 'won' }],
    })
    expect(created.res.statusCode, created.res.body).toBe(201)
    expect(created.kinds).toEqual(['pipeline created', 'status.opportunity created', 'status.opportunity created'])
    expect(created.events[0]?.data).toEqual(created.json)
    const statuses = created.json.statuses as Json[]
    const reordered = await write('PUT', `/pipeline/${created.json.id}/`, {
      statuses: [...statuses].reverse().map((s) => ({ id: s.id })),
    })
    expect(reordered.res.statusCode, reordered.res.body).toBe(200)
    expect(reordered.kinds).toEqual(['pipeline updated'])
    expect(reordered.events[0]?.changed_fields).toContain('statuses')
    const empty = (await write('POST', '/pipeline/', { name: 'Empty' })).json
    const deleted = await write('DELETE', `/pipeline/${empty.id}/`)
    expect(deleted.kinds).toEqual(['pipeline deleted'])
    expectDeleted(deleted.events[0], empty)
  })

  it('custom fields: created, changed, deleted, named by the kind of object they hold values of', async () => {
    const created = await write('POST', '/custom_field/contact/', { name: 'Shoe size', type: 'number' })
    expect(created.res.statusCode, created.res.body).toBe(200)
    expect(created.kinds).toEqual(['custom_field.contact created'])
    const renamed = await write('PUT', `/custom_field/contact/${created.json.id}/`, { name: 'Boot size' })
    expect(renamed.kinds).toEqual(['custom_field.contact updated'])
    expect(renamed.events[0]?.previous_data).toMatchObject({ name: 'Shoe size' })
    const deleted = await write('DELETE', `/custom_field/contact/${created.json.id}/`)
    expect(deleted.kinds).toEqual(['custom_field.contact deleted'])
    expectDeleted(deleted.events[0], renamed.json)
  })

  it('every deleted object, whatever its kind, is told as Close tells it', async () => {
    const outcome = await write('POST', '/outcome/', { name: 'Gone soon' })
    expect(outcome.res.statusCode, outcome.res.body).toBe(201)
    const template = await write('POST', '/email_template/', { name: 'Gone soon', subject: 'Hi', body: 'Hello' })
    expect(template.res.statusCode, template.res.body).toBe(200)
    for (const path of [`/outcome/${outcome.json.id}/`, `/email_template/${template.json.id}/`]) {
      const deleted = await write('DELETE', path)
      expect(deleted.res.statusCode, deleted.res.body).toBe(200)
      expect(deleted.events).toHaveLength(1)
    }
    // Every deletion the tests of this file made: leads, contacts, activities, opportunities and their tasks,
    // statuses, pipelines, custom fields, outcomes, email templates.
    const page = await call(ctx.app, org.admin.key, 'GET', '/event/', { query: { action: 'deleted', _limit: '50' } })
    const all = page.json<{ data: EventView[] }>().data
    expect(new Set(all.map((e) => e.object_type))).toEqual(
      new Set([
        'lead',
        'contact',
        'activity.note',
        'activity.task_completed',
        'opportunity',
        'task.opportunity_due',
        'status.lead',
        'pipeline',
        'custom_field.contact',
        'outcome',
        'email_template',
      ]),
    )
    for (const event of all) {
      expect(event.data).toBeNull()
      expect(event.previous_data.id).toBe(event.object_id)
      // Deleted by a DELETE, or by the merge of the lead into another.
      expect(event.meta.request_method).toBe(event.meta.merge_source_lead_id === undefined ? 'DELETE' : 'POST')
    }
  })

  it('lets the log be filtered by every object type it holds', async () => {
    const types = new Set<string>()
    let cursor = ''
    do {
      const page = await call(ctx.app, org.admin.key, 'GET', '/event/', { query: { _cursor: cursor } })
      expect(page.statusCode, page.body).toBe(200)
      const body = page.json<{ data: EventView[]; cursor_next: string | null }>()
      for (const event of body.data) types.add(event.object_type)
      cursor = body.cursor_next ?? ''
    } while (cursor !== '')
    expect(types.size).toBeGreaterThan(10)
    for (const type of types) {
      const res = await call(ctx.app, org.admin.key, 'GET', '/event/', { query: { object_type: type, _limit: '1' } })
      expect(res.statusCode, `${type}: ${res.body}`).toBe(200)
      expect(res.json<{ data: EventView[] }>().data[0]?.object_type).toBe(type)
    }
  })
})
