import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isIdOf } from '@leadline/shared/ids'
import { newId } from '../../platform/security/ids.js'
import { formatTimestamp } from '../../platform/data/time.js'
import { call, createTestContext, type TestContext, type TestOrg } from '../../tooling/test-support/test-app.js'

let ctx: TestContext
beforeAll(async () => {
  ctx = await createTestContext()
})
afterAll(async () => {
  await ctx.close()
})

interface LeadStatusBody {
  id: string
  label: string
  organization_id: string
}
interface OpportunityStatusBody extends LeadStatusBody {
  type: string
  pipeline_id: string
}

async function leadStatuses(org: TestOrg): Promise<LeadStatusBody[]> {
  const res = await call(ctx.app, org.admin.key, 'GET', '/status/lead/')
  expect(res.statusCode).toBe(200)
  return res.json().data
}

async function opportunityStatuses(org: TestOrg): Promise<OpportunityStatusBody[]> {
  const res = await call(ctx.app, org.admin.key, 'GET', '/status/opportunity/')
  expect(res.statusCode).toBe(200)
  return res.json().data
}

async function defaultPipelineId(org: TestOrg): Promise<string> {
  const [first] = await opportunityStatuses(org)
  if (first === undefined) throw new Error('the organization has no opportunity status')
  return first.pipeline_id
}

/** Seeded in the database rather than through `/pipeline/`, to choose its position. */
async function seedPipeline(org: TestOrg, name: string, position: number): Promise<string> {
  const id = newId('pipeline')
  const now = formatTimestamp(ctx.clock.now())
  await ctx.database.db
    .insertInto('pipeline')
    .values({ id, organization_id: org.id, name, position, date_created: now, date_updated: now })
    .execute()
  return id
}

describe('a new organization', () => {
  it('has the lead statuses Potential, Bad Fit, Qualified and Customer, in that order', async () => {
    const org = await ctx.createOrg('Fresh Leads')
    const res = await call(ctx.app, org.member.key, 'GET', '/status/lead/')
    expect(res.statusCode).toBe(200)
    const body = res.json()
    expect(body.has_more).toBe(false)
    expect(body.data.map((s: LeadStatusBody) => s.label)).toEqual(['Potential', 'Bad Fit', 'Qualified', 'Customer'])
    for (const status of body.data) {
      expect(Object.keys(status).sort()).toEqual(['id', 'label', 'organization_id'])
      expect(status.organization_id).toBe(org.id)
      expect(isIdOf('status', status.id)).toBe(true)
    }
  })

  it('has one pipeline with the statuses Active, Won and Lost', async () => {
    const org = await ctx.createOrg('Fresh Deals')
    const res = await call(ctx.app, org.member.key, 'GET', '/status/opportunity/')
    expect(res.statusCode).toBe(200)
    const body = res.json()
    expect(body.has_more).toBe(false)
    expect(body.data.map((s: OpportunityStatusBody) => [s.label, s.type])).toEqual([
      ['Active', 'active'],
      ['Won', 'won'],
      ['Lost', 'lost'],
    ])
    expect(new Set(body.data.map((s: OpportunityStatusBody) => s.pipeline_id)).size).toBe(1)
    for (const status of body.data) {
      expect(Object.keys(status).sort()).toEqual(['id', 'label', 'organization_id', 'pipeline_id', 'type'])
      expect(status.organization_id).toBe(org.id)
      expect(isIdOf('pipeline', status.pipeline_id)).toBe(true)
    }
  })
})

