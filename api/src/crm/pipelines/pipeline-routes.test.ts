import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isIdOf } from '@leadline/shared/ids'
import { provisionMember } from '../organizations/provision.js'
import { call, createTestContext, type TestContext, type TestOrg } from '../../tooling/test-support/test-app.js'

let ctx: TestContext
beforeAll(async () => {
  ctx = await createTestContext()
})
afterAll(async () => {
  await ctx.close()
})

interface StatusBody {
  id: string
  label: string
  type: string
  pipeline_id: string
  organization_id: string
}
interface PipelineBody {
  id: string
  name: string
  organization_id: string
  statuses: StatusBody[]
  created_by: string | null
  created_by_name: string | null
  updated_by: string | null
  updated_by_name: string | null
  date_created: string
  date_updated: string
}

async function pipelines(org: TestOrg): Promise<PipelineBody[]> {
  const res = await call(ctx.app, org.admin.key, 'GET', '/pipeline/')
  expect(res.statusCode).toBe(200)
  return res.json().data
}

async function pipeline(org: TestOrg, id: string): Promise<PipelineBody> {
  const res = await call(ctx.app, org.admin.key, 'GET', `/pipeline/${id}/`)
  expect(res.statusCode).toBe(200)
  return res.json()
}

async function opportunityStatuses(org: TestOrg): Promise<StatusBody[]> {
  const res = await call(ctx.app, org.admin.key, 'GET', '/status/opportunity/')
  expect(res.statusCode).toBe(200)
  return res.json().data
}

async function createPipeline(
  org: TestOrg,
  name: string,
  statuses?: { label: string; type?: string }[],
): Promise<PipelineBody> {
  const res = await call(ctx.app, org.admin.key, 'POST', '/pipeline/', {
    body: { name, ...(statuses === undefined ? {} : { statuses }) },
  })
  expect(res.statusCode, res.body).toBe(201)
  return res.json()
}

async function salesPipeline(org: TestOrg): Promise<PipelineBody> {
  const [sales] = await pipelines(org)
  if (sales === undefined) throw new Error('the organization has no pipeline')
  return sales
}

const labels = (p: PipelineBody) => p.statuses.map((s) => s.label)
const ids = (statuses: { id: string }[]) => statuses.map((s) => ({ id: s.id }))

describe('reading pipelines', () => {
  it('shows a new organization’s one pipeline, Sales, with its statuses as /status/opportunity/ shows them', async () => {
    const org = await ctx.createOrg('Fresh pipelines')
    const res = await call(ctx.app, org.member.key, 'GET', '/pipeline/')
    expect(res.statusCode).toBe(200)
    const body = res.json()
    expect(body.has_more).toBe(false)
    expect(body.data).toHaveLength(1)
    const [sales] = body.data as PipelineBody[]
    expect(Object.keys(sales ?? {}).sort()).toEqual([
      'created_by',
      'created_by_name',
      'date_created',
      'date_updated',
      'id',
      'name',
      'organization_id',
      'statuses',
      'updated_by',
      'updated_by_name',
    ])
    expect(sales).toMatchObject({ name: 'Sales', organization_id: org.id })
    expect(isIdOf('pipeline', sales?.id ?? '')).toBe(true)
    expect(sales?.statuses).toEqual(await opportunityStatuses(org))
    expect(sales?.statuses.map((s) => s.label)).toEqual(['Active', 'Won', 'Lost'])
    const one = await call(ctx.app, org.member.key, 'GET', `/pipeline/${sales?.id}/`)
    expect(one.statusCode).toBe(200)
    expect(one.json()).toEqual(sales)
  })

  it('pages with _skip and _limit, refuses a _limit above 100 and keeps the _fields asked for', async () => {
    const org = await ctx.createOrg('Paging pipelines')
    await createPipeline(org, 'Renewals')
    await createPipeline(org, 'Upsell')
    const first = (await call(ctx.app, org.admin.key, 'GET', '/pipeline/?_limit=2')).json()
    expect(first.has_more).toBe(true)
    expect(first.data.map((p: PipelineBody) => p.name)).toEqual(['Sales', 'Renewals'])
    const rest = (await call(ctx.app, org.admin.key, 'GET', '/pipeline/', { query: { _skip: '2' } })).json()
    expect(rest).toMatchObject({ has_more: false, data: [{ name: 'Upsell' }] })
    const tooMany = await call(ctx.app, org.admin.key, 'GET', '/pipeline/?_limit=101')
    expect(tooMany.statusCode).toBe(400)
    expect(tooMany.json()).toEqual({ errors: [], 'field-errors': { _limit: expect.any(String) } })
    const named = (await call(ctx.app, org.admin.key, 'GET', '/pipeline/?_fields=name')).json()
    expect(named.data).toEqual([{ name: 'Sales' }, { name: 'Renewals' }, { name: 'Upsell' }])
  })

  it('lists only the caller’s organization’s pipelines', async () => {
    await createPipeline(ctx.other, 'Globex deals')
    const ours = await pipelines(ctx.org)
    expect(ours.map((p) => p.name)).not.toContain('Globex deals')
    expect(ours.every((p) => p.organization_id === ctx.org.id)).toBe(true)
  })
})

