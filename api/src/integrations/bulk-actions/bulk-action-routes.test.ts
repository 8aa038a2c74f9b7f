import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, createTestContext, type TestContext, type TestOrg } from '../../tooling/test-support/test-app.js'
import { BULK_LEASE_MS, createBulkActionWorker, type BulkActionWorkerOptions } from './bulk-action-worker.js'
import { BULK_UNDER_WAY_MAX } from './bulk-action-routes.js'
import { purgeOldBulkActions } from './bulk-action-repo.js'

// Bulk edits and deletes over HTTP, on the database LEADLINE_TEST_DB names: what is taken and refused, the job's
// states and progress, undo, events, pausing, a job interrupted and resumed, and who sees which job.

let ctx: TestContext

interface Job {
  id: string
  status: string
  type?: string
  n_leads: number | null
  n_leads_processed: number
  n_objects: number | null
  n_leads_changed: number
  n_leads_undone: number
  lead_status_id: string | null
  custom_field_values: unknown[] | null
  query: string | null
  error: string | null
}
interface Lead {
  id: string
  status_id: string
  status_label: string
  [key: string]: unknown
}

function worker(options: Partial<BulkActionWorkerOptions> = {}) {
  return createBulkActionWorker({
    db: ctx.database.db,
    dialect: ctx.database.dialect,
    reader: ctx.database.reader,
    clock: ctx.clock,
    appUrl: ctx.config.appUrl,
    sink: ctx.app.eventSink,
    batchSize: 2,
    onError: (error) => {
      throw error
    },
    ...options,
  })
}

beforeAll(async () => {
  ctx = await createTestContext()
})
afterAll(async () => {
  await ctx.close()
})