describe('listing statuses', () => {
  it('pages lead statuses with _skip and _limit', async () => {
    const org = await ctx.createOrg('Paging')
    const first = (await call(ctx.app, org.admin.key, 'GET', '/status/lead/?_limit=3')).json()
    const rest = (await call(ctx.app, org.admin.key, 'GET', '/status/lead/?_skip=3&_limit=3')).json()
    expect(first.has_more).toBe(true)
    expect(first.data.map((s: LeadStatusBody) => s.label)).toEqual(['Potential', 'Bad Fit', 'Qualified'])
    expect(rest.has_more).toBe(false)
    expect(rest.data.map((s: LeadStatusBody) => s.label)).toEqual(['Customer'])
  })

  it('pages opportunity statuses with _skip and _limit', async () => {
    const org = await ctx.createOrg('Paging Deals')
    const page = (await call(ctx.app, org.admin.key, 'GET', '/status/opportunity/?_skip=1&_limit=1')).json()
    expect(page.has_more).toBe(true)
    expect(page.data.map((s: OpportunityStatusBody) => s.label)).toEqual(['Won'])
  })

  it('refuses a _limit above 100', async () => {
    const res = await call(ctx.app, ctx.org.admin.key, 'GET', '/status/lead/?_limit=101')
    expect(res.statusCode).toBe(400)
    expect(res.json()['field-errors']).toEqual({ _limit: 'Ensure this value is less than or equal to 100.' })
  })

  it('lists only the caller’s organization’s statuses', async () => {
    const created = await call(ctx.app, ctx.other.admin.key, 'POST', '/status/lead/', {
      body: { label: 'Globex only' },
    })
    expect(created.statusCode).toBe(200)
    expect((await leadStatuses(ctx.org)).map((s) => s.label)).not.toContain('Globex only')
    expect((await leadStatuses(ctx.org)).every((s) => s.organization_id === ctx.org.id)).toBe(true)
    expect((await opportunityStatuses(ctx.org)).every((s) => s.organization_id === ctx.org.id)).toBe(true)
  })

  it('keeps only the _fields asked for, on lists and on one status', async () => {
    const list = (await call(ctx.app, ctx.org.member.key, 'GET', '/status/opportunity/?_fields=label,type')).json()
    expect(list.data[0]).toEqual({ label: 'Active', type: 'active' })
    const [status] = await leadStatuses(ctx.org)
    const one = await call(ctx.app, ctx.org.member.key, 'GET', `/status/lead/${status?.id}/?_fields=label`)
    expect(one.statusCode).toBe(200)
    expect(one.json()).toEqual({ label: status?.label })
  })
})