describe('creating a pipeline', () => {
  it('answers 201 with the trimmed name and its statuses in order, placed after the other pipelines', async () => {
    const org = await ctx.createOrg('Create pipelines')
    const res = await call(ctx.app, org.admin.key, 'POST', '/pipeline/', {
      body: {
        name: '  Renewals ',
        statuses: [{ label: ' Due ' }, { label: 'Renewed', type: 'won' }, { label: 'Churned', type: 'lost' }],
        id: 'pipe_mine',
        organization_id: ctx.other.id,
      },
    })
    expect(res.statusCode).toBe(201)
    const created: PipelineBody = res.json()
    expect(isIdOf('pipeline', created.id)).toBe(true)
    expect(created).toMatchObject({ name: 'Renewals', organization_id: org.id })
    expect(created.statuses.map((s) => [s.label, s.type, s.pipeline_id, s.organization_id])).toEqual([
      ['Due', 'active', created.id, org.id],
      ['Renewed', 'won', created.id, org.id],
      ['Churned', 'lost', created.id, org.id],
    ])
    expect(await pipeline(org, created.id)).toEqual(created)
    expect((await pipelines(org)).map((p) => p.name)).toEqual(['Sales', 'Renewals'])
    expect((await opportunityStatuses(org)).map((s) => s.label)).toEqual([
      'Active',
      'Won',
      'Lost',
      'Due',
      'Renewed',
      'Churned',
    ])
  })

  it('creates a pipeline without statuses', async () => {
    const created = await createPipeline(ctx.org, 'Empty for now')
    expect(created.statuses).toEqual([])
  })

  it.each([
    [{}, { name: 'This field is required.' }],
    [{ name: '' }, { name: 'This field may not be blank.' }],
    [{ name: '   ' }, { name: 'This field may not be blank.' }],
    [{ name: 'p'.repeat(201) }, { name: 'Ensure this field has no more than 200 characters.' }],
    [{ name: 7 }, { name: 'Must be a string.' }],
    [{ name: ' sALES ' }, { name: 'A pipeline with this name already exists.' }],
    [{ name: 'Fine', statuses: [{ label: ' ' }] }, { 'statuses.0.label': 'This field may not be blank.' }],
    [{ name: 'Fine', statuses: [{ type: 'won' }] }, { 'statuses.0.label': 'This field is required.' }],
    [{ name: 'Fine', statuses: [{ label: 'A', type: 'stalled' }] }, { 'statuses.0.type': 'Not a valid choice.' }],
    [
      { name: 'Fine', statuses: [{ label: 'Open' }, { label: 'Shut' }, { label: 'OPEN' }] },
      { 'statuses.2.label': 'An opportunity status with this label already exists in the pipeline.' },
    ],
    [{ name: 'Fine', statuses: 'Open' }, { statuses: 'Must be a list.' }],
    [{ name: 'Fine', statuses: Array.from({ length: 101 }, (_, i) => ({ label: `S${String(i)}` })) }, null],
  ])('refuses %j with field errors %j and creates nothing', async (body, fieldErrors) => {
    const before = await pipelines(ctx.org)
    const statusesBefore = await opportunityStatuses(ctx.org)
    const res = await call(ctx.app, ctx.org.admin.key, 'POST', '/pipeline/', { body })
    expect(res.statusCode).toBe(400)
    if (fieldErrors === null) expect(Object.keys(res.json()['field-errors'])).toEqual(['statuses'])
    else expect(res.json()).toEqual({ errors: [], 'field-errors': fieldErrors })
    expect(await pipelines(ctx.org)).toEqual(before)
    expect(await opportunityStatuses(ctx.org)).toEqual(statusesBefore)
  })

  it('accepts a name another organization uses, and a name of exactly 200 characters', async () => {
    const org = await ctx.createOrg('Names')
    await createPipeline(org, 'n'.repeat(200))
    const theirs = await createPipeline(ctx.other, 'Shared pipeline name')
    const ours = await createPipeline(ctx.org, 'Shared pipeline name')
    expect(ours.id).not.toBe(theirs.id)
  })
})

