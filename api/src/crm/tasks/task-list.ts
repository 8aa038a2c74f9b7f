import { sql, type Expression, type RawBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely'
import { Type, type Static } from '@sinclair/typebox'
import { nextDay, startOfLocalDay } from '@leadline/shared/task-dates'
import { isTaskType, TASK_TYPES } from '@leadline/shared/task-schema'
import { localDateAt } from '@leadline/shared/tz-offset'
import type { Dialect } from '../../platform/data/database.js'
import type { DayOrInstant } from '../../platform/data/calendar-dates.js'
import {
  COMPARATORS,
  defineFilters,
  givenValues,
  RANGE_OPS,
  type CheckedFilter,
  type Comparator,
} from '../../platform/data/list-filters.js'
import type { OrganizationMeta } from '../organizations/organization-meta.js'
import { ValidationError } from '../../platform/http/errors.js'
import { listQuerySchema, parseDirected } from '../../platform/http/list.js'
import { formatTimestamp } from '../../platform/data/time.js'

const VIEWS = ['inbox', 'future', 'archive'] as const
export const ORDER_FIELDS = ['date', 'date_created', 'date_updated', 'date_completed'] as const

const text = (description: string) => Type.Optional(Type.String({ description }))
const dateText = 'A date (YYYY-MM-DD, a whole day in X-TZ-Offset) or an ISO 8601 timestamp.'

/** The filters of `GET /task/` and of the bulk `PUT /task/` (also under its body's `_params`). */
export const taskFilters = defineFilters('task', {
  id: { column: 'task.id', ops: ['eq', 'in'], description: { eq: 'One task.', in: 'Comma-separated task ids.' } },
  // Read by taskConditions: `all`, and only lead tasks without either.
  _type: {
    ops: ['eq', 'in'],
    description: {
      eq: `One of ${TASK_TYPES.join(', ')}, or \`all\`. Without \`_type\` or \`_type__in\`, only \`lead\` tasks.`,
      in: 'Comma-separated task types.',
    },
  },
  lead_id: { column: 'task.lead_id', ops: ['eq'], description: 'Tasks of this lead.' },
  assigned_to: { column: 'task.assigned_to', ops: ['eq'], description: 'Tasks assigned to this user.' },
  membership_id: { ops: ['eq'], description: 'Tasks assigned to the user of this membership.' },
  is_complete: { column: 'task.is_complete', kind: 'boolean', ops: ['eq'], description: '`true` or `false`.' },
  view: {
    ops: ['eq'],
    values: VIEWS,
    description:
      '`inbox` (open, dated up to the end of the caller’s today in X-TZ-Offset, or dateless), `future` (open, from ' +
      'the caller’s tomorrow) or `archive` (complete). `inbox` and `future` override `date__lt` and `date__gte`.',
  },
  day: { name: 'date', kind: 'date', ops: ['eq'], description: 'Tasks on this day (YYYY-MM-DD, in X-TZ-Offset).' },
  due_day: { name: 'due_date', kind: 'date', ops: ['eq'], description: 'Deprecated: `date`.' },
  date: { kind: 'date', ops: RANGE_OPS, description: dateText },
  due_date: { kind: 'date', ops: RANGE_OPS, description: 'Deprecated: `date__…`.' },
  date_created: { column: 'task.date_created', kind: 'timestamp', ops: RANGE_OPS, description: dateText },
  date_updated: { column: 'task.date_updated', kind: 'timestamp', ops: RANGE_OPS, description: dateText },
})

export const taskListQuery = Type.Composite([
  listQuerySchema('task'),
  Type.Object({
    ...taskFilters.properties,
    _order_by: text(
      '`date`, `date_created`, `date_updated` or `date_completed` (the archive), a leading "-" for descending. By date, a date-only task comes before the timed ' +
        'tasks of its day in X-TZ-Offset. Default `date`.',
    ),
  }),
])
export type TaskListQuery = Static<typeof taskListQuery>

export interface FilterContext {
  meta: OrganizationMeta
  offsetHours: number
  now: Date
}

/**
 * A condition on `task.date` against one bound. A day bound covers its whole day in the caller's zone (`<= D`
 * includes every task on D); a timestamp bound puts a date-only task at the start of its day, before any timed task
 * at that instant.
 */
function dateCondition(comparator: Comparator, bound: DayOrInstant, offsetHours: number): RawBuilder<SqlBool> {
  const op = sql.raw(COMPARATORS[comparator])
  if ('day' in bound) {
    const day = bound.day
    const dayStart = (d: string) => formatTimestamp(startOfLocalDay(d, offsetHours))
    // Timed tasks: before the day starts (<), before the next day starts (<=), from the next day (>), from the day (>=).
    const timed =
      comparator === 'lt'
        ? sql`task.date < ${dayStart(day)}`
        : comparator === 'lte'
          ? sql`task.date < ${dayStart(nextDay(day))}`
          : comparator === 'gt'
            ? sql`task.date >= ${dayStart(nextDay(day))}`
            : sql`task.date >= ${dayStart(day)}`
    return sql<SqlBool>`((task.has_time = 0 and task.date ${op} ${day}) or (task.has_time = 1 and ${timed}))`
  }
  const at = bound.instant
  const local = localDateAt(new Date(at), offsetHours)
  // A date-only task stands at its day's start: before (or at) `at` when its day is on or before `at`'s day.
  const dateOnly = comparator === 'lt' || comparator === 'lte' ? sql`task.date <= ${local}` : sql`task.date > ${local}`
  return sql<SqlBool>`((task.has_time = 0 and ${dateOnly}) or (task.has_time = 1 and task.date ${op} ${at}))`
}

/** `date=D` (and `due_date=D`): the tasks of day D in the caller's zone; a range bound otherwise. */
function taskDateCondition(filter: CheckedFilter, offsetHours: number): RawBuilder<SqlBool> {
  if (!('values' in filter)) return dateCondition(filter.op, filter.bound, offsetHours)
  const day = { day: String(filter.values[0]) }
  return sql<SqlBool>`(${dateCondition('gte', day, offsetHours)} and ${dateCondition('lte', day, offsetHours)})`
}

/**
 * The conditions the filters make (every one on the `task` table), and whether any filter was given at all.
 * Raises a 400 naming the parameter for a value that is not one.
 */
export function taskConditions(
  raw: Record<string, string | undefined>,
  ctx: FilterContext,
): { conditions: Expression<SqlBool>[]; filtered: boolean } {
  const filtered = [...taskFilters.params].some((name) => raw[name] !== undefined)
  // Close: `view=inbox|future` overrides `date__lt` and `date__gte` (and leaves them unread).
  const closeView = raw.view === 'inbox' || raw.view === 'future'
  const overridden = new Set(closeView ? ['date__lt', 'date__gte', 'due_date__lt', 'due_date__gte'] : [])
  const checked = taskFilters.check(raw, (param) => overridden.has(param))
  const byDate = (filter: CheckedFilter) => taskDateCondition(filter, ctx.offsetHours)
  const conditions: Expression<SqlBool>[] = taskFilters.conditions(checked, {
    columns: { day: byDate, due_day: byDate, date: byDate, due_date: byDate },
  })

  const types: string[] = []
  for (const param of ['_type', '_type__in'] as const) {
    const given = givenValues(checked, param)
    if (given === undefined) continue
    const wanted = given.map((t) => (param === '_type' ? String(t).trim() : String(t)))
    const wrong = wanted.find((t) => !isTaskType(t) && !(param === '_type' && t === 'all'))
    if (wrong !== undefined) {
      throw ValidationError.field(
        param,
        `${JSON.stringify(wrong)} is not one of ${TASK_TYPES.join(', ')}${param === '_type' ? ', all' : ''}.`,
      )
    }
    if (wanted.length === 0) throw ValidationError.field(param, 'Name at least one task type.')
    if (!wanted.includes('all')) conditions.push(inList(sql`task.type`, wanted))
    types.push(...wanted)
  }
  if (types.length === 0) conditions.push(sql<SqlBool>`task.type = 'lead'`)

  if (raw.membership_id !== undefined) {
    const membership = ctx.meta.organization.memberships.find((m) => m.id === raw.membership_id)
    // Another organization's or an unknown membership matches nobody's tasks.
    conditions.push(sql<SqlBool>`task.assigned_to = ${membership?.user_id ?? ''}`)
  }

  const view = givenValues(checked, 'view')?.[0]
  if (view !== undefined) {
    const today = localDateAt(ctx.now, ctx.offsetHours)
    const upToToday = dateCondition('lte', { day: today }, ctx.offsetHours)
    if (view === 'archive') conditions.push(sql<SqlBool>`task.is_complete = 1`)
    else if (view === 'inbox')
      conditions.push(sql<SqlBool>`(task.is_complete = 0 and (task.is_dateless = 1 or ${upToToday}))`)
    else conditions.push(sql<SqlBool>`(task.is_complete = 0 and task.is_dateless = 0 and not ${upToToday})`)
  }
  return { conditions, filtered }
}

function inList(column: RawBuilder<unknown>, wanted: string[]): RawBuilder<SqlBool> {
  if (wanted.length === 0) return sql<SqlBool>`1 = 0`
  return sql<SqlBool>`${column} in (${sql.join(wanted)})`
}

/**
 * The instant a task stands at for a caller, as a wire timestamp: its own for a timed task, the start of its day in
 * the caller's zone for a date-only one. Text order is time order on both dialects.
 */
export function dateSortKey(dialect: Dialect, offsetHours: number): RawBuilder<string> {
  const minutes = Math.round(-offsetHours * 60)
  if (dialect === 'sqlite') {
    const shift = `${minutes >= 0 ? '+' : ''}${String(minutes)} minutes`
    return sql<string>`(case when task.has_time = 1 then task.date else strftime('%Y-%m-%dT%H:%M:%f', task.date, ${shift}) || '000+00:00' end)`
  }
  return sql<string>`(case when task.has_time = 1 then task.date else to_char(cast(task.date as date) + make_interval(mins => ${minutes}), 'YYYY-MM-DD"T"HH24:MI:SS.US"+00:00"') end)`
}

/** `_order_by` read: one of ORDER_FIELDS, by date ascending when none is given; 400 on anything else. */
function orderOf(raw: string | undefined): { field: (typeof ORDER_FIELDS)[number]; descending: boolean } {
  return parseDirected(raw, '_order_by', ORDER_FIELDS) ?? { field: 'date', descending: false }
}

/** The list's order: by date (date-only first at the same instant) or creation, then by id, so pages never repeat. */
export function taskOrder(raw: string | undefined, dialect: Dialect, offsetHours: number): RawBuilder<unknown>[] {
  const order = orderOf(raw)
  const direction = sql.raw(order.descending ? 'desc' : 'asc')
  const collate = dialect === 'postgres' ? sql` collate "C"` : sql``
  const id = sql`task.id${collate} ${direction}`
  // An open task has no date_completed: it goes last either way, as SQLite and Postgres order nulls differently.
  if (order.field === 'date_completed')
    return [sql`(task.date_completed is null) asc`, sql`task.date_completed ${direction}`, id]
  if (order.field !== 'date') return [sql`${sql.ref(`task.${order.field}`)} ${direction}`, id]
  return [sql`${dateSortKey(dialect, offsetHours)}${collate} ${direction}`, sql`task.has_time ${direction}`, id]
}

/**
 * Days beyond the stored date of the last task a page needs, within which every task that can precede it in the
 * date order lies: a date-only task stands at the start of its day in the caller's zone (UTC−12 to UTC+14), so its
 * place is its stored date's midnight shifted by at most 14 hours, and a timed task's is its own instant.
 */
const DATE_WINDOW_DAYS = 2

/**
 * `query` (tasks ordered by `taskOrder`) kept to the tasks a page of `rows` rows in that order can hold, when the order
 * is by date. That order is an expression of the caller's zone, which no index holds, so the database sorted every
 * task the filters select (2,200 in a busy inbox of the 100,000-lead demo) and read each one's whole row to keep 51:
 * 10–13 ms a page on SQLite, which copies the rows into its sorter, 6 ms on Postgres, which fetches them from the
 * table. The task at position `rows` in the stored dates' order is found in the index alone (`task_org_assigned_idx`
 * holds the dates after the organization, assignee and completion), and no task stored more than DATE_WINDOW_DAYS
 * after it (before it, in descending order) can come before the first `rows` + 1 in the caller's order: their places
 * are all later. The page reads the window alone. With fewer tasks than that there is no bound. The bound is a date
 * alone and the comparison strict on its side (`<` the day after the window, `>=` its first day): stored dates and
 * times compare with it the same way under any collation that orders digits, whatever it makes of `-`, `T` and `:`
 * (decision 0093).
 */
export function withinDateWindow<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  rawOrder: string | undefined,
  dialect: Dialect,
  rows: number,
): SelectQueryBuilder<DB, TB, O> {
  const order = orderOf(rawOrder)
  if (order.field !== 'date') return query
  const collate = dialect === 'postgres' ? sql` collate "C"` : sql``
  const nth = query
    .clearSelect()
    .clearOrderBy()
    .clearLimit()
    .clearOffset()
    .select(sql<string>`task.date`.as('date'))
    .orderBy(sql`task.date${collate} ${sql.raw(order.descending ? 'desc' : 'asc')}`)
    .limit(1)
    .offset(rows)
  const days = order.descending ? -DATE_WINDOW_DAYS : DATE_WINDOW_DAYS + 1
  const bound =
    dialect === 'sqlite'
      ? sql<string>`date((${nth}), ${`${days < 0 ? '' : '+'}${String(days)} days`})`
      : sql<string>`to_char(cast(left((${nth}), 10) as date) + ${sql.lit(days)}, 'YYYY-MM-DD')`
  return order.descending
    ? query.where(sql<SqlBool>`task.date >= coalesce(${bound}, '0000-01-01')`)
    : query.where(sql<SqlBool>`task.date < coalesce(${bound}, '9999-12-31')`)
}
