import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { call, createTestContext, type TestContext, type TestOrg } from '../../tooling/test-support/test-app.js'
import { OrganizationLeadIndex } from './lead-index.js'
import { leadIndexWarmingPlan, warmLeadIndexes } from './lead-index-warm.js'
import { searchLeads } from './lead-search.js'

// The lead indexes built when the api starts (lead-index-warm.ts): which organizations, in which order, within the
// indexes' capacity, and that a search after the warm-up finds its organization's index built.

let ctx: TestContext
/** Three organizations with 3, 2 and 1 leads, their leads last changed in that order (the last most recently). */
let older: TestOrg
let newer: TestOrg
let newest: TestOrg
/** And one without leads. */
let empty: TestOrg

async function addLeads(org: TestOrg, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const res = await call(ctx.app, org.admin.key, 'POST', '/lead/', { body: { name: `Lead ${String(i)}` } })
    expect(res.statusCode, res.body).toBe(200)
  }
  ctx.clock.advance(60_000)
}

beforeAll(async () => {
  ctx = await createTestContext()
  older = await ctx.createOrg('Older')
  newer = await ctx.createOrg('Newer')
  newest = await ctx.createOrg('Newest')
  empty = await ctx.createOrg('Empty')
  await addLeads(older, 3)
  await addLeads(newer, 2)
  await addLeads(newest, 1)
})
afterAll(async () => {
  await ctx.close()
})

const now = () => new Date('2026-03-02T00:00:00Z')

/** The organizations whose indexes `run` builds, in order. */
async function builds(run: () => Promise<unknown>): Promise<string[]> {
  const build = vi.spyOn(OrganizationLeadIndex.prototype, 'build')
  try {
    await run()
    return build.mock.contexts.map((index) => (index as OrganizationLeadIndex).organizationId)
  } finally {
    build.mockRestore()
  }
}

describe('the lead indexes built at start', () => {
  it('are those of the organizations with leads, most recently changed first, within the capacity', async () => {
    const { db, dialect } = ctx.database
    expect(await leadIndexWarmingPlan(db, dialect)).toEqual({
      organizationIds: [newest.id, newer.id, older.id],
      leads: 6,
    })
    expect((await leadIndexWarmingPlan(db, dialect)).organizationIds).not.toContain(empty.id)
    // One that would not fit is passed over; a smaller one after it still goes in.
    expect(await leadIndexWarmingPlan(db, dialect, 4)).toEqual({ organizationIds: [newest.id, newer.id], leads: 3 })
    expect(await leadIndexWarmingPlan(db, dialect, 3)).toEqual({ organizationIds: [newest.id, newer.id], leads: 3 })
    expect(await leadIndexWarmingPlan(db, dialect, 0)).toEqual({ organizationIds: [], leads: 0 })
  })

  it('are built one after another, and the next search of each finds its index built', async () => {
    const { db, dialect } = ctx.database
    const plan = await leadIndexWarmingPlan(db, dialect)
    expect(await builds(() => warmLeadIndexes(db, dialect, plan, { now }))).toEqual(plan.organizationIds)
    const search = (organizationId: string) =>
      searchLeads(db, {
        dialect,
        organizationId,
        query: '',
        skip: 0,
        limit: 10,
        now: now(),
        tzOffsetHours: 0,
        engine: 'index',
      })
    expect(await builds(() => Promise.all(plan.organizationIds.map(search)))).toEqual([])
    expect((await search(older.id)).total_results).toBe(3)
  })

  it('stop between organizations once asked to', async () => {
    const { db, dialect } = ctx.database
    const plan = await leadIndexWarmingPlan(db, dialect)
    const stop = new AbortController()
    stop.abort()
    let warmed = -1
    expect(
      await builds(async () => {
        warmed = await warmLeadIndexes(db, dialect, plan, { now, signal: stop.signal })
      }),
    ).toEqual([])
    expect(warmed).toBe(0)
  })
})