describe('updating a pipeline', () => {
  it('renames it, trimmed; its own name in another case is fine; an empty body changes nothing', async () => {
    const org = await ctx.createOrg('Rename')
    const sales = await salesPipeline(org)
    const res = await call(ctx.app, org.admin.key, 'PUT', `/pipeline/${sales.id}/`, {
      body: { name: ' New business ', id: 'pipe_other', organization_id: ctx.other.id },
    })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ ...sales, name: 'New business', date_updated: expect.any(String) })
    expect(res.json().date_updated > sales.date_updated).toBe(true)
    const recased = await call(ctx.app, org.admin.key, 'PUT', `/pipeline/${sales.id}/`, {
      body: { name: 'NEW BUSINESS' },
    })
    expect(recased.json().name).toBe('NEW BUSINESS')
    const untouched = await call(ctx.app, org.admin.key, 'PUT', `/pipeline/${sales.id}/`, { body: {} })
    expect(untouched.statusCode).toBe(200)
    expect(untouched.json()).toEqual(recased.json())
  })

  it.each([
    [{ name: '' }, 'This field may not be blank.'],
    [{ name: 'RENEWALS' }, 'A pipeline with this name already exists.'],
    [{ name: null }, 'Must be a string.'],
  ])('refuses a rename to %j with a field error on name', async (body, message) => {
    const org = await ctx.createOrg('Bad rename')
    await createPipeline(org, 'Renewals')
    const sales = await salesPipeline(org)
    const res = await call(ctx.app, org.admin.key, 'PUT', `/pipeline/${sales.id}/`, { body })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual({ errors: [], 'field-errors': { name: message } })
    expect(await pipeline(org, sales.id)).toEqual(sales)
  })

  it('reorders its statuses, and /status/opportunity/ follows', async () => {
    const org = await ctx.createOrg('Reorder')
    const sales = await salesPipeline(org)
    const [active, won, lost] = sales.statuses
    const res = await call(ctx.app, org.admin.key, 'PUT', `/pipeline/${sales.id}/`, {
      body: { statuses: ids([lost, active, won].flatMap((s) => (s === undefined ? [] : [s]))) },
    })
    expect(res.statusCode).toBe(200)
    expect(labels(res.json())).toEqual(['Lost', 'Active', 'Won'])
    expect(labels(await pipeline(org, sales.id))).toEqual(['Lost', 'Active', 'Won'])
    expect((await opportunityStatuses(org)).map((s) => s.label)).toEqual(['Lost', 'Active', 'Won'])
    // A status created afterwards still goes last.
    await call(ctx.app, org.admin.key, 'POST', '/status/opportunity/', { body: { label: 'Stalled' } })
    expect(labels(await pipeline(org, sales.id))).toEqual(['Lost', 'Active', 'Won', 'Stalled'])
  })

  it('changes labels and types of the statuses listed with them', async () => {
    const org = await ctx.createOrg('Relabel')
    const sales = await salesPipeline(org)
    const [active, won, lost] = sales.statuses
    const res = await call(ctx.app, org.admin.key, 'PUT', `/pipeline/${sales.id}/`, {
      body: {
        statuses: [
          { id: active?.id, label: ' Open ' },
          { id: won?.id, label: 'Closed', type: 'lost' },
          { id: lost?.id, label: 'Won', type: 'won' },
        ],
      },
    })
    expect(res.statusCode).toBe(200)
    expect(res.json().statuses.map((s: StatusBody) => [s.id, s.label, s.type])).toEqual([
      [active?.id, 'Open', 'active'],
      [won?.id, 'Closed', 'lost'],
      [lost?.id, 'Won', 'won'],
    ])
    expect((await call(ctx.app, org.admin.key, 'GET', `/status/opportunity/${won?.id}/`)).json()).toMatchObject({
      label: 'Closed',
      type: 'lost',
    })
  })

  it('refuses an order that leaves a status of the pipeline out, naming it, and changes nothing', async () => {
    const org = await ctx.createOrg('Missing status')
    const sales = await salesPipeline(org)
    const [active, won, lost] = sales.statuses
    const res = await call(ctx.app, org.admin.key, 'PUT', `/pipeline/${sales.id}/`, {
      body: { name: 'Renamed', statuses: [{ id: lost?.id }, { id: active?.id }] },
    })
    expect(res.statusCode).toBe(400)
    const fieldErrors = res.json()['field-errors']
    expect(Object.keys(fieldErrors)).toEqual(['statuses'])
    expect(fieldErrors.statuses).toContain(won?.id)
    expect(fieldErrors.statuses).not.toContain(lost?.id)
    const empty = await call(ctx.app, org.admin.key, 'PUT', `/pipeline/${sales.id}/`, { body: { statuses: [] } })
    expect(empty.statusCode).toBe(400)
    expect(await pipeline(org, sales.id)).toEqual(sales)
  })

  it('moves a status of another pipeline in at the place listed; the old pipeline keeps its order', async () => {
    const org = await ctx.createOrg('Move in')
    const sales = await salesPipeline(org)
    const renewals = await createPipeline(org, 'Renewals', [
      { label: 'Due' },
      { label: 'Quoted' },
      { label: 'Renewed', type: 'won' },
    ])
    const [due, quoted, renewed] = renewals.statuses
    const [active, won, lost] = sales.statuses
    const res = await call(ctx.app, org.admin.key, 'PUT', `/pipeline/${sales.id}/`, {
      body: { statuses: [{ id: active?.id }, { id: quoted?.id }, { id: won?.id }, { id: lost?.id }] },
    })
    expect(res.statusCode).toBe(200)
    expect(labels(res.json())).toEqual(['Active', 'Quoted', 'Won', 'Lost'])
    expect(res.json().statuses[1]).toEqual({ ...quoted, pipeline_id: sales.id })
    expect(labels(await pipeline(org, renewals.id))).toEqual(['Due', 'Renewed'])
    expect((await call(ctx.app, org.admin.key, 'GET', `/status/opportunity/${quoted?.id}/`)).json().pipeline_id).toBe(
      sales.id,
    )
    expect((await opportunityStatuses(org)).map((s) => s.id)).toEqual(
      [active, quoted, won, lost, due, renewed].map((s) => s?.id),
    )
  })

  it('refuses to move in a status whose label the pipeline already has', async () => {
    const org = await ctx.createOrg('Clash')
    const sales = await salesPipeline(org)
    const renewals = await createPipeline(org, 'Renewals', [{ label: 'won', type: 'won' }])
    const res = await call(ctx.app, org.admin.key, 'PUT', `/pipeline/${sales.id}/`, {
      body: { statuses: [...ids(sales.statuses), ...ids(renewals.statuses)] },
    })
    expect(res.statusCode).toBe(400)
    expect(res.json()['field-errors']).toEqual({
      'statuses.3.label': 'An opportunity status with this label already exists in the pipeline.',
    })
    expect(await pipeline(org, sales.id)).toEqual(sales)
    expect(await pipeline(org, renewals.id)).toEqual(renewals)
  })

  it.each([
    ['another organization’s status', 'theirs'],
    ['an unknown status', 'unknown'],
  ] as const)('refuses %s with a field error on statuses.N.id', async (_what, which) => {
    const sales = await salesPipeline(ctx.org)
    const [theirs] = (await salesPipeline(ctx.other)).statuses
    const stranger = which === 'theirs' ? theirs?.id : 'stat_unknown'
    const res = await call(ctx.app, ctx.org.admin.key, 'PUT', `/pipeline/${sales.id}/`, {
      body: { statuses: [...ids(sales.statuses), { id: stranger }] },
    })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual({
      errors: [],
      'field-errors': { [`statuses.${sales.statuses.length}.id`]: 'Not an opportunity status of your organization.' },
    })
    expect(await pipeline(ctx.org, sales.id)).toEqual(sales)
    expect((await salesPipeline(ctx.other)).statuses[0]).toEqual(theirs)
  })

  it('refuses a status listed twice', async () => {
    const sales = await salesPipeline(ctx.org)
    const [first] = sales.statuses
    const res = await call(ctx.app, ctx.org.admin.key, 'PUT', `/pipeline/${sales.id}/`, {
      body: { statuses: [...ids(sales.statuses), { id: first?.id }] },
    })
    expect(res.statusCode).toBe(400)
    expect(Object.keys(res.json()['field-errors'])).toEqual([`statuses.${sales.statuses.length}.id`])
    expect(await pipeline(ctx.org, sales.id)).toEqual(sales)
  })

  it.each([
    [{ statuses: [{}] }, 'statuses.0.id'],
    [{ statuses: [{ id: 'x', type: 'stalled' }] }, 'statuses.0.type'],
    [{ statuses: ['stat_x'] }, 'statuses.0'],
  ])('refuses %j with a field error on %s', async (body, field) => {
    const sales = await salesPipeline(ctx.org)
    const res = await call(ctx.app, ctx.org.admin.key, 'PUT', `/pipeline/${sales.id}/`, { body })
    expect(res.statusCode).toBe(400)
    expect(Object.keys(res.json()['field-errors'])).toContain(field)
  })

  it('changes nothing at all when one part of an update fails', async () => {
    const org = await ctx.createOrg('All or nothing')
    const sales = await salesPipeline(org)
    const renewals = await createPipeline(org, 'Renewals', [{ label: 'Due' }, { label: 'Renewed', type: 'won' }])
    const [due] = renewals.statuses
    const res = await call(ctx.app, org.admin.key, 'PUT', `/pipeline/${sales.id}/`, {
      body: {
        name: 'Everything',
        statuses: [{ id: due?.id, label: 'Due soon' }, ...ids(sales.statuses).reverse(), { id: 'stat_nope' }],
      },
    })
    expect(res.statusCode).toBe(400)
    expect(Object.keys(res.json()['field-errors'])).toEqual([`statuses.${sales.statuses.length + 1}.id`])
    expect(await pipelines(org)).toEqual([sales, renewals])
  })
})

