import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../platform/config.js'
import { formatTimestamp } from '../../platform/data/time.js'
import { call, createTestContext, type TestContext, type TestEvent } from '../../tooling/test-support/test-app.js'
import { outboxSink } from '../outbox/outbox-writer.js'
import { purgeOldEvents } from './event-retention.js'
import { recordEvents, type EventInput } from './event-repo.js'

// The event log over HTTP: tasks write their events in the transaction of the change; `/event/` lists them newest
// first with filters and cursors, each organization its own.

type EventView = TestEvent

interface EventPage {
  data: EventView[]
  cursor_next: string | null
  cursor_previous: string | null
}

let ctx: TestContext
let leadId = ''

beforeAll(async () => {
  ctx = await createTestContext()
  const lead = await call(ctx.app, ctx.org.member.key, 'POST', '/lead/', { body: { name: 'Events Co' } })
  leadId = lead.json<{ id: string }>().id
})

afterAll(async () => {
  await ctx.close()
})

async function events(query: Record<string, string>, key = ctx.org.member.key): Promise<EventPage> {
  const res = await call(ctx.app, key, 'GET', '/event/', { query })
  expect(res.statusCode, res.body).toBe(200)
  return res.json<EventPage>()
}

async function createTask(text: string, lead = leadId) {
  const res = await call(ctx.app, ctx.org.member.key, 'POST', '/task/', {
    body: { lead_id: lead, text, date: '2026-05-01' },
  })
  expect(res.statusCode, res.body).toBe(200)
  return { task: res.json<Record<string, unknown> & { id: string }>(), requestId: String(res.headers['x-request-id']) }
}

describe('task events', () => {
  it('records a created event with the task as the API answered it, who made it and through which request', async () => {
    const { task, requestId } = await createTask('Send the proposal')
    const page = await events({ request_id: requestId })
    expect(page.data).toHaveLength(1)
    const [event] = page.data
    expect(event).toMatchObject({
      object_type: 'task.lead',
      object_id: task.id,
      action: 'created',
      lead_id: leadId,
      user_id: ctx.org.member.id,
      request_id: requestId,
      api_key_id: ctx.org.member.keyId,
      organization_id: ctx.org.id,
      previous_data: {},
      changed_fields: [],
      meta: { request_method: 'POST', request_path: '/api/v1/task/' },
    })
    expect(event?.id).toMatch(/^ev_/)
    expect(event?.data).toEqual(task)
    const one = await call(ctx.app, ctx.org.member.key, 'GET', `/event/${event?.id ?? ''}/`)
    expect(one.json()).toEqual(event)
  })

  it('records only the changed fields of an update, completion as completed, and the last state of a delete', async () => {
    const { task } = await createTask('Call back')
    const put = (body: Record<string, unknown>) =>
      call(ctx.app, ctx.org.member.key, 'PUT', `/task/${task.id}/`, { body, query: { _fields: 'id,text' } })
    ctx.clock.advance(1000)
    expect((await put({ text: 'Call back about pricing' })).statusCode).toBe(200)
    // Nothing changes: no event.
    expect((await put({ text: 'Call back about pricing' })).statusCode).toBe(200)
    ctx.clock.advance(1000)
    expect((await put({ is_complete: true })).statusCode).toBe(200)
    ctx.clock.advance(1000)
    expect((await call(ctx.app, ctx.org.member.key, 'DELETE', `/task/${task.id}/`)).statusCode).toBe(200)

    const page = await events({ object_id: task.id })
    expect(page.data.map((e) => e.action)).toEqual(['deleted', 'completed', 'updated', 'created'])
    const [deleted, completed, updated] = page.data
    expect(updated?.changed_fields).toEqual(expect.arrayContaining(['text', 'date_updated']))
    expect(updated?.changed_fields).not.toContain('is_complete')
    expect(updated?.previous_data).toMatchObject({ text: 'Call back' })
    expect(updated?.data).toMatchObject({ text: 'Call back about pricing' })
    expect(completed?.changed_fields).toEqual(expect.arrayContaining(['is_complete', 'date_completed']))
    expect(completed?.previous_data).toMatchObject({ is_complete: false, date_completed: null })
    // As Close: a deleted object's last state is its `previous_data`, its `data` null.
    expect(deleted?.data).toBeNull()
    expect(deleted?.previous_data).toMatchObject({ id: task.id, text: 'Call back about pricing', is_complete: true })
    expect(deleted?.changed_fields).toEqual([])
    expect(deleted?.meta).toEqual({ request_method: 'DELETE', request_path: `/api/v1/task/${task.id}/` })
    // The request's query is no part of its path.
    expect(updated?.meta).toEqual({ request_method: 'PUT', request_path: `/api/v1/task/${task.id}/` })
  })

  it('records one event per task of a bulk update, all under its request', async () => {
    const a = await createTask('Bulk A')
    const b = await createTask('Bulk B')
    const res = await call(ctx.app, ctx.org.member.key, 'PUT', '/task/', {
      query: { id__in: `${a.task.id},${b.task.id}` },
      body: { is_complete: true },
    })
    expect(res.statusCode, res.body).toBe(200)
    const page = await events({ request_id: String(res.headers['x-request-id']) })
    const tasks = page.data.filter((e) => e.object_type === 'task.lead')
    expect(tasks.map((e) => [e.object_id, e.action]).sort()).toEqual(
      [
        [a.task.id, 'completed'],
        [b.task.id, 'completed'],
      ].sort(),
    )
    // Each completion's TaskCompleted activity is announced in the same request.
    const completions = page.data.filter((e) => e.object_type === 'activity.task_completed')
    expect(completions.map((e) => [e.data?.task_id, e.action]).sort()).toEqual(
      [
        [a.task.id, 'created'],
        [b.task.id, 'created'],
      ].sort(),
    )
    expect(page.data).toHaveLength(4)
  })

  it('writes nothing when the change is refused', async () => {
    const before = (await events({ lead_id: leadId })).data.length
    const res = await call(ctx.app, ctx.org.member.key, 'POST', '/task/', {
      body: { lead_id: leadId, text: 'x', assigned_to: 'user_nobody' },
    })
    expect(res.statusCode).toBe(400)
    expect((await events({ lead_id: leadId })).data.length).toBe(before)
  })
})

