import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, createTestContext, type TestContext, type TestOrg } from '../../tooling/test-support/test-app.js'

// The list's aggregates, orders and groups, checked against a plain recomputation over the opportunities the test
// created (their views as the API returned them).

interface Opp {
  id: string
  user_id: string
  value: number | null
  value_period: 'one_time' | 'monthly' | 'annual'
  annualized_value: number | null
  expected_value: number | null
  annualized_expected_value: number | null
  confidence: number
  date_won: string | null
  date_created: string
  date_updated: string
  status_type: string
  lead_name: string
  user_name: string
}

let ctx: TestContext
beforeAll(async () => {
  ctx = await createTestContext()
})
afterAll(async () => {
  await ctx.close()
})

const PERIODS = ['one_time', 'monthly', 'annual'] as const

function totals(opps: Opp[]) {
  const sum = (pick: (o: Opp) => number | null, period?: string) =>
    opps.filter((o) => period === undefined || o.value_period === period).reduce((t, o) => t + (pick(o) ?? 0), 0)
  return {
    total_results: opps.length,
    count_by_value_period: Object.fromEntries(PERIODS.map((p) => [p, opps.filter((o) => o.value_period === p).length])),
    ...Object.fromEntries(PERIODS.map((p) => [`total_value_${p}`, sum((o) => o.value, p)])),
    total_value_annualized: sum((o) => o.annualized_value),
    ...Object.fromEntries(PERIODS.map((p) => [`expected_value_${p}`, sum((o) => o.expected_value, p)])),
    expected_value_annualized: sum((o) => o.annualized_expected_value),
  }
}

function aggregatesOf(body: Record<string, unknown>) {
  const { has_more: _, data: __, ...rest } = body
  return rest
}

const draft = fc.record({
  value: fc.option(fc.integer({ min: 0, max: 5_000_000 }), { nil: null }),
  value_period: fc.constantFrom(...PERIODS),
  confidence: fc.integer({ min: 0, max: 100 }),
  date_won: fc.option(
    fc.date({ min: new Date('2024-01-01T00:00:00Z'), max: new Date('2026-12-31T00:00:00Z'), noInvalidDate: true }),
    { nil: null },
  ),
  owner: fc.constantFrom('admin', 'member'),
})

type Draft = typeof draft extends fc.Arbitrary<infer T> ? T : never

async function seed(org: TestOrg, drafts: Draft[]): Promise<Opp[]> {
  const lead = (await call(ctx.app, org.admin.key, 'POST', '/lead/', { body: { name: 'Aggregated Co' } })).json()
  const created: Opp[] = []
  for (const d of drafts) {
    const res = await call(ctx.app, org.admin.key, 'POST', '/opportunity/', {
      body: {
        lead_id: lead.id,
        value: d.value,
        value_period: d.value_period,
        confidence: d.confidence,
        date_won: d.date_won?.toISOString().slice(0, 10) ?? null,
        user_id: d.owner === 'admin' ? org.admin.id : org.member.id,
      },
    })
    expect(res.statusCode, res.body).toBe(200)
    created.push(res.json())
  }
  return created
}

async function list(org: TestOrg, query: Record<string, string>) {
  const res = await call(ctx.app, org.member.key, 'GET', '/opportunity/', { query })
  expect(res.statusCode, res.body).toBe(200)
  return res.json<Record<string, unknown> & { data: unknown[]; has_more: boolean }>()
}

/** Every page of a list, `_limit` at a time. */
async function allPages(org: TestOrg, query: Record<string, string>, limit: number) {
  const pages = []
  for (let skip = 0; ; skip += limit) {
    const page = await list(org, { ...query, _skip: String(skip), _limit: String(limit) })
    pages.push(page)
    if (!page.has_more) return pages
  }
}

const byId = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

