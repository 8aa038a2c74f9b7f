import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely'
import { Type, type Static, type TOptional, type TString } from '@sinclair/typebox'
import { nextDay, startOfLocalDay } from '@leadline/shared/task-dates'
import { isTaskType, TASK_TYPES } from '@leadline/shared/task-schema'
import { localDateAt } from '@leadline/shared/tz-offset'
import type { Dialect } from '../../platform/data/database.js'
import { dayOrInstant, parseCalendarDate, timestampBound } from '../custom-fields/custom-values.js'
import type { OrganizationMeta } from '../organizations/organization-meta.js'
import { ValidationError } from '../../platform/http/errors.js'
import { commaValues, listQuerySchema, parseDirected } from '../../platform/http/list.js'
import { formatTimestamp } from '../../platform/data/time.js'

const COMPARATORS = { lt: '<', gt: '>', lte: '<=', gte: '>=' } as const
type Comparator = keyof typeof COMPARATORS
const VIEWS = ['inbox', 'future', 'archive'] as const
export const ORDER_FIELDS = ['date', 'date_created', 'date_updated', 'date_completed'] as const

const text = (description: string) => Type.Optional(Type.String({ description }))
const dateText = 'A date (YYYY-MM-DD, a whole day in X-TZ-Offset) or an ISO 8601 timestamp.'

/** The filters of `GET /task/` and of the bulk `PUT /task/`. */
export const taskFilterProperties: Record<string, TOptional<TString>> = {
  id: text('One task.'),
  id__in: text('Comma-separated task ids.'),
  _type: text(`One of ${TASK_TYPES.join(', ')}, or \`all\`. Without \`_type\` or \`_type__in\`, only \`lead\` tasks.`),
  _type__in: text('Comma-separated task types.'),
  lead_id: text('Tasks of this lead.'),
  assigned_to: text('Tasks assigned to this user.'),
  membership_id: text('Tasks assigned to the user of this membership.'),
  is_complete: text('`true` or `false`.'),
  view: text(
    '`inbox` (open, dated up to the end of the caller’s today in X-TZ-Offset, or dateless), `future` (open, from ' +
      'the caller’s tomorrow) or `archive` (complete). `inbox` and `future` override `date__lt` and `date__gte`.',
  ),
  date: text('Tasks on this day (YYYY-MM-DD, in X-TZ-Offset).'),
  due_date: text('Deprecated: `date`.'),
  ...Object.fromEntries(Object.keys(COMPARATORS).map((c) => [`date__${c}`, text(dateText)])),
  ...Object.fromEntries(Object.keys(COMPARATORS).map((c) => [`due_date__${c}`, text('Deprecated: `date__…`.')])),
  ...Object.fromEntries(
    ['date_created', 'date_updated'].flatMap((f) =>
      Object.keys(COMPARATORS).map((c) => [`${f}__${c}`, text(dateText)]),
    ),
  ),
}

