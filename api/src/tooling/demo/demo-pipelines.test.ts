// The demo organization's pipelines: the default one reused and reshaped, a second one added.

import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createTestContext, type TestContext } from '../test-support/test-app.js'
import { seedDemoOrganization } from './demo-seed.js'

let ctx: TestContext

beforeEach(async () => {
  ctx = await createTestContext()
})
afterEach(async () => {
  await ctx.close()
})

async function pipelinesOf(organizationId: string) {
  const db = ctx.database.db
  const pipelines = await db
    .selectFrom('pipeline')
    .select(['id', 'name'])
    .where('organization_id', '=', organizationId)
    .orderBy('position')
    .execute()
  const statuses = await db
    .selectFrom('opportunity_status')
    .select(['pipeline_id', 'label', 'type'])
    .where('organization_id', '=', organizationId)
    .orderBy('position')
    .execute()
  return pipelines.map((p) => ({
    name: p.name,
    statuses: statuses.filter((s) => s.pipeline_id === p.id).map((s) => `${s.label} (${s.type})`),
  }))
}

describe('the demo organization', () => {
  it('has two pipelines, Sales and Renewals, with their statuses in order', async () => {
    const demo = await seedDemoOrganization(ctx.database.db, ctx.clock)
    expect(await pipelinesOf(demo.organization_id)).toEqual([
      {
        name: 'Sales',
        statuses: [
          'Qualification (active)',
          'Demo (active)',
          'Proposal (active)',
          'Negotiation (active)',
          'Won (won)',
          'Lost (lost)',
        ],
      },
      { name: 'Renewals', statuses: ['Upcoming (active)', 'In review (active)', 'Renewed (won)', 'Churned (lost)'] },
    ])
    // Other organizations keep their default pipeline.
    expect(await pipelinesOf(ctx.org.id)).toEqual([
      { name: 'Sales', statuses: ['Active (active)', 'Won (won)', 'Lost (lost)'] },
    ])
  })
})