describe('lead statuses', () => {
  it('creates a trimmed status, answers 200 and puts it last', async () => {
    const org = await ctx.createOrg('Create')
    const res = await call(ctx.app, org.admin.key, 'POST', '/status/lead/', { body: { label: '  Hot  ' } })
    expect(res.statusCode).toBe(200)
    const status = res.json()
    expect(status).toEqual({ id: expect.any(String), label: 'Hot', organization_id: org.id })
    expect(isIdOf('status', status.id)).toBe(true)
    expect((await leadStatuses(org)).map((s) => s.label)).toEqual([
      'Potential',
      'Bad Fit',
      'Qualified',
      'Customer',
      'Hot',
    ])
    const one = await call(ctx.app, org.member.key, 'GET', `/status/lead/${status.id}/`)
    expect(one.statusCode).toBe(200)
    expect(one.json()).toEqual(status)
  })

  it('ignores read-only fields in the body', async () => {
    const res = await call(ctx.app, ctx.org.admin.key, 'POST', '/status/lead/', {
      body: {
        label: 'Read only',
        id: 'stat_mine',
        organization_id: ctx.other.id,
        date_created: '2001-01-01T00:00:00.000000+00:00',
      },
    })
    expect(res.statusCode).toBe(200)
    const status = res.json()
    expect(status.id).not.toBe('stat_mine')
    expect(status.organization_id).toBe(ctx.org.id)
    expect((await leadStatuses(ctx.other)).map((s) => s.label)).not.toContain('Read only')
  })

  it.each([
    [{ label: '   ' }, 'This field may not be blank.'],
    [{ label: '' }, 'This field may not be blank.'],
    [{ label: 'x'.repeat(201) }, 'Ensure this field has no more than 200 characters.'],
    [{ label: 42 }, 'Must be a string.'],
    [{}, 'This field is required.'],
  ])('refuses %j with a field error on label and creates nothing', async (body, message) => {
    const before = await leadStatuses(ctx.org)
    const res = await call(ctx.app, ctx.org.admin.key, 'POST', '/status/lead/', { body })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual({ errors: [], 'field-errors': { label: message } })
    expect(await leadStatuses(ctx.org)).toEqual(before)
  })

  it('accepts a label of exactly 200 characters', async () => {
    const res = await call(ctx.app, ctx.org.admin.key, 'POST', '/status/lead/', { body: { label: 'y'.repeat(200) } })
    expect(res.statusCode).toBe(200)
    expect(res.json().label).toBe('y'.repeat(200))
  })

  it('refuses a label the organization already has, ignoring case', async () => {
    const before = await leadStatuses(ctx.org)
    const res = await call(ctx.app, ctx.org.admin.key, 'POST', '/status/lead/', { body: { label: ' bad FIT ' } })
    expect(res.statusCode).toBe(400)
    expect(Object.keys(res.json()['field-errors'])).toEqual(['label'])
    expect(await leadStatuses(ctx.org)).toEqual(before)
  })

  it('lets only one of two simultaneous creates with the same label through', async () => {
    const org = await ctx.createOrg('Race')
    const responses = await Promise.all(
      ['Twin', 'twin', 'TWIN'].map((label) =>
        call(ctx.app, org.admin.key, 'POST', '/status/lead/', { body: { label } }),
      ),
    )
    expect(responses.map((r) => r.statusCode).sort()).toEqual([200, 400, 400])
    expect((await leadStatuses(org)).filter((s) => s.label.toLowerCase() === 'twin')).toHaveLength(1)
  })

  it('allows a label another organization uses', async () => {
    const theirs = await call(ctx.app, ctx.other.admin.key, 'POST', '/status/lead/', { body: { label: 'Shared name' } })
    expect(theirs.statusCode).toBe(200)
    const ours = await call(ctx.app, ctx.org.admin.key, 'POST', '/status/lead/', { body: { label: 'Shared name' } })
    expect(ours.statusCode).toBe(200)
  })

  it('renames a status with PUT, ignoring read-only fields', async () => {
    const created = (
      await call(ctx.app, ctx.org.admin.key, 'POST', '/status/lead/', { body: { label: 'Warm' } })
    ).json()
    const res = await call(ctx.app, ctx.org.admin.key, 'PUT', `/status/lead/${created.id}/`, {
      body: { label: ' Lukewarm ', id: 'stat_other', organization_id: ctx.other.id },
    })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ id: created.id, label: 'Lukewarm', organization_id: ctx.org.id })
    const again = await call(ctx.app, ctx.org.member.key, 'GET', `/status/lead/${created.id}/`)
    expect(again.json().label).toBe('Lukewarm')
  })

  it('lets a status change the case of its own label, and leaves it alone on an empty body', async () => {
    const created = (
      await call(ctx.app, ctx.org.admin.key, 'POST', '/status/lead/', { body: { label: 'Cold' } })
    ).json()
    const recased = await call(ctx.app, ctx.org.admin.key, 'PUT', `/status/lead/${created.id}/`, {
      body: { label: 'COLD' },
    })
    expect(recased.statusCode).toBe(200)
    expect(recased.json().label).toBe('COLD')
    const untouched = await call(ctx.app, ctx.org.admin.key, 'PUT', `/status/lead/${created.id}/`, { body: {} })
    expect(untouched.statusCode).toBe(200)
    expect(untouched.json().label).toBe('COLD')
  })

  it.each([
    [{ label: 'qualified' }, 'label'],
    [{ label: '  ' }, 'label'],
    [{ label: null }, 'label'],
  ])('refuses a rename to %j with a field error and changes nothing', async (body, field) => {
    const created = (
      await call(ctx.app, ctx.org.admin.key, 'POST', '/status/lead/', {
        body: { label: `Rename ${field} ${Math.random()}` },
      })
    ).json()
    const res = await call(ctx.app, ctx.org.admin.key, 'PUT', `/status/lead/${created.id}/`, { body })
    expect(res.statusCode).toBe(400)
    expect(Object.keys(res.json()['field-errors'])).toEqual([field])
    expect((await call(ctx.app, ctx.org.admin.key, 'GET', `/status/lead/${created.id}/`)).json()).toEqual(created)
  })

  it('deletes a status: 200 {} and it is gone; a new status still goes last', async () => {
    const org = await ctx.createOrg('Delete')
    const [, badFit] = await leadStatuses(org)
    const res = await call(ctx.app, org.admin.key, 'DELETE', `/status/lead/${badFit?.id}/`)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({})
    expect((await call(ctx.app, org.admin.key, 'GET', `/status/lead/${badFit?.id}/`)).statusCode).toBe(404)
    await call(ctx.app, org.admin.key, 'POST', '/status/lead/', { body: { label: 'Churned' } })
    expect((await leadStatuses(org)).map((s) => s.label)).toEqual(['Potential', 'Qualified', 'Customer', 'Churned'])
  })

  it('refuses to delete the organization’s last lead status', async () => {
    const org = await ctx.createOrg('Last lead status')
    const [last, ...others] = await leadStatuses(org)
    for (const status of others) {
      expect((await call(ctx.app, org.admin.key, 'DELETE', `/status/lead/${status.id}/`)).statusCode).toBe(200)
    }
    const res = await call(ctx.app, org.admin.key, 'DELETE', `/status/lead/${last?.id}/`)
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual({ error: expect.any(String) })
    expect(await leadStatuses(org)).toEqual([last])
  })
})

