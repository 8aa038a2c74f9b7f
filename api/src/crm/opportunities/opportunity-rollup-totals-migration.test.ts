import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { migrateToLatest, migrateUpTo } from '../../platform/data/migrate.js'
import { call, createTestContext, type TestContext } from '../../tooling/test-support/test-app.js'

// Migration 0058 on opportunities written before it: the table of totals is taken back (Kysely's migrateTo goes down
// as well as up), opportunities are changed while it is gone, and it is made again. It must then hold what the
// opportunities add up to, and keep doing so as they change.

let ctx: TestContext
let leadId = ''
const made: string[] = []

beforeAll(async () => {
  ctx = await createTestContext()
  leadId = (await call(ctx.app, ctx.org.admin.key, 'POST', '/lead/', { body: { name: 'Totals Co' } })).json<{
    id: string
  }>().id
  const drafts = [
    { value: 120_000, value_period: 'one_time', confidence: 50, user_id: ctx.org.admin.id },
    { value: 3_000, value_period: 'monthly', confidence: 33, user_id: ctx.org.member.id },
    { value: 90_050, value_period: 'annual', confidence: 75, user_id: ctx.org.admin.id, date_won: '2026-02-03' },
    { value: null, value_period: 'one_time', confidence: 10, user_id: ctx.org.member.id },
    { value: 7_777, value_period: 'monthly', confidence: 100, user_id: ctx.org.admin.id, date_won: '2026-05-06' },
  ]
  for (const body of drafts) made.push(await opportunity(body))
})
afterAll(async () => {
  await ctx.close()
})

async function opportunity(body: Record<string, unknown>): Promise<string> {
  const res = await call(ctx.app, ctx.org.admin.key, 'POST', '/opportunity/', { body: { lead_id: leadId, ...body } })
  expect(res.statusCode, res.body).toBe(200)
  return res.json<{ id: string }>().id
}

type Row = Record<string, string | number>

/** Rows as plain numbers and strings, in key order (Postgres sends sums of bigints as text). */
function normalized(rows: Row[]): Row[] {
  return rows
    .map((row) =>
      Object.fromEntries(Object.entries(row).map(([k, v]) => [k, /^-?\d+$/.test(String(v)) ? Number(v) : v])),
    )
    .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))
}

/** The totals as the table holds them. */
async function stored(): Promise<Row[]> {
  const rows = await ctx.database.db
    .selectFrom('opportunity_rollup_total')
    .select([
      'organization_id',
      'status_id',
      'user_id',
      'value_period',
      'opportunities',
      'value',
      'annualized',
      'expected',
      'annualized_expected',
    ])
    .execute()
  return normalized(rows)
}

/** The totals added up from the opportunities themselves, as each opportunity's view counts it. */
async function recomputed(): Promise<Row[]> {
  const value = sql`coalesce(value, 0)`
  const annualized = sql`(case when value_period = 'monthly' then ${value} * 12 else ${value} end)`
  const rows = await sql<Row>`select organization_id, status_id, coalesce(user_id, '') as user_id, value_period,
      count(*) as opportunities, sum(${value}) as value, sum(${annualized}) as annualized,
      sum(round(${value} * confidence / 100.0)) as expected, sum(round(${annualized} * confidence / 100.0))
        as annualized_expected
    from opportunity group by 1, 2, 3, 4`.execute(ctx.database.db)
  return normalized(rows.rows)
}

describe('migration 0058: the opportunity rollup without days', () => {
  it('is filled from what the opportunities add up to when it is made again', async () => {
    expect(await migrateUpTo(ctx.database.db, '0057-opportunity-status-order-index')).toContain(
      '0058-opportunity-rollup-totals',
    )
    // Changed while the table and its triggers are gone: only the rollup sees these.
    const update = await call(ctx.app, ctx.org.admin.key, 'PUT', `/opportunity/${made[0] ?? ''}/`, {
      body: { value: 250_000, confidence: 80 },
    })
    expect(update.statusCode, update.body).toBe(200)
    const removed = await call(ctx.app, ctx.org.admin.key, 'DELETE', `/opportunity/${made[1] ?? ''}/`)
    expect(removed.statusCode, removed.body).toBe(200)
    expect(await migrateToLatest(ctx.database.db)).toContain('0058-opportunity-rollup-totals')
    const expected = await recomputed()
    expect(expected.length).toBeGreaterThan(1)
    expect(await stored()).toEqual(expected)
  })

  it('follows creates, updates and deletes through its triggers, rows that count nothing removed', async () => {
    made.push(await opportunity({ value: 4_321, value_period: 'annual', confidence: 20, user_id: ctx.org.member.id }))
    const moved = await call(ctx.app, ctx.org.admin.key, 'PUT', `/opportunity/${made[2] ?? ''}/`, {
      body: { value_period: 'one_time', user_id: ctx.org.member.id },
    })
    expect(moved.statusCode, moved.body).toBe(200)
    const removed = await call(ctx.app, ctx.org.admin.key, 'DELETE', `/opportunity/${made[4] ?? ''}/`)
    expect(removed.statusCode, removed.body).toBe(200)
    expect(await stored()).toEqual(await recomputed())
    expect((await stored()).every((row) => Number(row.opportunities) > 0)).toBe(true)
  })

  it('answers the list’s sums from it as the opportunities add them up', async () => {
    const res = await call(ctx.app, ctx.org.member.key, 'GET', '/opportunity/', { query: { _limit: '1' } })
    expect(res.statusCode, res.body).toBe(200)
    const body = res.json<Record<string, number>>()
    const rows = await recomputed()
    const sum = (column: string, period?: string) =>
      rows.filter((r) => period === undefined || r.value_period === period).reduce((t, r) => t + Number(r[column]), 0)
    expect(body.total_results).toBe(sum('opportunities'))
    expect(body.total_value_one_time).toBe(sum('value', 'one_time'))
    expect(body.total_value_annualized).toBe(sum('annualized'))
    expect(body.expected_value_monthly).toBe(sum('expected', 'monthly'))
    expect(body.expected_value_annualized).toBe(sum('annualized_expected'))
  })
})