describe('GET /opportunity/ aggregates, orders and groups', () => {
  it('aggregates every match regardless of paging, filtered or not, after changes and deletions, as a recomputation does', async () => {
    const change = fc.record({ index: fc.nat(), update: fc.option(draft, { nil: undefined }) })
    await fc.assert(
      fc.asyncProperty(
        fc.array(draft, { minLength: 0, maxLength: 10 }),
        fc.array(change, { maxLength: 6 }),
        async (drafts, changes) => {
          const org = await ctx.createOrg('Aggregates Inc')
          let opps = await seed(org, drafts)
          // Changed or deleted rows move the sums the rollup keeps (migration 0010) as much as new ones do.
          for (const { index, update } of changes) {
            const target = opps[index % Math.max(opps.length, 1)]
            if (target === undefined) break
            if (update === undefined) {
              await call(ctx.app, org.admin.key, 'DELETE', `/opportunity/${target.id}/`)
              opps = opps.filter((o) => o.id !== target.id)
            } else {
              const res = await call(ctx.app, org.admin.key, 'PUT', `/opportunity/${target.id}/`, {
                body: {
                  value: update.value,
                  value_period: update.value_period,
                  confidence: update.confidence,
                  date_won: update.date_won?.toISOString().slice(0, 10) ?? null,
                  user_id: update.owner === 'admin' ? org.admin.id : org.member.id,
                },
              })
              expect(res.statusCode, res.body).toBe(200)
              opps = opps.map((o) => (o.id === target.id ? res.json<Opp>() : o))
            }
          }
          // From the rollup: no filter, or filters it answers.
          expect(aggregatesOf(await list(org, { _limit: '2' }))).toEqual(totals(opps))
          const monthlyOrAnnual = await list(org, { value_period__in: 'monthly,annual', user_id: org.member.id })
          expect(aggregatesOf(monthlyOrAnnual)).toEqual(
            totals(opps.filter((o) => o.value_period !== 'one_time' && o.user_id === org.member.id)),
          )
          const wonSince = await list(org, { date_won__gte: '2025-07-01' })
          expect(aggregatesOf(wonSince)).toEqual(
            totals(opps.filter((o) => o.date_won !== null && o.date_won >= '2025-07-01')),
          )
          // From the rows: a filter the rollup cannot answer.
          expect(aggregatesOf(await list(org, { date_created__gt: '2000-01-01' }))).toEqual(totals(opps))
        },
      ),
      { numRuns: 6 },
    )
  })

  it('orders by each field, nulls last, ties by id, so that pages never repeat or skip', async () => {
    const org = await ctx.createOrg('Orders Inc')
    const drafts = fc.sample(draft, { numRuns: 9, seed: 7 })
    const opps = await seed(org, [...drafts, { ...(drafts[0] as Draft), value: drafts[0]?.value ?? 5 }])
    const fields: [string, (o: Opp) => number | string | null][] = [
      ['value', (o) => o.value],
      ['annualized_value', (o) => o.annualized_value],
      ['confidence', (o) => o.confidence],
      ['date_won', (o) => o.date_won],
      ['user_name', (o) => o.user_name.toLowerCase()],
      // Ordered by value × confidence, which ranks as the rounded expected value does, ties apart.
      ['expected_value', (o) => (o.value === null ? null : o.value * o.confidence)],
      ['lead_name', (o) => o.lead_name.toLowerCase()],
      ['date_created', (o) => o.date_created],
      ['date_updated', (o) => o.date_updated],
    ]
    for (const [field, pick] of fields) {
      for (const descending of [false, true]) {
        const expected = [...opps]
          .sort((a, b) => {
            const [x, y] = [pick(a), pick(b)]
            const direction = descending ? -1 : 1
            if (x === null || y === null) return x === y ? byId(a.id, b.id) * direction : x === null ? 1 : -1
            const c = x < y ? -1 : x > y ? 1 : 0
            return (c === 0 ? byId(a.id, b.id) : c) * direction
          })
          .map((o) => o.id)
        const pages = await allPages(org, { _order_by: `${descending ? '-' : ''}${field}` }, 3)
        expect(
          pages.flatMap((p) => (p.data as { id: string }[]).map((o) => o.id)),
          `${descending ? '-' : ''}${field}`,
        ).toEqual(expected)
      }
    }
  })

  it('groups by month won: ordered, null last, each group with its own aggregates and order, cut across pages by key', async () => {
    const org = await ctx.createOrg('Groups Inc')
    const opps = await seed(org, fc.sample(draft, { numRuns: 14, seed: 11 }))
    for (const descending of [false, true]) {
      const pages = await allPages(org, { _group_by: `${descending ? '-' : ''}date_won__month`, _limit: '4' }, 4)
      for (const page of pages) expect(aggregatesOf(page)).toEqual(totals(opps))
      const groups = pages.flatMap((p) => p.data as { key: string | null; objects: Opp[]; month: number | null }[])
      // A group cut at a page edge shows up once per page, under the same key.
      const keys = groups.map((g) => g.key).filter((k, i, all) => i === 0 || all[i - 1] !== k)
      const months = [...new Set(opps.map((o) => o.date_won?.slice(0, 7) ?? null))]
      const dated = months.filter((m): m is string => m !== null).sort()
      expect(keys).toEqual([...(descending ? dated.reverse() : dated), ...(months.includes(null) ? [null] : [])])
      for (const group of groups) {
        const members = opps.filter((o) => (o.date_won?.slice(0, 7) ?? null) === group.key)
        const {
          key: _,
          objects,
          month,
          ...rest
        } = group as Record<string, unknown> & {
          objects: Opp[]
          month: number | null
        }
        const { year: __, ...aggregates } = rest
        expect(aggregates).toEqual(totals(members))
        expect(month).toBe(group.key === null ? null : Number(group.key.slice(5, 7)))
        expect(objects.every((o) => members.some((m) => m.id === o.id))).toBe(true)
      }
      expect(groups.flatMap((g) => g.objects.map((o) => o.id)).sort()).toEqual(opps.map((o) => o.id).sort())
      // Inside a group, the list's own order: newest first, ties by id.
      for (const group of groups) {
        const inOrder = [...group.objects].sort((a, b) =>
          a.date_created === b.date_created ? byId(b.id, a.id) : a.date_created < b.date_created ? 1 : -1,
        )
        expect(group.objects.map((o) => o.id)).toEqual(inOrder.map((o) => o.id))
      }
    }
    // `_order_by` orders inside each group: by value, highest first, nulls last, ties by id.
    const byValue = await allPages(org, { _group_by: 'date_won__month', _order_by: '-value' }, 4)
    const valueGroups = byValue.flatMap((p) => p.data as { key: string | null; objects: Opp[] }[])
    for (const group of valueGroups) {
      const inOrder = [...group.objects].sort((a, b) => {
        if (a.value === null || b.value === null)
          return a.value === b.value ? byId(b.id, a.id) : a.value === null ? 1 : -1
        return a.value === b.value ? byId(b.id, a.id) : b.value - a.value
      })
      expect(group.objects.map((o) => o.id)).toEqual(inOrder.map((o) => o.id))
    }
    // Every grouping reads the same objects in the same order whatever the page size.
    for (const field of [
      'date_won__week',
      'date_won__quarter',
      'date_won__year',
      '-date_won__month',
      'user_id',
      '-user_id',
    ]) {
      const ids = (pages: { data: unknown[] }[]) =>
        pages.flatMap((p) => (p.data as { objects: { id: string }[] }[]).flatMap((g) => g.objects.map((o) => o.id)))
      const whole = ids(await allPages(org, { _group_by: field }, 250))
      expect(whole).toHaveLength(opps.length)
      expect(ids(await allPages(org, { _group_by: field }, 3)), field).toEqual(whole)
    }
  })

  it("answers every group without its objects when _limit is 0, in the list's group order, after deletions", async () => {
    const org = await ctx.createOrg('Report Inc')
    let opps = await seed(org, fc.sample(draft, { numRuns: 30, seed: 7 }))
    // A deleted opportunity that was alone in its month leaves no empty group behind.
    const months = (os: Opp[]) => os.map((o) => o.date_won?.slice(0, 7) ?? null)
    const lonely = opps.find((o) => months(opps).filter((m) => m === months([o])[0]).length === 1)
    if (lonely === undefined) throw new Error('no opportunity alone in its month')
    await call(ctx.app, org.admin.key, 'DELETE', `/opportunity/${lonely.id}/`)
    opps = opps.filter((o) => o.id !== lonely.id)
    // A third of them lost, for a filter on the status's type to leave out.
    const statuses = (await call(ctx.app, org.admin.key, 'GET', '/status/opportunity/')).json().data
    const lost = statuses.find((s: { type: string }) => s.type === 'lost')
    for (const [i, o] of opps.entries()) {
      if (i % 3 !== 0) continue
      const res = await call(ctx.app, org.admin.key, 'PUT', `/opportunity/${o.id}/`, { body: { status_id: lost.id } })
      expect(res.statusCode, res.body).toBe(200)
      opps[i] = res.json<Opp>()
    }
    expect(new Set(opps.map((o) => o.status_type))).toEqual(new Set(['active', 'lost']))
    const cases = [
      { field: 'date_won__month', keyOf: (o: Opp) => o.date_won?.slice(0, 7) ?? null },
      { field: 'date_won__year', keyOf: (o: Opp) => o.date_won?.slice(0, 4) ?? null },
      { field: 'user_id', keyOf: (o: Opp) => o.user_id },
    ]
    for (const { field, keyOf } of cases) {
      for (const descending of [false, true]) {
        const query = { _group_by: `${descending ? '-' : ''}${field}`, _limit: '0' }
        // Filtered through the rows (value_period) as well as through the rollup, with a status's own column too.
        for (const [filter, members] of [
          [{}, opps],
          [{ value_period: 'monthly' }, opps.filter((o) => o.value_period === 'monthly')],
          [{ status_type__in: 'active,won' }, opps.filter((o) => ['active', 'won'].includes(o.status_type))],
          [{ date_won__gte: '2025-07-01' }, opps.filter((o) => o.date_won !== null && o.date_won >= '2025-07-01')],
        ] as const) {
          const page = await list(org, { ...query, ...filter })
          expect(page.has_more).toBe(members.length > 0)
          expect(aggregatesOf(page)).toEqual(totals(members))
          const groups = page.data as (Record<string, unknown> & { key: string | null; objects: unknown[] })[]
          // The same groups, in the same order, as the grouped list that pages through every object.
          const paged = (await allPages(org, { _group_by: query._group_by, ...filter }, 250))
            .flatMap((p) => p.data as { key: string | null }[])
            .map((g) => g.key)
          expect(groups.map((g) => g.key)).toEqual(paged)
          expect(new Set(groups.map((g) => g.key))).toEqual(new Set(members.map(keyOf)))
          for (const { key, objects, ...rest } of groups) {
            expect(objects).toEqual([])
            const aggregates = Object.fromEntries(Object.entries(rest).filter(([k]) => k in totals([])))
            expect(aggregates).toEqual(totals(members.filter((o) => keyOf(o) === key)))
            if (field === 'date_won__month') expect(rest.month).toBe(key === null ? null : Number(key.slice(5, 7)))
            if (field === 'user_id') expect(rest.user_name).toBe(members.find((o) => o.user_id === key)?.user_name)
          }
        }
      }
    }
    const empty = await list(org, { _group_by: 'user_id', _limit: '0', date_won__gte: '2099-01-01' })
    expect(empty).toMatchObject({ has_more: false, total_results: 0, data: [] })
  })

  it('groups by owner (by name), by ISO week, quarter and year', async () => {
    const org = await ctx.createOrg('Owners Inc')
    await seed(org, [
      {
        value: 100,
        value_period: 'one_time',
        confidence: 50,
        date_won: new Date('2026-01-01T00:00:00Z'),
        owner: 'member',
      },
      {
        value: 200,
        value_period: 'monthly',
        confidence: 50,
        date_won: new Date('2025-12-29T00:00:00Z'),
        owner: 'admin',
      },
      {
        value: 300,
        value_period: 'annual',
        confidence: 50,
        date_won: new Date('2026-04-01T00:00:00Z'),
        owner: 'admin',
      },
    ])
    const owners = (await list(org, { _group_by: 'user_id' })).data as { user_name: string; total_results: number }[]
    // Ada Admin before Rey Rep.
    expect(owners.map((g) => [g.user_name, g.total_results])).toEqual([
      ['Ada Admin', 2],
      ['Rey Rep', 1],
    ])
    // 29 December 2025 and 1 January 2026 are both in ISO week 1 of 2026.
    const weeks = (await list(org, { _group_by: 'date_won__week' })).data as Record<string, unknown>[]
    expect(weeks.map((g) => [g.key, g.weekyear, g.week, g.total_results])).toEqual([
      ['2026-W01', 2026, 1, 2],
      ['2026-W14', 2026, 14, 1],
    ])
    const quarters = (await list(org, { _group_by: '-date_won__quarter' })).data as Record<string, unknown>[]
    expect(quarters.map((g) => [g.key, g.year, g.quarter])).toEqual([
      ['2026-Q2', 2026, 2],
      ['2026-Q1', 2026, 1],
      ['2025-Q4', 2025, 4],
    ])
    const years = (await list(org, { _group_by: 'date_won__year' })).data as Record<string, unknown>[]
    expect(years.map((g) => [g.key, g.year, g.total_value_annualized])).toEqual([
      ['2025', 2025, 2_400],
      ['2026', 2026, 400],
    ])
  })

  it.each([
    [{ _order_by: 'colour' }, '_order_by'],
    [{ _order_by: '-' }, '_order_by'],
    [{ _group_by: 'date_won__day' }, '_group_by'],
    [{ status_type: 'pending' }, 'status_type'],
    [{ value_period__in: 'monthly,weekly' }, 'value_period__in'],
    [{ date_won__gt: 'last tuesday' }, 'date_won__gt'],
    [{ date_created__lt: '2026-13-01' }, 'date_created__lt'],
    [{ _limit: '251' }, '_limit'],
  ])('refuses %o with a field error naming it', async (query, field) => {
    const res = await call(ctx.app, ctx.org.member.key, 'GET', '/opportunity/', { query })
    expect(res.statusCode, res.body).toBe(400)
    expect(Object.keys(res.json()['field-errors'])).toEqual([field])
  })

  it('filters by status type, pipeline, label and dates', async () => {
    const org = await ctx.createOrg('Filters Inc')
    const opps = await seed(org, fc.sample(draft, { numRuns: 8, seed: 3 }))
    const statuses = (await call(ctx.app, org.admin.key, 'GET', '/status/opportunity/')).json().data
    const won = statuses.find((s: { type: string }) => s.type === 'won')
    const target = opps[0]
    if (target === undefined) throw new Error('no opportunity')
    await call(ctx.app, org.admin.key, 'PUT', `/opportunity/${target.id}/`, { body: { status_id: won.id } })
    const ids = async (query: Record<string, string>) =>
      ((await list(org, query)).data as { id: string }[]).map((o) => o.id).sort()
    expect(await ids({ status_type: 'won' })).toEqual([target.id])
    expect(await ids({ status_label__in: `${String(won.label).toUpperCase()},Nope` })).toEqual([target.id])
    expect(await ids({ status_type__in: 'active,lost' })).toEqual(
      opps
        .slice(1)
        .map((o) => o.id)
        .sort(),
    )
    expect(await ids({ pipeline_id: won.pipeline_id })).toEqual(opps.map((o) => o.id).sort())
    const dated = opps.filter((o) => o.date_won !== null && o.date_won >= '2025-06-01').map((o) => o.id)
    expect(await ids({ date_won__gte: '2025-06-01' })).toEqual(dated.sort())
    expect(await ids({ date_created__gt: '2099-01-01' })).toEqual([])
  })
})