describe('deleting a pipeline', () => {
  it('deletes an empty pipeline: 204 with no body, then 404', async () => {
    const org = await ctx.createOrg('Delete pipelines')
    const spare = await createPipeline(org, 'Spare')
    const res = await call(ctx.app, org.admin.key, 'DELETE', `/pipeline/${spare.id}/`)
    expect(res.statusCode).toBe(204)
    expect(res.body).toBe('')
    expect((await call(ctx.app, org.admin.key, 'GET', `/pipeline/${spare.id}/`)).statusCode).toBe(404)
    expect((await call(ctx.app, org.admin.key, 'DELETE', `/pipeline/${spare.id}/`)).statusCode).toBe(404)
    expect((await pipelines(org)).map((p) => p.name)).toEqual(['Sales'])
  })

  it('refuses while the pipeline holds statuses, saying how many; emptied by moving them, it goes', async () => {
    const org = await ctx.createOrg('Delete with statuses')
    const sales = await salesPipeline(org)
    const renewals = await createPipeline(org, 'Renewals')
    const res = await call(ctx.app, org.admin.key, 'DELETE', `/pipeline/${sales.id}/`)
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual({ error: expect.stringContaining('3 opportunity statuses') })
    expect(await pipeline(org, sales.id)).toEqual(sales)

    const moved = await call(ctx.app, org.admin.key, 'PUT', `/pipeline/${renewals.id}/`, {
      body: { statuses: ids(sales.statuses) },
    })
    expect(moved.statusCode).toBe(200)
    expect(labels(await pipeline(org, sales.id))).toEqual([])
    expect((await call(ctx.app, org.admin.key, 'DELETE', `/pipeline/${sales.id}/`)).statusCode).toBe(204)
    expect((await pipelines(org)).map((p) => [p.name, labels(p)])).toEqual([['Renewals', ['Active', 'Won', 'Lost']]])
  })

  it('empties a pipeline by deleting its statuses, the last one too once no opportunity uses it, and then it goes', async () => {
    const org = await ctx.createOrg('Delete statuses then pipeline')
    const sales = await salesPipeline(org)
    const renewals = await createPipeline(org, 'Renewals', [{ label: 'Renewing' }, { label: 'Renewed', type: 'won' }])
    const [renewing, renewed] = renewals.statuses
    const lead = await call(ctx.app, org.member.key, 'POST', '/lead/', { body: { name: 'Renewal Co' } })
    expect(lead.statusCode, lead.body).toBe(200)
    const deal = await call(ctx.app, org.member.key, 'POST', '/opportunity/', {
      body: { lead_id: lead.json().id, status_id: renewing?.id },
    })
    expect(deal.statusCode, deal.body).toBe(200)
    const remove = (id: string | undefined) =>
      call(ctx.app, org.admin.key, 'DELETE', `/status/opportunity/${id ?? ''}/`)

    expect((await remove(renewed?.id)).statusCode).toBe(200)
    // The last status, while an opportunity is in it: refused, and nothing changes.
    const used = await remove(renewing?.id)
    expect(used.statusCode).toBe(400)
    expect(used.json()).toEqual({ error: expect.stringContaining('1 opportunit') })
    expect(labels(await pipeline(org, renewals.id))).toEqual(['Renewing'])
    const held = await call(ctx.app, org.admin.key, 'DELETE', `/pipeline/${renewals.id}/`)
    expect(held.statusCode).toBe(400)

    const moved = await call(ctx.app, org.member.key, 'PUT', `/opportunity/${deal.json().id}/`, {
      body: { status_id: sales.statuses[0]?.id },
    })
    expect(moved.statusCode, moved.body).toBe(200)
    const last = await remove(renewing?.id)
    expect(last.statusCode, last.body).toBe(200)
    expect(labels(await pipeline(org, renewals.id))).toEqual([])
    expect((await call(ctx.app, org.admin.key, 'DELETE', `/pipeline/${renewals.id}/`)).statusCode).toBe(204)
    expect((await pipelines(org)).map((p) => [p.name, labels(p)])).toEqual([['Sales', ['Active', 'Won', 'Lost']]])
  })

  it('refuses to delete the organization’s last pipeline', async () => {
    const org = await ctx.createOrg('Last pipeline')
    const sales = await salesPipeline(org)
    const res = await call(ctx.app, org.admin.key, 'DELETE', `/pipeline/${sales.id}/`)
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual({ error: expect.stringContaining('last pipeline') })
    expect(await pipelines(org)).toEqual([sales])
  })
})