describe('GET /event/', () => {
  it('pages newest first with cursors both ways, the filters kept', async () => {
    const org = await ctx.createOrg('Event pages')
    const lead = (await call(ctx.app, org.member.key, 'POST', '/lead/', { body: { name: 'Pages Co' } })).json<{
      id: string
    }>()
    const ids: string[] = []
    for (let i = 0; i < 7; i++) {
      const res = await call(ctx.app, org.member.key, 'POST', '/task/', {
        body: { lead_id: lead.id, text: `T${String(i)}` },
      })
      ids.push(res.json<{ id: string }>().id)
    }
    const list = (query: Record<string, string>) => events({ object_type: 'task.lead', ...query }, org.member.key)
    const first = await list({ _limit: '3' })
    expect(first.data.map((e) => e.object_id)).toEqual(ids.slice(4).reverse())
    expect(first.cursor_previous).toBeNull()
    const second = await list({ _limit: '3', _cursor: first.cursor_next ?? '' })
    expect(second.data.map((e) => e.object_id)).toEqual(ids.slice(1, 4).reverse())
    const third = await list({ _limit: '3', _cursor: second.cursor_next ?? '' })
    expect(third.data.map((e) => e.object_id)).toEqual(ids.slice(0, 1))
    expect(third.cursor_next).toBeNull()
    const back = await list({ _limit: '3', _cursor: third.cursor_previous ?? '' })
    expect(back.data.map((e) => e.object_id)).toEqual(second.data.map((e) => e.object_id))
    const backAgain = await list({ _limit: '3', _cursor: back.cursor_previous ?? '' })
    expect(backAgain.data.map((e) => e.object_id)).toEqual(first.data.map((e) => e.object_id))
    expect(backAgain.cursor_previous).toBeNull()

    // Filters: by action, user, lead, and the date range.
    expect((await list({ action: 'deleted' })).data).toEqual([])
    expect((await list({ user_id: org.member.id })).data).toHaveLength(7)
    expect((await list({ user_id: org.admin.id })).data).toHaveLength(0)
    // The lead's own events (it and its Created activity) and the tasks under it.
    const underLead = (await events({ lead_id: lead.id }, org.member.key)).data
    expect(underLead.map((e) => e.object_type).sort()).toEqual(
      ['activity.created', 'lead', ...Array<string>(7).fill('task.lead')].sort(),
    )
    expect((await list({ date_updated__gt: '2999-01-01' })).data).toHaveLength(0)
    expect((await list({ date_updated__gte: '2000-01-01' })).data).toHaveLength(7)
  })

  it('keeps each organization’s log its own', async () => {
    const mine = await events({ _limit: '1' })
    expect(mine.data).toHaveLength(1)
    const theirs = await events({}, ctx.other.member.key)
    expect(theirs.data.map((e) => e.organization_id).every((o) => o === ctx.other.id)).toBe(true)
    const id = mine.data[0]?.id ?? ''
    expect((await call(ctx.app, ctx.other.member.key, 'GET', `/event/${id}/`)).statusCode).toBe(404)
    // A cursor from this organization is refused in another.
    const cursor = mine.cursor_next ?? ''
    expect(cursor).not.toBe('')
    const res = await call(ctx.app, ctx.other.member.key, 'GET', '/event/', { query: { _cursor: cursor } })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toMatchObject({ 'field-errors': { _cursor: 'Not a cursor of this organization.' } })
  })

  const encoded = (parts: unknown) => Buffer.from(JSON.stringify(parts)).toString('base64url')
  const mine = () => ctx.org.id

  // A script paging the log must never meet a 500 it would retry for ever: each of these is a 400 in the documented
  // shape, naming the parameter.
  it.each([
    [{ _cursor: 'not-a-cursor' }, '_cursor'],
    [{ _cursor: Buffer.from('["orga_x",1,"sideways"]').toString('base64url') }, '_cursor'],
    [{ _cursor: '%%%' }, '_cursor'],
    [{ _cursor: 'x'.repeat(5000) }, '_cursor'],
    [{ _cursor: Buffer.from([0xff, 0xfe, 0x00, 0x9f]).toString('base64url') }, '_cursor'],
    [{ _cursor: encoded([]) }, '_cursor'],
    [{ _cursor: encoded({ seq: 1 }) }, '_cursor'],
    [{ _cursor: encoded(null) }, '_cursor'],
    [{ _cursor: encoded(['orga_x', -1, 'next']) }, '_cursor'],
    [{ _cursor: encoded(['orga_x', 1.5, 'next']) }, '_cursor'],
    [{ _cursor: Buffer.from('["orga_x",1e400,"next"]').toString('base64url') }, '_cursor'],
    [{ _cursor: encoded(['orga_x', 1, 'next', 0]) }, '_cursor'],
    [{ _cursor: encoded(['orga_x', 1, 'next', null, 7]) }, '_cursor'],
    [{ _cursor: encoded(['orga_x', 1, 'next', null, 'f', 'extra']) }, '_cursor'],
    [{ _skip: '10' }, '_skip'],
    [{ action: 'exploded' }, 'action'],
    [{ date_updated__gte: 'yesterday' }, 'date_updated__gte'],
    [{ date_updated__lt: '2026-13-45' }, 'date_updated__lt'],
    [{ date_updated__gt: '2026-02-30' }, 'date_updated__gt'],
    [{ date_updated__lte: '2026-01-01T25:61:00Z' }, 'date_updated__lte'],
    [{ _limit: '51' }, '_limit'],
    [{ _limit: '100000000000000000000000' }, '_limit'],
    [{ _limit: '0' }, '_limit'],
    [{ _limit: '-5' }, '_limit'],
    [{ _limit: 'all' }, '_limit'],
    [{ object_type: 'banana' }, 'object_type'],
    [{ object_type: 'lead.nope' }, 'object_type'],
    [{ object_type: '' }, 'object_type'],
  ])('refuses %o with a field error', async (query, field) => {
    const res = await call(ctx.app, ctx.org.member.key, 'GET', '/event/', { query })
    expect(res.statusCode, res.body).toBe(400)
    const body = res.json<{ errors: unknown[]; 'field-errors': Record<string, string> }>()
    expect(body.errors).toEqual([])
    expect(Object.keys(body['field-errors'])).toContain(field)
  })

  it('reads an empty _cursor as none: the first page', async () => {
    const first = await events({ object_type: 'task.lead', _limit: '2' })
    expect(first.data).toHaveLength(2)
    expect(await events({ object_type: 'task.lead', _limit: '2', _cursor: '' })).toEqual(first)
    expect(await events({ object_type: 'task.lead', _limit: '2', _cursor: '  ' })).toEqual(first)
  })

  it('refuses a cursor with other filters than its list’s, but lets the date range change', async () => {
    const first = await events({ object_type: 'task.lead', _limit: '1' })
    const cursor = first.cursor_next ?? ''
    expect(cursor).not.toBe('')
    const others: Record<string, string>[] = [
      {},
      { object_type: 'lead' },
      { object_type: 'task.lead', lead_id: leadId },
    ]
    for (const query of others) {
      const res = await call(ctx.app, ctx.org.member.key, 'GET', '/event/', { query: { ...query, _cursor: cursor } })
      expect(res.statusCode, res.body).toBe(400)
      expect(res.json()).toEqual({
        errors: [],
        'field-errors': { _cursor: 'Not a cursor of this event list: give the filters it was made with.' },
      })
    }
    const next = await events({ object_type: 'task.lead', _limit: '1', _cursor: cursor })
    const ranged = await events({
      object_type: 'task.lead',
      _limit: '1',
      _cursor: cursor,
      date_updated__gte: '2000-01-01',
    })
    expect(ranged.data).toEqual(next.data)
    // A cursor made before cursors kept their filters pages whatever it is given.
    const seq = (
      await ctx.database.db
        .selectFrom('event')
        .select('seq')
        .where('id', '=', first.data[0]?.id ?? '')
        .executeTakeFirstOrThrow()
    ).seq
    const old = await events({ object_type: 'task.lead', _limit: '1', _cursor: encoded([mine(), seq, 'next']) })
    expect(old.data).toEqual(next.data)
  })
})

