import { sql, type RawBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely'
import { Type, type Static } from '@sinclair/typebox'
import { VALUE_PERIODS, type ValuePeriod } from '@leadline/shared/money'
import type { OpportunityAggregates } from '@leadline/shared/opportunity-schema'
import { OPPORTUNITY_STATUS_TYPES } from '@leadline/shared/status-schema'
import type { Db, Dialect, Tables } from '../../platform/data/database.js'
import { maxQueryLength } from '../leads/lead-search-parse.js'
import { commaValues, listQuerySchema, parseDirected } from '../../platform/http/list.js'
import {
  columnCondition,
  defineFilters,
  defineOrder,
  notNull,
  RANGE_OPS,
  type CheckedFilter,
  type ConditionOf,
  type Comparator,
  type FilterSpec,
} from '../../platform/data/list-filters.js'
import { displayNameSql } from '../users/user-names.js'

// The opportunity list: filters, an order, aggregates over every match, and groups by owner or by when they were
// won. Everything is computed by the database over the organization's matches, never from a page.

const comma = 'Comma-separated values.'
const eqIn = (
  column: string | RawBuilder<unknown>,
  more: Partial<FilterSpec> = {},
): FilterSpec & { ops: readonly ['eq', 'in'] } => ({ ...more, column, ops: ['eq', 'in'], description: { in: comma } })
const dateRange = (column: string, kind: 'date' | 'timestamp'): FilterSpec & { ops: readonly Comparator[] } => ({
  column,
  kind,
  ops: RANGE_OPS,
  description: 'A date (YYYY-MM-DD) or an ISO 8601 timestamp.',
})

const opportunityFilters = defineFilters('opportunity', {
  lead_id: eqIn('opportunity.lead_id'),
  user_id: eqIn('opportunity.user_id'),
  contact_id: eqIn('opportunity.contact_id'),
  pipeline_id: eqIn('opportunity_status.pipeline_id'),
  status_id: eqIn('opportunity.status_id'),
  status_label: eqIn(sql`lower(opportunity_status.label)`, { lowercase: true }),
  status_type: eqIn('opportunity_status.type', { values: OPPORTUNITY_STATUS_TYPES }),
  value_period: eqIn('opportunity.value_period', { values: VALUE_PERIODS }),
  date_created: dateRange('opportunity.date_created', 'timestamp'),
  date_updated: dateRange('opportunity.date_updated', 'timestamp'),
  date_won: dateRange('opportunity.date_won', 'date'),
})

/** The owner's display name. */
const userName = sql<string>`(select ${displayNameSql('u')} from "user" u where u.id = opportunity.user_id)`
const leadName = sql<string>`(select l.name from lead l where l.id = opportunity.lead_id)`

const opportunityOrder = defineOrder({
  date_won: 'opportunity.date_won',
  date_updated: notNull('opportunity.date_updated'),
  date_created: notNull('opportunity.date_created'),
  value: 'opportunity.value',
  annualized_value: () =>
    sql`(case when opportunity.value_period = 'monthly' then opportunity.value * 12 else opportunity.value end)`,
  expected_value: () => sql`(opportunity.value * opportunity.confidence)`,
  confidence: notNull('opportunity.confidence'),
  user_name: (collate) => sql`lower(${userName})${collate}`,
  lead_name: (collate) => sql`lower(${leadName})${collate}`,
})
export const ORDER_FIELDS = opportunityOrder.fields
/** The list's filters as schema properties, for another route that takes them (an export's `params`). */
export const OPPORTUNITY_FILTER_PROPERTIES = opportunityFilters.properties
export const GROUP_FIELDS = [
  'user_id',
  'date_won__week',
  'date_won__month',
  'date_won__quarter',
  'date_won__year',
] as const
type GroupField = (typeof GROUP_FIELDS)[number]

export const opportunityListQuery = Type.Composite([
  listQuerySchema('opportunity'),
  Type.Object({
    ...opportunityFilters.properties,
    query: Type.Optional(
      Type.String({
        maxLength: maxQueryLength,
        description:
          'An opportunity search: words find notes; `note:`, `value` and `confidence` (with `:`, `>`, `>=`, `<`, ' +
          '`<=`; `value` in the smallest currency unit, cents, as stored), `value_period:`, `status:` (label or id), ' +
          '`status_id:`, `status_type:`, `pipeline:` (name or id), `pipeline_id:`, `user:` (display name or id), ' +
          '`user_id:`, `date_won`, `created` and `updated` (dates, times or relative dates like "30 days ago", in ' +
          'X-TZ-Offset), `id:`, `lead_id:`, `contact_id:`, and `status_change(old_status:Demo new_status:Won ' +
          'date>"30 days ago")` (also `old_status_type:`, `new_status_type:`, `user:`); AND, OR, NOT, `-` and ' +
          'parentheses as in the lead search. Text matches ignore case.',
      }),
    ),
    lead_query: Type.Optional(
      Type.String({
        maxLength: maxQueryLength,
        description: 'A lead search (as `query` of GET /lead/): only opportunities of the leads it finds.',
      }),
    ),
    _order_by: Type.Optional(
      Type.String({ description: `One of ${ORDER_FIELDS.join(', ')}; a leading "-" sorts descending.` }),
    ),
    _group_by: Type.Optional(
      Type.String({ description: `One of ${GROUP_FIELDS.join(', ')}; a leading "-" reverses the groups.` }),
    ),
  }),
])
export type OpportunityListQuery = Static<typeof opportunityListQuery>

type OppQuery = SelectQueryBuilder<Tables, 'opportunity' | 'opportunity_status', object>

/** The organization's opportunities that match the filters, joined to their status. */
export function filteredOpportunities(
  db: Db,
  organizationId: string,
  query: OpportunityListQuery,
  tzOffsetHours: number,
  searches: RawBuilder<SqlBool>[] = [],
): OppQuery {
  // A cross join with its condition in WHERE is an inner join on both databases, and tells SQLite to loop over the
  // opportunities outside: joined as it was, SQLite started from the statuses of a `pipeline_id` and read every
  // opportunity of each through its status index to sort them, where the order's own index finds a page in a few
  // hundred rows (1.5 s against under 1 ms at a million).
  let q: OppQuery = db
    .selectFrom('opportunity')
    .crossJoin('opportunity_status')
    .whereRef('opportunity_status.id', '=', 'opportunity.status_id')
    .where('opportunity.organization_id', '=', organizationId)
  for (const condition of opportunityFilters.conditions(opportunityFilters.check(query), { tzOffsetHours })) {
    q = q.where(condition)
  }
  // `query` and `lead_query`, compiled by opportunity-query.ts.
  for (const condition of searches) q = q.where(condition)
  return q
}

/** `value`, or 0 without one. */
const value = sql<number>`coalesce(opportunity.value, 0)`
const annualized = sql<number>`(case when opportunity.value_period = 'monthly' then ${value} * 12 else ${value} end)`
/** What a value is worth at its confidence, rounded per opportunity as each opportunity shows it. */
const expected = (of: RawBuilder<number>) => sql<number>`round(${of} * opportunity.confidence / 100.0)`

/** What each opportunity (or rollup row) adds to the sums: its count, value, and the figures made from them. */
interface Contribution {
  period: RawBuilder<unknown>
  count: RawBuilder<number>
  value: RawBuilder<number>
  annualized: RawBuilder<number>
  expected: RawBuilder<number>
  annualizedExpected: RawBuilder<number>
}

const ROW_CONTRIBUTION: Contribution = {
  period: sql`opportunity.value_period`,
  count: sql<number>`1`,
  value,
  annualized,
  expected: expected(value),
  annualizedExpected: expected(annualized),
}

/**
 * The rollup (migration 0010) added up again from every opportunity, each adding what ROW_CONTRIBUTION says, as the
 * rollup's triggers add it: after a bulk load that set those triggers aside (the demo seed, demo-bulk-write.ts).
 */
export async function rebuildOpportunityRollup(db: Db): Promise<void> {
  const row = ROW_CONTRIBUTION
  await sql`delete from opportunity_rollup`.execute(db)
  await sql`insert into opportunity_rollup (organization_id, status_id, user_id, value_period, date_won,
      opportunities, value, annualized, expected, annualized_expected)
    select opportunity.organization_id, opportunity.status_id, coalesce(opportunity.user_id, ''), ${row.period},
      coalesce(opportunity.date_won, ''), sum(${row.count}), sum(${row.value}), sum(${row.annualized}),
      sum(${row.expected}), sum(${row.annualizedExpected})
    from opportunity group by 1, 2, 3, 4, 5`.execute(db)
  await sql`delete from opportunity_rollup_total`.execute(db)
  await sql`insert into opportunity_rollup_total (organization_id, status_id, user_id, value_period, opportunities,
      value, annualized, expected, annualized_expected)
    select organization_id, status_id, user_id, value_period, sum(opportunities), sum(value), sum(annualized),
      sum(expected), sum(annualized_expected)
    from opportunity_rollup group by 1, 2, 3, 4`.execute(db)
}

/** The aggregate columns, named as the response names them. */
function aggregateSelections(from: Contribution = ROW_CONTRIBUTION) {
  const total = (of: RawBuilder<number>) => sql<number>`coalesce(sum(${of}), 0)`
  const inPeriod = (p: ValuePeriod, of: RawBuilder<number>) =>
    total(sql<number>`case when ${from.period} = ${p} then ${of} else 0 end`)
  return [
    total(from.count).as('total_results'),
    ...VALUE_PERIODS.map((p) => inPeriod(p, from.count).as(`count_${p}`)),
    ...VALUE_PERIODS.map((p) => inPeriod(p, from.value).as(`total_value_${p}`)),
    total(from.annualized).as('total_value_annualized'),
    ...VALUE_PERIODS.map((p) => inPeriod(p, from.expected).as(`expected_value_${p}`)),
    total(from.annualizedExpected).as('expected_value_annualized'),
  ]
}

export type Aggregates = OpportunityAggregates

/** Postgres sends sums of bigints as text. */
function aggregatesOf(row: Record<string, unknown>): Aggregates {
  const n = (key: string) => Number(row[key] ?? 0)
  return {
    total_results: n('total_results'),
    count_by_value_period: { one_time: n('count_one_time'), monthly: n('count_monthly'), annual: n('count_annual') },
    total_value_one_time: n('total_value_one_time'),
    total_value_monthly: n('total_value_monthly'),
    total_value_annual: n('total_value_annual'),
    total_value_annualized: n('total_value_annualized'),
    expected_value_one_time: n('expected_value_one_time'),
    expected_value_monthly: n('expected_value_monthly'),
    expected_value_annual: n('expected_value_annual'),
    expected_value_annualized: n('expected_value_annualized'),
  }
}

/** Aggregates of disjoint sets of matches, added up. */
export function sumAggregates(parts: Aggregates[]): Aggregates {
  const sum = (pick: (a: Aggregates) => number) => parts.reduce((total, part) => total + pick(part), 0)
  return {
    total_results: sum((a) => a.total_results),
    count_by_value_period: {
      one_time: sum((a) => a.count_by_value_period.one_time),
      monthly: sum((a) => a.count_by_value_period.monthly),
      annual: sum((a) => a.count_by_value_period.annual),
    },
    total_value_one_time: sum((a) => a.total_value_one_time),
    total_value_monthly: sum((a) => a.total_value_monthly),
    total_value_annual: sum((a) => a.total_value_annual),
    total_value_annualized: sum((a) => a.total_value_annualized),
    expected_value_one_time: sum((a) => a.expected_value_one_time),
    expected_value_monthly: sum((a) => a.expected_value_monthly),
    expected_value_annual: sum((a) => a.expected_value_annual),
    expected_value_annualized: sum((a) => a.expected_value_annualized),
  }
}

export async function aggregate(q: OppQuery): Promise<Aggregates> {
  const row = await q.select(aggregateSelections()).executeTakeFirstOrThrow()
  return aggregatesOf(row)
}

/** The key an opportunity's group is known by: `2026-03`, `2026-Q1`, `2026-W09`, `2026`, or the owner's id. */
export function groupKey(
  field: GroupField,
  dialect: Dialect,
  columns: { dateWon: RawBuilder<unknown>; userId: RawBuilder<unknown> } = {
    dateWon: sql`opportunity.date_won`,
    userId: sql`opportunity.user_id`,
  },
): RawBuilder<string | null> {
  const won = columns.dateWon
  switch (field) {
    case 'user_id':
      return sql`${columns.userId}`
    case 'date_won__year':
      return sql`substr(${won}, 1, 4)`
    case 'date_won__month':
      return sql`substr(${won}, 1, 7)`
    case 'date_won__quarter':
      return sql`(substr(${won}, 1, 4) || '-Q' || cast((cast(substr(${won}, 6, 2) as integer) + 2) / 3 as text))`
    case 'date_won__week':
      return dialect === 'sqlite' ? sql`strftime('%G-W%V', ${won})` : sql`to_char(cast(${won} as date), 'IYYY"-W"IW')`
  }
}

/** The list's order: newest first by default, else as `_order_by` says, ties by id. */
function orderTerms(
  order: { field: (typeof ORDER_FIELDS)[number]; descending: boolean } | undefined,
  dialect: Dialect,
): RawBuilder<unknown>[] {
  if (order !== undefined) return opportunityOrder.terms(order, 'opportunity.id', dialect)
  const collate = dialect === 'postgres' ? sql` collate "C"` : sql``
  return [sql`opportunity.date_created desc`, sql`opportunity.id${collate} desc`]
}

/**
 * The list's order, and its groups when grouped. A grouped list orders inside each group only: which groups a page
 * runs over, and in what order, comes from the groups' sizes (`pageGroups`).
 */
export function listOrder(
  query: OpportunityListQuery,
  dialect: Dialect,
): { terms: RawBuilder<unknown>[]; group: { field: GroupField; descending: boolean } | undefined } {
  return {
    terms: orderTerms(opportunityOrder.parse(query._order_by), dialect),
    group: parseDirected(query._group_by, '_group_by', GROUP_FIELDS),
  }
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0')
}

function isoDay(date: Date): string {
  return date.toISOString().slice(0, 10)
}

/** The Monday of ISO week `week` of ISO year `year`: the week holding 4 January is week 1. */
function isoWeekMonday(year: number, week: number): Date {
  const january4 = new Date(Date.UTC(year, 0, 4))
  const monday = new Date(january4.getTime() - ((january4.getUTCDay() + 6) % 7) * 86_400_000)
  return new Date(monday.getTime() + (week - 1) * 7 * 86_400_000)
}

/**
 * The days `[from, to)` a date group's key covers (`2026`, `2026-Q1`, `2026-03`, `2026-W09`), so that a page reads
 * a group's opportunities through the `date_won` index; undefined for an owner's group.
 */
export function groupDays(field: GroupField, key: string): { from: string; to: string } | undefined {
  const year = Number(key.slice(0, 4))
  const month = (first: number, months: number) => ({
    from: `${pad(year, 4)}-${pad(first, 2)}-01`,
    to: isoDay(new Date(Date.UTC(year, first - 1 + months, 1))),
  })
  switch (field) {
    case 'date_won__year':
      return month(1, 12)
    case 'date_won__quarter':
      return month((Number(key.slice(6)) - 1) * 3 + 1, 3)
    case 'date_won__month':
      return month(Number(key.slice(5, 7)), 1)
    case 'date_won__week': {
      const monday = isoWeekMonday(year, Number(key.slice(6)))
      return { from: isoDay(monday), to: isoDay(new Date(monday.getTime() + 7 * 86_400_000)) }
    }
    case 'user_id':
      return undefined
  }
}

/** The groups' keys in the list's order: by `sortKey` then key, reversed with "-", the key-less group last. */
export function groupOrder(
  keys: (string | null)[],
  descending: boolean,
  sortKey: (key: string) => string = (key) => key,
): (string | null)[] {
  const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
  const keyed = keys
    .filter((k): k is string => k !== null)
    .sort((a, b) => compare(sortKey(a), sortKey(b)) || compare(a, b))
  if (descending) keyed.reverse()
  return keys.includes(null) ? [...keyed, null] : keyed
}

/**
 * The groups a page of a grouped list runs over, in the list's order, with how many of each group's objects
 * to skip and take: a page then reads the few groups it touches through the `date_won` index instead of ordering
 * every match. `counts` are the groups' sizes; `limit` asks for one object past the page (to learn `has_more`).
 * Owners' groups sort by `sortKey` (their lower-cased name), then by id; a reversed list reverses both.
 */
export function pageGroups(
  counts: Map<string | null, number>,
  descending: boolean,
  skip: number,
  limit: number,
  /** How keys sort (owners by name); by the key itself when absent. */
  sortKey: (key: string) => string = (key) => key,
): { key: string | null; skip: number; take: number }[] {
  const keys = groupOrder([...counts.keys()], descending, sortKey)
  const parts: { key: string | null; skip: number; take: number }[] = []
  let start = 0
  let wanted = limit
  for (const key of keys) {
    const size = counts.get(key) ?? 0
    const end = start + size
    if (wanted > 0 && end > skip) {
      const from = Math.max(0, skip - start)
      const take = Math.min(size - from, wanted)
      if (take > 0) parts.push({ key, skip: from, take })
      wanted -= Math.max(take, 0)
    }
    start = end
    if (wanted <= 0) break
  }
  return parts
}

/** Each group's aggregates over every match, by key (`null` for opportunities without one). */
export async function groupAggregates(
  q: OppQuery,
  group: { field: GroupField },
  dialect: Dialect,
): Promise<Map<string | null, Aggregates>> {
  const key = groupKey(group.field, dialect)
  const rows = await q
    .select([key.as('group_key'), ...aggregateSelections()])
    .groupBy(key)
    .execute()
  return new Map(
    rows.map((row) => {
      const record = row as Record<string, unknown>
      const k = record.group_key
      return [typeof k === 'string' ? k : null, aggregatesOf(record)]
    }),
  )
}

// --- sums from the rollup (migration 0010) ---

/** The filters the rollup can answer: anything else (a lead, a contact, a search, other dates) reads the rows. */
const ROLLUP_COLUMN: Record<string, string | RawBuilder<unknown> | ConditionOf> = {
  user_id: 'opportunity_rollup.user_id',
  pipeline_id: 'opportunity_status.pipeline_id',
  status_id: 'opportunity_rollup.status_id',
  status_label: sql`lower(opportunity_status.label)`,
  status_type: 'opportunity_status.type',
  value_period: 'opportunity_rollup.value_period',
}

const ROLLUP_FIELDS = new Set<string>(Object.keys(ROLLUP_COLUMN))
/** The filters that read the opportunity's status row beside the rollup's. */
const STATUS_FILTERS = new Set(['pipeline_id', 'status_label', 'status_type'])

/** The sums of rows with the rollup's columns: its own, or a day's of one value period (`rollupAggregates`). */
function rollupContribution(table: 'opportunity_rollup' | 'days'): Contribution {
  const column = (name: string) => sql<number>`${sql.ref(`${table}.${name}`)}`
  return {
    period: column('value_period'),
    count: column('opportunities'),
    value: column('value'),
    annualized: column('annualized'),
    expected: column('expected'),
    annualizedExpected: column('annualized_expected'),
  }
}

/**
 * The list's sums (and its groups' sums, when grouped) from the rollup, when every filter is one it can answer;
 * undefined otherwise. The same figures as adding up the rows (the list's tests compare both with a recomputation).
 */
export async function rollupAggregates(
  db: Db,
  organizationId: string,
  query: OpportunityListQuery,
  group: { field: GroupField } | undefined,
  dialect: Dialect,
  tzOffsetHours: number,
): Promise<{ totals: Aggregates; groups: Map<string | null, Aggregates> | undefined } | undefined> {
  const raw = query as Record<string, string | undefined>
  const filtered = Object.keys(raw).filter((k) => !k.startsWith('_') && raw[k] !== undefined)
  const answerable = filtered.every((k) => {
    const field = k.endsWith('__in') ? k.slice(0, -'__in'.length) : k
    return ROLLUP_FIELDS.has(field) || k.startsWith('date_won__')
  })
  // A filter on an empty value would meet the rollup's '' (no owner, no day) where the rows hold null.
  if (!answerable || filtered.some((k) => commaValues(raw[k] ?? '').length === 0)) return undefined
  // The status's own columns only when a filter names them (its pipeline, label or type).
  const byStatus = filtered.some((k) => STATUS_FILTERS.has(k.endsWith('__in') ? k.slice(0, -'__in'.length) : k))
  // Sums that need no day (no date_won filter, no group by a period of it) add up the rollup's totals (migration
  // 0058), a row per status, owner and period, under the rollup's name: they have its columns but the day.
  const byDay = filtered.some((k) => k.startsWith('date_won__')) || (group !== undefined && group.field !== 'user_id')
  const rollup = byDay
    ? db.selectFrom('opportunity_rollup')
    : (db.selectFrom('opportunity_rollup_total as opportunity_rollup') as unknown as ReturnType<
        typeof db.selectFrom<'opportunity_rollup'>
      >)
  let q = (
    byStatus ? rollup.innerJoin('opportunity_status', 'opportunity_status.id', 'opportunity_rollup.status_id') : rollup
  ).where('opportunity_rollup.organization_id', '=', organizationId)
  const wonColumn = 'opportunity_rollup.date_won'
  const columns = {
    ...ROLLUP_COLUMN,
    // The rollup's day is '' where the rows hold null, which no range may match.
    date_won: (f: CheckedFilter) =>
      sql<SqlBool>`(${sql.ref(wonColumn)} <> '' and ${columnCondition(wonColumn, f, tzOffsetHours)})`,
  }
  for (const condition of opportunityFilters.conditions(opportunityFilters.check(query), { tzOffsetHours, columns })) {
    q = q.where(condition)
  }
  if (group?.field === 'user_id') {
    const key = groupKey(group.field, dialect, {
      dateWon: sql`nullif(opportunity_rollup.date_won, '')`,
      userId: sql`nullif(opportunity_rollup.user_id, '')`,
    })
    const rows = await q
      .select([key.as('group_key'), ...aggregateSelections(rollupContribution('opportunity_rollup'))])
      .groupBy(key)
      .execute()
    return groupedAggregates(rows)
  }
  // The totals alone: the matching rollup rows added up, through whichever index the filters name (a board column's
  // status: its rows only, where walking the days read every row of the organization, 27 ms against 2 at a million).
  if (group === undefined) {
    const totals = await q
      .select(aggregateSelections(rollupContribution('opportunity_rollup')))
      .executeTakeFirstOrThrow()
    return { totals: aggregatesOf(totals), groups: undefined }
  }
  // The groups by a period of date_won: each day's sums first, walking the rollup in order of day (migration 0047)
  // without sorting its rows, then the days' (a few thousand at most) by the period's key.
  const sum = (column: string) => sql<number>`sum(${sql.ref(`opportunity_rollup.${column}`)})`
  const days = q
    .select([
      sql<string>`opportunity_rollup.date_won`.as('day'),
      sql<string>`opportunity_rollup.value_period`.as('value_period'),
      sum('opportunities').as('opportunities'),
      sum('value').as('value'),
      sum('annualized').as('annualized'),
      sum('expected').as('expected'),
      sum('annualized_expected').as('annualized_expected'),
    ])
    .groupBy(['opportunity_rollup.date_won', 'opportunity_rollup.value_period'])
    .as('days')
  const ofDays = db.selectFrom(days)
  const key = groupKey(group.field, dialect, { dateWon: sql`nullif(days.day, '')`, userId: sql`null` })
  const rows = await ofDays
    .select([key.as('group_key'), ...aggregateSelections(rollupContribution('days'))])
    .groupBy(key)
    .execute()
  return groupedAggregates(rows)
}

/** Groups' aggregate rows by their key, and their totals. */
function groupedAggregates(rows: readonly object[]): { totals: Aggregates; groups: Map<string | null, Aggregates> } {
  const groups = new Map(
    rows.map((row) => {
      const record = row as Record<string, unknown>
      const k = record.group_key
      return [typeof k === 'string' ? k : null, aggregatesOf(record)] as const
    }),
  )
  return { totals: sumAggregates([...groups.values()]), groups }
}