describe('who may change pipelines', () => {
  it.each([
    ['POST', false, { name: 'By a rep' }],
    ['PUT', true, { name: 'By a rep' }],
    ['DELETE', true, undefined],
  ] as const)('refuses %s to a non-admin with 403 and changes nothing', async (method, onOne, body) => {
    const spare = await createPipeline(ctx.org, `Spare ${method}`)
    const before = await pipelines(ctx.org)
    const path = onOne ? `/pipeline/${spare.id}/` : '/pipeline/'
    const res = await call(ctx.app, ctx.org.member.key, method, path, { body })
    expect(res.statusCode).toBe(403)
    expect(res.json()).toEqual({ error: expect.any(String) })
    expect(await pipelines(ctx.org)).toEqual(before)
  })

  it.each(['GET', 'PUT', 'DELETE'] as const)(
    'answers %s of another organization’s pipeline, or an unknown one, with 404',
    async (method) => {
      const theirs = await createPipeline(ctx.other, `Theirs ${method}`)
      const body = method === 'PUT' ? { name: 'Hijacked' } : undefined
      for (const id of [theirs.id, 'pipe_doesnotexist']) {
        for (const key of [ctx.org.admin.key, ctx.org.member.key]) {
          const res = await call(ctx.app, key, method, `/pipeline/${id}/`, { body })
          expect(res.statusCode).toBe(404)
          expect(res.json()).toEqual({ error: expect.any(String) })
        }
      }
      expect(await pipeline(ctx.other, theirs.id)).toEqual(theirs)
    },
  )
})