describe('the event’s shape', () => {
  // Close's event format, as its event log documentation lists the fields (its OpenAPI document leaves the event
  // schema empty): `meta` holds the request that caused it and, in a merge, the two leads.
  const CLOSE_EVENT_FIELDS = [
    'action',
    'api_key_id',
    'changed_fields',
    'data',
    'date_created',
    'date_updated',
    'id',
    'lead_id',
    'meta',
    'object_id',
    'object_type',
    'organization_id',
    'previous_data',
    'request_id',
    'user_id',
  ]

  it('has Close’s fields, field for field, on /event/, /event/{id}/ and in the OpenAPI document', async () => {
    const { requestId } = await createTask('Shape me')
    const [event] = (await events({ request_id: requestId })).data
    expect(Object.keys(event ?? {}).sort()).toEqual(CLOSE_EVENT_FIELDS)
    const one = await call(ctx.app, ctx.org.member.key, 'GET', `/event/${event?.id ?? ''}/`)
    expect(Object.keys(one.json<Record<string, unknown>>()).sort()).toEqual(CLOSE_EVENT_FIELDS)

    const doc = (await ctx.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json()
    const answer = (path: string) => doc.paths[path].get.responses['200'].content['application/json'].schema
    const schema = answer('/api/v1/event/{id}/')
    expect(Object.keys(schema.properties).sort()).toEqual(CLOSE_EVENT_FIELDS)
    expect(answer('/api/v1/event/').properties.data.items).toEqual(schema)
    expect(Object.keys(answer('/api/v1/event/').properties).sort()).toEqual(['cursor_next', 'cursor_previous', 'data'])
    expect(Object.keys(schema.properties.meta.properties).sort()).toEqual([
      'bulk_action_id',
      'import_id',
      'merge_destination_lead_id',
      'merge_source_lead_id',
      'request_method',
      'request_path',
    ])
    // `data` may be null (a deletion's).
    expect(JSON.stringify(schema.properties.data)).toContain('"null"')
    const params = doc.paths['/api/v1/event/'].get.parameters.map((p: { name: string }) => p.name)
    expect(params).toEqual(expect.arrayContaining(['_cursor', '_limit', 'object_type', 'date_updated__gte']))
  })
})

describe('retention', () => {
  it('purges events older than LEADLINE_EVENT_RETENTION_DAYS, keeping the others', async () => {
    const { task } = await createTask('Kept a while')
    const all = (await events({ object_id: task.id })).data
    expect(all).toHaveLength(1)
    const days = ctx.config.eventRetentionDays
    expect(days).toBe(30)
    const db = ctx.database.db
    const at = (daysAgo: number) => formatTimestamp(new Date(ctx.clock.now().getTime() - daysAgo * 86_400_000))
    await db
      .updateTable('event')
      .set({ date_created: at(days + 1) })
      .where('id', '=', all[0]?.id ?? '')
      .execute()
    const { task: recent } = await createTask('Just made')
    expect(await purgeOldEvents(db, ctx.clock, days)).toBeGreaterThanOrEqual(1)
    expect((await events({ object_id: task.id })).data).toEqual([])
    expect((await events({ object_id: recent.id })).data).toHaveLength(1)
    expect(loadConfig({ LEADLINE_EVENT_RETENTION_DAYS: '7' }).eventRetentionDays).toBe(7)
    expect(() => loadConfig({ LEADLINE_EVENT_RETENTION_DAYS: '0' })).toThrow('LEADLINE_EVENT_RETENTION_DAYS')
  })
})

describe('a change of many events', () => {
  it('writes them in bulk as it writes a few: each field the same, in order', async () => {
    const org = await ctx.createOrg('Bulk events')
    const lead = await call(ctx.app, org.member.key, 'POST', '/lead/', { body: { name: 'Bulk events Co' } })
    const leadOf = lead.json<{ id: string }>().id
    const inputs = (prefix: string, n: number): EventInput[] =>
      Array.from({ length: n }, (_, i) => {
        const id = `task_${prefix}${String(i)}`
        const kind = i % 3
        return kind === 0
          ? {
              objectType: 'task.lead',
              objectId: id,
              action: 'created',
              leadId: leadOf,
              data: { id, text: `T${String(i)}` },
            }
          : kind === 1
            ? {
                objectType: 'task.lead',
                objectId: id,
                action: 'updated',
                leadId: leadOf,
                data: { id, text: 'after', is_complete: false },
                previous: { id, text: 'before', is_complete: false },
              }
            : { objectType: 'task.lead', objectId: id, action: 'deleted', leadId: leadOf, data: { id, text: 'gone' } }
      })
    const write = (requestId: string, list: EventInput[]) =>
      ctx.database.db.transaction().execute((tx) =>
        recordEvents(
          tx,
          {
            organizationId: org.id,
            userId: org.member.id,
            requestId,
            apiKeyId: null,
            meta: { import_id: 'impt_bulk' },
            now: formatTimestamp(ctx.clock.now()),
            sink: outboxSink(null),
          },
          list,
        ),
      )
    // Under the bulk threshold, then well over it (and over one statement's rows).
    await write('req_few', inputs('few', 6))
    await write('req_many', inputs('many', 150))
    const all = async (requestId: string) => {
      const seen: EventView[] = []
      let cursor: string | undefined
      do {
        const page = await events(
          { request_id: requestId, ...(cursor === undefined ? {} : { _cursor: cursor }) },
          org.member.key,
        )
        seen.push(...page.data)
        cursor = page.cursor_next ?? undefined
      } while (cursor !== undefined)
      return seen
    }
    const few = await all('req_few')
    const many = await all('req_many')
    expect(few).toHaveLength(6)
    expect(many).toHaveLength(150)
    // Newest first: the last input is the first event; ids and sequence follow the inputs' order.
    expect(many.map((e) => e.object_id)).toEqual(
      inputs('many', 150)
        .map((e) => e.objectId)
        .reverse(),
    )
    const shape = (e: EventView) => ({
      ...e,
      id: typeof e.id,
      object_id: e.object_id.replace(/^task_(few|many)/, 'task_'),
      data: e.data === null ? null : { ...e.data, id: String(e.data.id).replace(/^task_(few|many)/, 'task_') },
      previous_data: !('id' in e.previous_data)
        ? e.previous_data
        : { ...e.previous_data, id: String(e.previous_data.id).replace(/^task_(few|many)/, 'task_') },
      request_id: null,
      date_created: typeof e.date_created,
      date_updated: typeof e.date_updated,
    })
    expect(many.slice(-6).map(shape)).toEqual(few.map(shape))
  })
})