describe('opportunity statuses', () => {
  it('creates an active status in the default pipeline from a label alone, placed last', async () => {
    const org = await ctx.createOrg('Label alone')
    const pipelineId = await defaultPipelineId(org)
    const res = await call(ctx.app, org.admin.key, 'POST', '/status/opportunity/', { body: { label: ' Demo ' } })
    expect(res.statusCode).toBe(200)
    const status = res.json()
    expect(status).toEqual({
      id: expect.any(String),
      label: 'Demo',
      type: 'active',
      pipeline_id: pipelineId,
      organization_id: org.id,
    })
    expect(isIdOf('status', status.id)).toBe(true)
    expect((await opportunityStatuses(org)).map((s) => s.label)).toEqual(['Active', 'Won', 'Lost', 'Demo'])
    expect((await call(ctx.app, org.member.key, 'GET', `/status/opportunity/${status.id}/`)).json()).toEqual(status)
  })

  it('creates a status of the given type in the given pipeline', async () => {
    const pipelineId = await defaultPipelineId(ctx.org)
    const res = await call(ctx.app, ctx.org.admin.key, 'POST', '/status/opportunity/', {
      body: { label: 'Won big', type: 'won', pipeline_id: pipelineId },
    })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({ label: 'Won big', type: 'won', pipeline_id: pipelineId })
  })

  it('puts a status without pipeline_id in the pipeline with the lowest position', async () => {
    const org = await ctx.createOrg('Two pipelines')
    const sales = await defaultPipelineId(org)
    await ctx.database.db.updateTable('pipeline').set({ position: 5 }).where('id', '=', sales).execute()
    const renewals = await seedPipeline(org, 'Renewals', 2)
    await seedPipeline(org, 'Upsell', 9)
    const res = await call(ctx.app, org.admin.key, 'POST', '/status/opportunity/', { body: { label: 'Renewing' } })
    expect(res.statusCode).toBe(200)
    expect(res.json().pipeline_id).toBe(renewals)
  })

  it('allows the same label in another pipeline, not in the same one (ignoring case)', async () => {
    const org = await ctx.createOrg('Labels per pipeline')
    const sales = await defaultPipelineId(org)
    const renewals = await seedPipeline(org, 'Renewals', 1)
    const inRenewals = await call(ctx.app, org.admin.key, 'POST', '/status/opportunity/', {
      body: { label: 'Won', type: 'won', pipeline_id: renewals },
    })
    expect(inRenewals.statusCode).toBe(200)
    const before = await opportunityStatuses(org)
    const inSales = await call(ctx.app, org.admin.key, 'POST', '/status/opportunity/', {
      body: { label: 'WON', type: 'won', pipeline_id: sales },
    })
    expect(inSales.statusCode).toBe(400)
    expect(Object.keys(inSales.json()['field-errors'])).toEqual(['label'])
    expect(await opportunityStatuses(org)).toEqual(before)
  })

  it('refuses a type other than active, won or lost', async () => {
    const before = await opportunityStatuses(ctx.org)
    const res = await call(ctx.app, ctx.org.admin.key, 'POST', '/status/opportunity/', {
      body: { label: 'Stalled', type: 'stalled' },
    })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual({ errors: [], 'field-errors': { type: 'Not a valid choice.' } })
    expect(await opportunityStatuses(ctx.org)).toEqual(before)
  })

  it('refuses an unknown pipeline and another organization’s pipeline', async () => {
    const before = await opportunityStatuses(ctx.org)
    for (const pipelineId of ['pipe_doesnotexist', await defaultPipelineId(ctx.other)]) {
      const res = await call(ctx.app, ctx.org.admin.key, 'POST', '/status/opportunity/', {
        body: { label: 'Elsewhere', pipeline_id: pipelineId },
      })
      expect(res.statusCode).toBe(400)
      expect(Object.keys(res.json()['field-errors'])).toEqual(['pipeline_id'])
    }
    expect(await opportunityStatuses(ctx.org)).toEqual(before)
    expect((await opportunityStatuses(ctx.other)).map((s) => s.label)).not.toContain('Elsewhere')
  })

  it.each([[{ label: ' ' }], [{ type: 'won' }], [{ label: 'x'.repeat(201) }]])(
    'refuses %j with a field error on label',
    async (body) => {
      const res = await call(ctx.app, ctx.org.admin.key, 'POST', '/status/opportunity/', { body })
      expect(res.statusCode).toBe(400)
      expect(Object.keys(res.json()['field-errors'])).toEqual(['label'])
    },
  )

  it('changes label, type and pipeline with PUT; read-only fields are ignored', async () => {
    const org = await ctx.createOrg('Update deals')
    const renewals = await seedPipeline(org, 'Renewals', 1)
    const created = (
      await call(ctx.app, org.admin.key, 'POST', '/status/opportunity/', { body: { label: 'Proposal' } })
    ).json()
    const res = await call(ctx.app, org.admin.key, 'PUT', `/status/opportunity/${created.id}/`, {
      body: { label: 'Closed lost', type: 'lost', pipeline_id: renewals, organization_id: ctx.other.id, id: 'x' },
    })
    expect(res.statusCode).toBe(200)
    const expected = {
      id: created.id,
      label: 'Closed lost',
      type: 'lost',
      pipeline_id: renewals,
      organization_id: org.id,
    }
    expect(res.json()).toEqual(expected)
    expect((await call(ctx.app, org.admin.key, 'GET', `/status/opportunity/${created.id}/`)).json()).toEqual(expected)
  })

  it.each([
    [{ type: 'pending' }, 'type'],
    [{ label: 'active' }, 'label'],
    [{ label: '' }, 'label'],
  ])('refuses an update to %j and changes nothing', async (body, field) => {
    const created = (
      await call(ctx.app, ctx.org.admin.key, 'POST', '/status/opportunity/', {
        body: { label: `Update ${field} ${Math.random()}` },
      })
    ).json()
    const res = await call(ctx.app, ctx.org.admin.key, 'PUT', `/status/opportunity/${created.id}/`, { body })
    expect(res.statusCode).toBe(400)
    expect(Object.keys(res.json()['field-errors'])).toEqual([field])
    expect((await call(ctx.app, ctx.org.admin.key, 'GET', `/status/opportunity/${created.id}/`)).json()).toEqual(
      created,
    )
  })

  it('deletes a status: 200 {} and it is gone', async () => {
    const org = await ctx.createOrg('Delete deals')
    const [, won] = await opportunityStatuses(org)
    const res = await call(ctx.app, org.admin.key, 'DELETE', `/status/opportunity/${won?.id}/`)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({})
    expect((await call(ctx.app, org.admin.key, 'GET', `/status/opportunity/${won?.id}/`)).statusCode).toBe(404)
    expect((await opportunityStatuses(org)).map((s) => s.label)).toEqual(['Active', 'Lost'])
  })

  it('deletes the last status of a pipeline when no opportunity uses it, leaving the pipeline empty', async () => {
    const org = await ctx.createOrg('Last of a pipeline')
    const renewals = await seedPipeline(org, 'Renewals', 1)
    const only = (
      await call(ctx.app, org.admin.key, 'POST', '/status/opportunity/', {
        body: { label: 'Renewing', pipeline_id: renewals },
      })
    ).json()
    const res = await call(ctx.app, org.admin.key, 'DELETE', `/status/opportunity/${only.id}/`)
    expect(res.statusCode, res.body).toBe(200)
    expect((await call(ctx.app, org.admin.key, 'GET', `/status/opportunity/${only.id}/`)).statusCode).toBe(404)
    const emptied = await call(ctx.app, org.admin.key, 'GET', `/pipeline/${renewals}/`)
    expect(emptied.json().statuses).toEqual([])
    expect((await opportunityStatuses(org)).map((s) => s.label)).toEqual(['Active', 'Won', 'Lost'])
  })
})