describe('moving a status with /status/opportunity/', () => {
  it('puts it last in the other pipeline; the old pipeline keeps its order', async () => {
    const org = await ctx.createOrg('Status moves')
    const sales = await salesPipeline(org)
    const renewals = await createPipeline(org, 'Renewals', [{ label: 'Due' }, { label: 'Renewed', type: 'won' }])
    const [, won] = sales.statuses
    const res = await call(ctx.app, org.admin.key, 'PUT', `/status/opportunity/${won?.id}/`, {
      body: { pipeline_id: renewals.id },
    })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ ...won, pipeline_id: renewals.id })
    expect(labels(await pipeline(org, renewals.id))).toEqual(['Due', 'Renewed', 'Won'])
    expect(labels(await pipeline(org, sales.id))).toEqual(['Active', 'Lost'])
    // Sending its own pipeline again changes nothing.
    const same = await call(ctx.app, org.admin.key, 'PUT', `/status/opportunity/${won?.id}/`, {
      body: { pipeline_id: renewals.id },
    })
    expect(same.statusCode).toBe(200)
    expect(labels(await pipeline(org, renewals.id))).toEqual(['Due', 'Renewed', 'Won'])
  })

  it('refuses an unknown or another organization’s pipeline with a field error on pipeline_id', async () => {
    const sales = await salesPipeline(ctx.org)
    const theirs = await salesPipeline(ctx.other)
    const [active] = sales.statuses
    for (const pipelineId of [theirs.id, 'pipe_doesnotexist']) {
      const res = await call(ctx.app, ctx.org.admin.key, 'PUT', `/status/opportunity/${active?.id}/`, {
        body: { pipeline_id: pipelineId, label: 'Moved' },
      })
      expect(res.statusCode).toBe(400)
      expect(res.json()).toEqual({
        errors: [],
        'field-errors': { pipeline_id: 'Not a pipeline of your organization.' },
      })
    }
    expect(await pipeline(ctx.org, sales.id)).toEqual(sales)
    expect(await pipeline(ctx.other, theirs.id)).toEqual(theirs)
  })

  it('refuses a move into a pipeline that has the label already', async () => {
    const org = await ctx.createOrg('Status move clash')
    const sales = await salesPipeline(org)
    const renewals = await createPipeline(org, 'Renewals', [{ label: 'LOST', type: 'lost' }])
    const [, , lost] = sales.statuses
    const res = await call(ctx.app, org.admin.key, 'PUT', `/status/opportunity/${lost?.id}/`, {
      body: { pipeline_id: renewals.id },
    })
    expect(res.statusCode).toBe(400)
    expect(Object.keys(res.json()['field-errors'])).toEqual(['pipeline_id'])
    expect(await pipeline(org, sales.id)).toEqual(sales)
  })
})