export const taskListQuery = Type.Composite([
  listQuerySchema('task'),
  Type.Object({
    ...taskFilterProperties,
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

const bool = (b: boolean) => (b ? 1 : 0)

/**
 * A condition on `task.date` against one bound. A day bound covers its whole day in the caller's zone (`<= D`
 * includes every task on D); a timestamp bound puts a date-only task at the start of its day, before any timed task
 * at that instant.
 */
function dateCondition(param: string, comparator: Comparator, raw: string, offsetHours: number): RawBuilder<SqlBool> {
  const bound = dayOrInstant(param, raw)
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

/**
 * The conditions the filters make (every one on the `task` table), and whether any filter was given at all.
 * Raises a 400 naming the parameter for a value that is not one.
 */
export function taskConditions(
  raw: Record<string, string | undefined>,
  ctx: FilterContext,
): { conditions: Expression<SqlBool>[]; filtered: boolean } {
  const conditions: Expression<SqlBool>[] = []
  const given = (name: string) => raw[name] !== undefined
  const filtered = Object.keys(taskFilterProperties).some(given)

  if (raw.id !== undefined) conditions.push(sql<SqlBool>`task.id = ${raw.id}`)
  if (raw.id__in !== undefined) conditions.push(inList(sql`task.id`, commaValues(raw.id__in)))

  const types: string[] = []
  for (const param of ['_type', '_type__in'] as const) {
    const value = raw[param]
    if (value === undefined) continue
    const wanted = param === '_type' ? [value.trim()] : commaValues(value)
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

  if (raw.lead_id !== undefined) conditions.push(sql<SqlBool>`task.lead_id = ${raw.lead_id}`)
  if (raw.assigned_to !== undefined) conditions.push(sql<SqlBool>`task.assigned_to = ${raw.assigned_to}`)
  if (raw.membership_id !== undefined) {
    const membership = ctx.meta.organization.memberships.find((m) => m.id === raw.membership_id)
    // Another organization's or an unknown membership matches nobody's tasks.
    conditions.push(sql<SqlBool>`task.assigned_to = ${membership?.user_id ?? ''}`)
  }
  if (raw.is_complete !== undefined) {
    const value = raw.is_complete.trim().toLowerCase()
    const parsed = ['true', '1'].includes(value) ? true : ['false', '0'].includes(value) ? false : undefined
    if (parsed === undefined) throw ValidationError.field('is_complete', 'Must be true or false.')
    conditions.push(sql<SqlBool>`task.is_complete = ${bool(parsed)}`)
  }

  let view: (typeof VIEWS)[number] | undefined
  if (raw.view !== undefined) {
    view = VIEWS.find((v) => v === raw.view)
    if (view === undefined)
      throw ValidationError.field('view', `${JSON.stringify(raw.view)} is not one of ${VIEWS.join(', ')}.`)
    const today = localDateAt(ctx.now, ctx.offsetHours)
    const upToToday = dateCondition('view', 'lte', today, ctx.offsetHours)
    if (view === 'archive') conditions.push(sql<SqlBool>`task.is_complete = 1`)
    else if (view === 'inbox')
      conditions.push(sql<SqlBool>`(task.is_complete = 0 and (task.is_dateless = 1 or ${upToToday}))`)
    else conditions.push(sql<SqlBool>`(task.is_complete = 0 and task.is_dateless = 0 and not ${upToToday})`)
  }
  for (const param of ['date', 'due_date']) {
    const value = raw[param]
    if (value === undefined) continue
    if (parseCalendarDate(value) === undefined) throw ValidationError.field(param, 'Enter a date (YYYY-MM-DD).')
    conditions.push(dateCondition(param, 'gte', value, ctx.offsetHours))
    conditions.push(dateCondition(param, 'lte', value, ctx.offsetHours))
  }
  for (const comparator of Object.keys(COMPARATORS) as Comparator[]) {
    // Close: `view=inbox|future` overrides `date__lt` and `date__gte`.
    const overridden = (view === 'inbox' || view === 'future') && (comparator === 'lt' || comparator === 'gte')
    for (const param of [`date__${comparator}`, `due_date__${comparator}`]) {
      const value = raw[param]
      if (value !== undefined && !overridden) conditions.push(dateCondition(param, comparator, value, ctx.offsetHours))
    }
    for (const field of ['date_created', 'date_updated'] as const) {
      const param = `${field}__${comparator}`
      const value = raw[param]
      if (value === undefined) continue
      conditions.push(
        sql<SqlBool>`${sql.ref(`task.${field}`)} ${sql.raw(COMPARATORS[comparator])} ${timestampBound(param, value)}`,
      )
    }
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
function dateSortKey(dialect: Dialect, offsetHours: number): RawBuilder<string> {
  const minutes = Math.round(-offsetHours * 60)
  if (dialect === 'sqlite') {
    const shift = `${minutes >= 0 ? '+' : ''}${String(minutes)} minutes`
    return sql<string>`(case when task.has_time = 1 then task.date else strftime('%Y-%m-%dT%H:%M:%f', task.date, ${shift}) || '000+00:00' end)`
  }
  return sql<string>`(case when task.has_time = 1 then task.date else to_char(cast(task.date as date) + make_interval(mins => ${minutes}), 'YYYY-MM-DD"T"HH24:MI:SS.US"+00:00"') end)`
}

/** The list's order: by date (date-only first at the same instant) or creation, then by id, so pages never repeat. */
export function taskOrder(raw: string | undefined, dialect: Dialect, offsetHours: number): RawBuilder<unknown>[] {
  const order = parseDirected(raw, '_order_by', ORDER_FIELDS) ?? { field: 'date', descending: false }
  const direction = sql.raw(order.descending ? 'desc' : 'asc')
  const collate = dialect === 'postgres' ? sql` collate "C"` : sql``
  const id = sql`task.id${collate} ${direction}`
  // An open task has no date_completed: it goes last either way, as SQLite and Postgres order nulls differently.
  if (order.field === 'date_completed')
    return [sql`(task.date_completed is null) asc`, sql`task.date_completed ${direction}`, id]
  if (order.field !== 'date') return [sql`${sql.ref(`task.${order.field}`)} ${direction}`, id]
  return [sql`${dateSortKey(dialect, offsetHours)}${collate} ${direction}`, sql`task.has_time ${direction}`, id]
}