async function ok<T>(key: string, method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<T> {
  const res = await call(ctx.app, key, method, path, body === undefined ? {} : { body })
  expect(res.statusCode, res.body).toBe(200)
  return res.json<T>()
}

async function statuses(org: TestOrg): Promise<{ id: string; label: string }[]> {
  return (await ok<{ data: { id: string; label: string }[] }>(org.member.key, 'GET', '/status/lead/')).data
}

async function makeLeads(org: TestOrg, names: string[]): Promise<Lead[]> {
  const made: Lead[] = []
  for (const name of names) made.push(await ok<Lead>(org.member.key, 'POST', '/lead/', { name }))
  return made
}

async function lead(org: TestOrg, id: string): Promise<Lead> {
  return ok<Lead>(org.member.key, 'GET', `/lead/${id}/`)
}

async function run(org: TestOrg, kind: 'edit' | 'delete', body: unknown, key = org.member.key): Promise<Job> {
  const made = await ok<Job>(key, 'POST', `/bulk_action/${kind}/`, body)
  expect(made.status).toBe('created')
  await worker().drain()
  return ok<Job>(key, 'GET', `/bulk_action/${kind}/${made.id}/`)
}

async function refused(org: TestOrg, kind: string, body: unknown): Promise<Record<string, string>> {
  const res = await call(ctx.app, org.member.key, 'POST', `/bulk_action/${kind}/`, { body })
  expect(res.statusCode, res.body).toBe(400)
  return res.json<{ 'field-errors': Record<string, string> }>()['field-errors']
}

async function eventsOf(org: TestOrg, objectType: string) {
  return (
    await ok<{ data: { object_id: string; action: string; meta: Record<string, string>; previous_data: unknown }[] }>(
      org.admin.key,
      'GET',
      `/event/?object_type=${objectType}&_limit=50`,
    )
  ).data
}

describe('bulk edit: set_lead_status', () => {
  it('sets the status of every lead the query finds, with events and activities, and undo puts them back', async () => {
    const org = await ctx.createOrg('Bulk status')
    const [potential, , lost] = await statuses(org)
    const leads = await makeLeads(org, ['Acme One', 'Acme Two', 'Acme Three', 'Other Co', 'Acme Four'])
    // One lead already has the status: it is passed over, not changed.
    await ok(org.member.key, 'PUT', `/lead/${leads[4]?.id ?? ''}/`, { status_id: lost?.id })
    const done = await run(org, 'edit', { type: 'set_lead_status', lead_status_id: lost?.id, query: 'name:acme' })
    expect(done).toMatchObject({
      status: 'done',
      type: 'set_lead_status',
      lead_status_id: lost?.id,
      query: 'name:acme',
      n_leads: 4,
      n_leads_processed: 4,
      n_objects: 4,
      n_leads_changed: 3,
    })
    for (const l of leads.slice(0, 3)) expect((await lead(org, l.id)).status_id).toBe(lost?.id)
    expect((await lead(org, leads[3]?.id ?? '')).status_id).toBe(potential?.id)

    const updates = (await eventsOf(org, 'lead')).filter((e) => e.meta.bulk_action_id === done.id)
    expect(updates.map((e) => e.object_id).sort()).toEqual(
      leads
        .slice(0, 3)
        .map((l) => l.id)
        .sort(),
    )
    expect(updates.every((e) => e.action === 'updated' && e.previous_data !== null)).toBe(true)
    const changes = (await eventsOf(org, 'activity.lead_status_change')).filter(
      (e) => e.meta.bulk_action_id === done.id,
    )
    expect(changes).toHaveLength(3)

    // Someone changes one lead after the edit: undo leaves it as they made it.
    await ok(org.member.key, 'PUT', `/lead/${leads[1]?.id ?? ''}/`, { status_id: potential?.id })
    const [, qualified] = await statuses(org)
    await ok(org.member.key, 'PUT', `/lead/${leads[1]?.id ?? ''}/`, { status_id: qualified?.id })
    await ok(org.member.key, 'POST', `/bulk_action/edit/${done.id}/undo/`, {})
    await worker().drain()
    const undone = await ok<Job>(org.member.key, 'GET', `/bulk_action/edit/${done.id}/`)
    expect(undone).toMatchObject({ status: 'undone', n_leads_undone: 2 })
    expect((await lead(org, leads[0]?.id ?? '')).status_id).toBe(potential?.id)
    expect((await lead(org, leads[1]?.id ?? '')).status_id).toBe(qualified?.id)
    expect((await lead(org, leads[2]?.id ?? '')).status_id).toBe(potential?.id)
    expect((await lead(org, leads[4]?.id ?? '')).status_id).toBe(lost?.id)
    // The search sees the statuses put back.
    const found = await ok<{ total_results: number }>(org.member.key, 'GET', '/lead/', undefined)
    expect(found.total_results).toBe(5)
    const lostNow = await call(ctx.app, org.member.key, 'GET', '/lead/', {
      query: { query: `status_id:${lost?.id ?? ''}` },
    })
    expect(lostNow.json<{ total_results: number }>().total_results).toBe(1)

    const again = await call(ctx.app, org.member.key, 'POST', `/bulk_action/edit/${done.id}/undo/`, { body: {} })
    expect(again.statusCode).toBe(409)
  })

  it('takes leads by id, by s_query (every lead) and with results_limit', async () => {
    const org = await ctx.createOrg('Bulk selection')
    const [, , lost] = await statuses(org)
    const leads = await makeLeads(org, ['A', 'B', 'C', 'D'])
    const byId = await run(org, 'edit', {
      type: 'set_lead_status',
      lead_status_id: lost?.id,
      lead_ids: [leads[0]?.id, leads[2]?.id, leads[0]?.id],
    })
    expect(byId).toMatchObject({ status: 'done', n_leads: 2, n_leads_changed: 2, query: null })
    expect((await lead(org, leads[1]?.id ?? '')).status_label).toBe('Potential')
    const sQuery = { query: { type: 'and', queries: [{ type: 'object_type', object_type: 'lead' }] }, sort: [] }
    const all = await run(org, 'edit', { type: 'set_lead_status', lead_status_id: lost?.id, s_query: sQuery, sort: [] })
    expect(all).toMatchObject({ status: 'done', n_leads: 4, n_leads_changed: 2, s_query: sQuery })
    const limited = await run(org, 'edit', {
      type: 'clear_custom_field',
      custom_field_name: (await customField(org, 'Plain', 'text', false)).name,
      query: '',
      results_limit: 3,
    })
    expect(limited).toMatchObject({ status: 'done', n_leads: 3 })
  })
})

async function customField(org: TestOrg, name: string, type: string, multiple: boolean, choices?: string[]) {
  return ok<{ id: string; name: string }>(org.admin.key, 'POST', '/custom_field/lead/', {
    name,
    type,
    accepts_multiple_values: multiple,
    ...(choices === undefined ? {} : { choices }),
  })
}

describe('bulk edit: custom fields', () => {
  it('sets (replace, add, remove) and clears a field, and undo puts each lead’s own values back', async () => {
    const org = await ctx.createOrg('Bulk custom')
    const tags = await customField(org, 'Tags', 'choices', true, ['red', 'green', 'blue'])
    const tier = await customField(org, 'Tier', 'number', false)
    const [a, b] = await makeLeads(org, ['Alpha', 'Beta'])
    await ok(org.member.key, 'PUT', `/lead/${a?.id ?? ''}/`, { [`custom.${tags.id}`]: ['red'] })
    const key = `custom.${tags.id}`

    const added = await run(org, 'edit', {
      type: 'set_custom_field',
      custom_field_id: tags.id,
      custom_field_values: ['green', 'red'],
      custom_field_operation: 'add',
      query: '',
    })
    expect(added).toMatchObject({ status: 'done', n_leads_changed: 2, custom_field_values: ['green', 'red'] })
    expect((await lead(org, a?.id ?? ''))[key]).toEqual(['red', 'green'])
    expect((await lead(org, b?.id ?? ''))[key]).toEqual(['green', 'red'])

    const removed = await run(org, 'edit', {
      type: 'set_custom_field',
      custom_field_name: 'Tags',
      custom_field_values: ['red'],
      custom_field_operation: 'remove',
      query: '',
    })
    expect(removed.n_leads_changed).toBe(2)
    expect((await lead(org, a?.id ?? ''))[key]).toEqual(['green'])

    const number = await run(org, 'edit', {
      type: 'set_custom_field',
      custom_field_id: tier.id,
      custom_field_value: '3',
      query: `id:${a?.id ?? ''}`,
    })
    expect(number.n_leads_changed).toBe(1)
    expect((await lead(org, a?.id ?? ''))[`custom.${tier.id}`]).toBe(3)

    const cleared = await run(org, 'edit', { type: 'clear_custom_field', custom_field_id: tags.id, query: '' })
    expect(cleared.n_leads_changed).toBe(2)
    expect((await lead(org, a?.id ?? ''))[key]).toBeUndefined()
    await ok(org.member.key, 'POST', `/bulk_action/edit/${cleared.id}/undo/`)
    await worker().drain()
    expect((await lead(org, a?.id ?? ''))[key]).toEqual(['green'])
    expect((await lead(org, b?.id ?? ''))[key]).toEqual(['green'])
  })

  it('refuses what a lead’s custom field would refuse, and a bad selection, storing nothing', async () => {
    const org = await ctx.createOrg('Bulk refusals')
    const [lead0] = await makeLeads(org, ['Only'])
    const color = await customField(org, 'Color', 'choices', false, ['red'])
    const base = { type: 'set_custom_field', custom_field_id: color.id, query: '' }
    expect(await refused(org, 'edit', { ...base, custom_field_value: 'purple' })).toHaveProperty('custom_field_value')
    expect(await refused(org, 'edit', { ...base })).toHaveProperty('custom_field_value')
    expect(await refused(org, 'edit', { ...base, custom_field_values: ['red'] })).toHaveProperty('custom_field_values')
    expect(
      await refused(org, 'edit', { ...base, custom_field_value: 'red', custom_field_operation: 'add' }),
    ).toHaveProperty('custom_field_operation')
    expect(
      await refused(org, 'edit', { ...base, custom_field_id: 'cf_nope', custom_field_value: 'red' }),
    ).toHaveProperty('custom_field_id')
    expect(await refused(org, 'edit', { type: 'clear_custom_field', query: '' })).toHaveProperty('custom_field_id')
    expect(await refused(org, 'edit', { type: 'set_lead_status', query: '' })).toHaveProperty('lead_status_id')
    expect(
      await refused(org, 'edit', { type: 'set_lead_status', lead_status_id: 'stat_nope', query: '' }),
    ).toHaveProperty('lead_status_id')
    const status = (await statuses(org))[0]?.id
    const edit = { type: 'set_lead_status', lead_status_id: status }
    expect(await refused(org, 'edit', edit)).toHaveProperty('query')
    expect(await refused(org, 'edit', { ...edit, query: 'name:(' })).toHaveProperty('query')
    expect(await refused(org, 'edit', { ...edit, query: 'sort:name' })).toHaveProperty('query')
    expect(await refused(org, 'edit', { ...edit, query: 'x', lead_ids: [lead0?.id] })).toHaveProperty('lead_ids')
    expect(await refused(org, 'edit', { ...edit, lead_ids: ['lead_nope'] })).toHaveProperty('lead_ids')
    const foreign = (await makeLeads(ctx.other, ['Foreign']))[0]?.id
    expect(await refused(org, 'edit', { ...edit, lead_ids: [foreign] })).toHaveProperty('lead_ids')
    const contactView = { query: { type: 'object_type', object_type: 'contact' } }
    expect(await refused(org, 'edit', { ...edit, s_query: contactView })).toHaveProperty('s_query')
    expect(await refused(org, 'edit', { ...edit, s_query: { query: { type: 'text', value: 'x' } } })).toHaveProperty(
      's_query',
    )
    expect(await refused(org, 'delete', { query: '', sort: [{ field: 'name' }] })).toHaveProperty('sort')
    expect(await refused(org, 'edit', { type: 'set_owner', query: '' })).toHaveProperty('type')
    const listed = await ok<{ data: Job[] }>(org.admin.key, 'GET', '/bulk_action/edit/')
    expect(listed.data).toEqual([])
  })
})

describe('bulk delete', () => {
  it('deletes the leads chosen, each with its deleted event', async () => {
    const org = await ctx.createOrg('Bulk delete')
    const leads = await makeLeads(org, ['Gone 1', 'Gone 2', 'Gone 3', 'Kept'])
    const done = await run(org, 'delete', { query: 'name:gone' })
    expect(done).toMatchObject({ status: 'done', n_leads: 3, n_leads_processed: 3, bulk_object_type: 'lead' })
    const left = await ok<{ data: Lead[] }>(org.member.key, 'GET', '/lead/')
    expect(left.data.map((l) => l.id)).toEqual([leads[3]?.id])
    const deleted = (await eventsOf(org, 'lead')).filter((e) => e.action === 'deleted')
    expect(deleted.map((e) => e.object_id).sort()).toEqual(
      leads
        .slice(0, 3)
        .map((l) => l.id)
        .sort(),
    )
    expect(deleted.every((e) => e.meta.bulk_action_id === done.id)).toBe(true)
    const undo = await call(ctx.app, org.member.key, 'POST', `/bulk_action/delete/${done.id}/undo/`, { body: {} })
    expect(undo.statusCode).toBe(404)
  })
})

describe('jobs: who sees them, pausing, restarting', () => {
  it('a member sees their own jobs, an admin all of the organization’s; another organization sees none', async () => {
    const org = await ctx.createOrg('Bulk visibility')
    await makeLeads(org, ['V'])
    const status = (await statuses(org))[2]?.id
    const mine = await ok<Job>(org.member.key, 'POST', '/bulk_action/edit/', {
      type: 'set_lead_status',
      lead_status_id: status,
      query: '',
    })
    const admins = await ok<Job>(org.admin.key, 'POST', '/bulk_action/delete/', { query: 'name:nothing' })
    expect((await ok<{ data: Job[] }>(org.admin.key, 'GET', '/bulk_action/edit/')).data.map((j) => j.id)).toEqual([
      mine.id,
    ])
    expect((await ok<{ data: Job[] }>(org.member.key, 'GET', '/bulk_action/delete/')).data).toEqual([])
    for (const [key, path] of [
      [org.member.key, `/bulk_action/delete/${admins.id}/`],
      [ctx.other.admin.key, `/bulk_action/edit/${mine.id}/`],
      [ctx.other.member.key, `/bulk_action/edit/${mine.id}/`],
      [org.member.key, `/bulk_action/delete/${mine.id}/`],
    ] as const) {
      const read = await call(ctx.app, key, 'GET', path)
      expect(read.statusCode, `${path} ${read.body}`).toBe(404)
      const paused = await call(ctx.app, key, 'PUT', path, { body: { status: 'paused' } })
      expect(paused.statusCode, `${path} ${paused.body}`).toBe(404)
    }
    expect((await call(ctx.app, ctx.other.admin.key, 'POST', `/bulk_action/edit/${mine.id}/undo/`)).statusCode).toBe(
      404,
    )
    await worker().drain()
  })

  it('a paused job waits, keeps its place, and resumes', async () => {
    const org = await ctx.createOrg('Bulk pause')
    await makeLeads(org, ['P1', 'P2', 'P3', 'P4', 'P5'])
    const status = (await statuses(org))[2]?.id
    const made = await ok<Job>(org.member.key, 'POST', '/bulk_action/edit/', {
      type: 'set_lead_status',
      lead_status_id: status,
      query: '',
    })
    // Paused after its first batch, from another request.
    let paused = false
    await worker({
      afterBatch: async () => {
        if (paused) return
        paused = true
        await ok(org.member.key, 'PUT', `/bulk_action/edit/${made.id}/`, { status: 'paused' })
      },
    }).drain()
    const halfway = await ok<Job>(org.member.key, 'GET', `/bulk_action/edit/${made.id}/`)
    expect(halfway).toMatchObject({ status: 'paused', n_leads: 5, n_leads_processed: 2 })
    expect(await worker().drain()).toBe(0)
    const resumeAgain = await call(ctx.app, org.member.key, 'PUT', `/bulk_action/edit/${made.id}/`, {
      body: { status: 'paused' },
    })
    expect(resumeAgain.statusCode).toBe(409)
    await ok(org.member.key, 'PUT', `/bulk_action/edit/${made.id}/`, { status: 'resuming' })
    await worker().drain()
    expect(await ok<Job>(org.member.key, 'GET', `/bulk_action/edit/${made.id}/`)).toMatchObject({
      status: 'done',
      n_leads_processed: 5,
      n_leads_changed: 5,
    })
  })

  it('a job whose lease ran out is taken over after its last batch; no lead is changed twice', async () => {
    const org = await ctx.createOrg('Bulk lease')
    await makeLeads(org, ['L1', 'L2', 'L3', 'L4', 'L5'])
    const status = (await statuses(org))[2]?.id
    const made = await ok<Job>(org.member.key, 'POST', '/bulk_action/edit/', {
      type: 'set_lead_status',
      lead_status_id: status,
      query: '',
    })
    let tookOver = false
    const stuck = worker({
      owner: 'stuck-process',
      afterBatch: async () => {
        if (tookOver) return
        tookOver = true
        ctx.clock.advance(BULK_LEASE_MS + 1000)
        expect(await worker({ owner: 'second-process' }).drain()).toBe(1)
      },
    })
    expect(await stuck.drain()).toBe(0)
    const done = await ok<Job>(org.member.key, 'GET', `/bulk_action/edit/${made.id}/`)
    expect(done).toMatchObject({ status: 'done', n_leads_processed: 5, n_leads_changed: 5 })
    const changes = (await eventsOf(org, 'activity.lead_status_change')).filter(
      (e) => e.meta.bulk_action_id === made.id,
    )
    expect(changes).toHaveLength(5)
  })

  it(`at most ${String(BULK_UNDER_WAY_MAX)} jobs of an organization are under way at once`, async () => {
    const org = await ctx.createOrg('Bulk limit')
    for (let i = 0; i < BULK_UNDER_WAY_MAX; i += 1) {
      await ok(org.member.key, 'POST', '/bulk_action/delete/', { query: 'name:none' })
    }
    const more = await call(ctx.app, org.member.key, 'POST', '/bulk_action/delete/', { body: { query: 'name:none' } })
    expect(more.statusCode).toBe(429)
    expect(more.headers['retry-after']).toBe('10')
    await worker().drain()
    await ok(org.member.key, 'POST', '/bulk_action/delete/', { query: 'name:none' })
    await worker().drain()
  })
})

describe('retention', () => {
  it('purges jobs older than the event log keeps, with their leads and undo data; a paused one stays', async () => {
    const org = await ctx.createOrg('Bulk purge')
    await makeLeads(org, ['Old 1', 'Old 2'])
    const status = (await statuses(org))[2]?.id
    const body = { type: 'set_lead_status', lead_status_id: status, query: '' }
    const done = await run(org, 'edit', body)
    const paused = await ok<Job>(org.member.key, 'POST', '/bulk_action/edit/', body)
    await ok(org.member.key, 'PUT', `/bulk_action/edit/${paused.id}/`, { status: 'paused' })
    const db = ctx.database.db
    expect(
      await db.selectFrom('bulk_action_change').select('lead_id').where('action_id', '=', done.id).execute(),
    ).toHaveLength(2)
    ctx.clock.advance(31 * 86_400_000)
    expect(await purgeOldBulkActions(db, ctx.clock, 30)).toBeGreaterThanOrEqual(1)
    expect((await call(ctx.app, org.member.key, 'GET', `/bulk_action/edit/${done.id}/`)).statusCode).toBe(404)
    expect(
      await db.selectFrom('bulk_action_lead').select('lead_id').where('action_id', '=', done.id).execute(),
    ).toEqual([])
    expect(
      await db.selectFrom('bulk_action_change').select('lead_id').where('action_id', '=', done.id).execute(),
    ).toEqual([])
    expect((await ok<Job>(org.member.key, 'GET', `/bulk_action/edit/${paused.id}/`)).status).toBe('paused')
  })
})