describe('who created and last changed a pipeline', () => {
  /** A second admin of the organization, so that a change by someone else shows. */
  async function secondAdmin(org: TestOrg): Promise<{ id: string; key: string }> {
    const member = await provisionMember(ctx.database.db, ctx.clock, {
      organizationId: org.id,
      email: `second-admin-${org.id.slice(-8).toLowerCase()}@example.com`,
      role: 'admin',
      firstName: 'Sid',
      lastName: 'Second',
    })
    return { id: member.user_id, key: member.api_key }
  }

  it('names the organization’s creator on its first pipeline, and the admin who creates one on that one', async () => {
    const org = await ctx.createOrg('Pipeline authors')
    const first = await salesPipeline(org)
    expect(first).toMatchObject({
      created_by: org.admin.id,
      created_by_name: 'Ada Admin',
      updated_by: org.admin.id,
      updated_by_name: 'Ada Admin',
    })
    const second = await secondAdmin(org)
    const res = await call(ctx.app, second.key, 'POST', '/pipeline/', {
      // Read-only fields in the body are ignored.
      body: { name: 'Partners', created_by: org.member.id, updated_by: org.member.id, date_created: 'then' },
    })
    expect(res.statusCode, res.body).toBe(201)
    expect(res.json()).toMatchObject({
      created_by: second.id,
      created_by_name: 'Sid Second',
      updated_by: second.id,
      updated_by_name: 'Sid Second',
    })
    expect(res.json().date_created).toBe(res.json().date_updated)
    expect(await pipeline(org, res.json().id)).toEqual(res.json())
  })

  it('names the last admin to rename or reorder it, keeping who created it', async () => {
    const org = await ctx.createOrg('Pipeline editors')
    const sales = await salesPipeline(org)
    const second = await secondAdmin(org)
    ctx.clock.advance(1000)
    const renamed = await call(ctx.app, second.key, 'PUT', `/pipeline/${sales.id}/`, {
      body: { name: 'New business', updated_by: org.member.id },
    })
    expect(renamed.statusCode).toBe(200)
    expect(renamed.json()).toEqual({
      ...sales,
      name: 'New business',
      updated_by: second.id,
      updated_by_name: 'Sid Second',
      date_updated: expect.any(String),
    })
    ctx.clock.advance(1000)
    const reordered = await call(ctx.app, org.admin.key, 'PUT', `/pipeline/${sales.id}/`, {
      body: { statuses: ids([...sales.statuses].reverse()) },
    })
    expect(reordered.json()).toMatchObject({ created_by: org.admin.id, updated_by: org.admin.id })
    expect(reordered.json().date_updated > renamed.json().date_updated).toBe(true)
  })

  it('names the admin who moves a status on both pipelines, by PUT /pipeline/ or /status/opportunity/', async () => {
    const org = await ctx.createOrg('Pipeline movers')
    const sales = await salesPipeline(org)
    const renewals = await createPipeline(org, 'Renewals', [{ label: 'Due' }, { label: 'Renewed', type: 'won' }])
    const second = await secondAdmin(org)
    const [due] = renewals.statuses
    ctx.clock.advance(1000)
    const moved = await call(ctx.app, second.key, 'PUT', `/status/opportunity/${due?.id}/`, {
      body: { pipeline_id: sales.id },
    })
    expect(moved.statusCode, moved.body).toBe(200)
    for (const id of [sales.id, renewals.id]) {
      const after = await pipeline(org, id)
      expect(after).toMatchObject({ updated_by: second.id, updated_by_name: 'Sid Second' })
      expect(after.created_by).toBe(org.admin.id)
    }
    ctx.clock.advance(1000)
    const back = await call(ctx.app, org.admin.key, 'PUT', `/pipeline/${renewals.id}/`, {
      body: { statuses: ids([...(await pipeline(org, renewals.id)).statuses, due ?? { id: '' }]) },
    })
    expect(back.statusCode, back.body).toBe(200)
    expect(back.json()).toMatchObject({ updated_by: org.admin.id, updated_by_name: 'Ada Admin' })
    expect(await pipeline(org, sales.id)).toMatchObject({ updated_by: org.admin.id })
  })
})