describe('who may change statuses', () => {
  const byARep = { label: 'By a rep', type: 'lost' }
  it.each([
    ['POST', '/status/lead/', byARep],
    ['PUT', '/status/lead/{lead}/', byARep],
    ['DELETE', '/status/lead/{lead}/', undefined],
    ['POST', '/status/opportunity/', byARep],
    ['PUT', '/status/opportunity/{opportunity}/', byARep],
    ['DELETE', '/status/opportunity/{opportunity}/', undefined],
  ] as const)('refuses %s %s to a non-admin with 403 and changes nothing', async (method, template, body) => {
    const leadsBefore = await leadStatuses(ctx.org)
    const dealsBefore = await opportunityStatuses(ctx.org)
    const path = template
      .replace('{lead}', leadsBefore.at(-1)?.id ?? '')
      .replace('{opportunity}', dealsBefore.at(-1)?.id ?? '')
    const res = await call(ctx.app, ctx.org.member.key, method, path, { body })
    expect(res.statusCode).toBe(403)
    expect(res.json()).toEqual({ error: expect.any(String) })
    expect(await leadStatuses(ctx.org)).toEqual(leadsBefore)
    expect(await opportunityStatuses(ctx.org)).toEqual(dealsBefore)
  })

  it.each([
    ['GET', 'lead'],
    ['PUT', 'lead'],
    ['DELETE', 'lead'],
    ['GET', 'opportunity'],
    ['PUT', 'opportunity'],
    ['DELETE', 'opportunity'],
  ] as const)(
    'answers %s of another organization’s %s status with 404, to admins and users alike',
    async (method, kind) => {
      const theirs = kind === 'lead' ? await leadStatuses(ctx.other) : await opportunityStatuses(ctx.other)
      const target = theirs[0]
      const body = method === 'PUT' ? { label: 'Hijacked' } : undefined
      for (const key of [ctx.org.admin.key, ctx.org.member.key]) {
        const res = await call(ctx.app, key, method, `/status/${kind}/${target?.id}/`, { body })
        expect(res.statusCode).toBe(404)
        expect(res.json()).toEqual({ error: expect.any(String) })
      }
      const after = kind === 'lead' ? await leadStatuses(ctx.other) : await opportunityStatuses(ctx.other)
      expect(after).toEqual(theirs)
    },
  )

  it('answers 404 for an id that does not exist', async () => {
    for (const kind of ['lead', 'opportunity']) {
      const res = await call(ctx.app, ctx.org.admin.key, 'GET', `/status/${kind}/stat_nope/`)
      expect(res.statusCode).toBe(404)
    }
  })
})