describe('the organization’s view of its pipelines', () => {
  it('shows a pipeline change at once in GET /organization/{id}/ and /status/opportunity/', async () => {
    const org = await ctx.createOrg('Cached pipelines')
    const sales = await salesPipeline(org)
    const renewals = await createPipeline(org, 'Renewals', [{ label: 'Due' }])
    const orgLabels = async () =>
      (await call(ctx.app, org.member.key, 'GET', `/organization/${org.id}/`))
        .json()
        .opportunity_statuses.map((s: StatusBody) => `${s.pipeline_id === sales.id ? 'S' : 'R'}:${s.label}`)
    expect(await orgLabels()).toEqual(['S:Active', 'S:Won', 'S:Lost', 'R:Due'])

    const [active, won, lost] = sales.statuses
    const res = await call(ctx.app, org.admin.key, 'PUT', `/pipeline/${renewals.id}/`, {
      body: { name: 'Renewals 2027', statuses: [{ id: won?.id }, ...ids(renewals.statuses)] },
    })
    expect(res.statusCode).toBe(200)
    expect(await orgLabels()).toEqual(['S:Active', 'S:Lost', 'R:Won', 'R:Due'])
    expect((await opportunityStatuses(org)).map((s) => s.id)).toEqual(
      [active, lost, won, ...renewals.statuses].map((s) => s?.id),
    )
    expect((await pipelines(org)).map((p) => p.name)).toEqual(['Sales', 'Renewals 2027'])

    const renamed = await call(ctx.app, org.admin.key, 'PUT', `/pipeline/${sales.id}/`, { body: { name: 'Deals' } })
    expect(renamed.statusCode).toBe(200)
    expect((await call(ctx.app, org.member.key, 'GET', `/pipeline/${sales.id}/`)).json().name).toBe('Deals')
  })
})

describe('the OpenAPI document', () => {
  it('documents every pipeline route', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json()
    expect(Object.keys(doc.paths['/api/v1/pipeline/']).sort()).toEqual(['get', 'post'])
    expect(Object.keys(doc.paths['/api/v1/pipeline/{id}/']).sort()).toEqual(['delete', 'get', 'put'])
    expect(Object.keys(doc.paths['/api/v1/pipeline/'].post.responses)).toContain('201')
    expect(Object.keys(doc.paths['/api/v1/pipeline/{id}/'].delete.responses)).toContain('204')
    const item = doc.paths['/api/v1/pipeline/{id}/'].get.responses['200'].content['application/json'].schema
    expect(Object.keys(item.properties)).toEqual(expect.arrayContaining(['id', 'name', 'statuses']))
  })
})
