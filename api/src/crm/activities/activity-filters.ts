import type { SelectQueryBuilder } from 'kysely'
import type { Tables } from '../../platform/data/database.js'
import { ValidationError } from '../../platform/http/errors.js'
import type { ListQuery } from '../../platform/http/list.js'
import { parseTimestamp, TIMESTAMP_EXPECTED } from '../../platform/data/time.js'

/** The filters every activity list takes, as the query string gives them. */
export type ActivityFilters = ListQuery & {
  lead_id?: string
  user_id?: string
  contact_id?: string
  opportunity_id?: string
  task_id?: string
  date_created__gt?: string
  date_created__gte?: string
  date_created__lt?: string
  date_created__lte?: string
}

const DATE_OPS = {
  date_created__gt: '>',
  date_created__gte: '>=',
  date_created__lt: '<',
  date_created__lte: '<=',
} as const

/** A `date_created` bound in stored form, so text comparison is time comparison. */
export interface DateBound {
  op: (typeof DATE_OPS)[keyof typeof DATE_OPS]
  value: string
}

/** The filters checked: equality ones as given, `date_created` bounds in stored form. */
export interface CheckedActivityFilters {
  lead_id?: string
  user_id?: string
  contact_id?: string
  opportunity_id?: string
  task_id?: string
  dates: DateBound[]
}

/** Checks the filters of a list: a timestamp in any ISO form, else a 400 on its parameter. */
export function checkActivityFilters(query: ActivityFilters): CheckedActivityFilters {
  const dates: DateBound[] = []
  for (const [param, op] of Object.entries(DATE_OPS) as [keyof typeof DATE_OPS, DateBound['op']][]) {
    const raw = query[param]
    if (raw === undefined) continue
    const value = parseTimestamp(raw)
    if (value === undefined) throw ValidationError.field(param, TIMESTAMP_EXPECTED)
    dates.push({ op, value })
  }
  const { lead_id, user_id, contact_id, opportunity_id, task_id } = query
  return { lead_id, user_id, contact_id, opportunity_id, task_id, dates }
}

/** Applies the filters to a query of the `activity` table. */
export function whereActivityFilters<O>(
  query: SelectQueryBuilder<Tables, 'activity', O>,
  filters: CheckedActivityFilters,
): SelectQueryBuilder<Tables, 'activity', O> {
  let q = query
  for (const column of ['lead_id', 'user_id', 'contact_id', 'opportunity_id', 'task_id'] as const) {
    const value = filters[column]
    if (value !== undefined) q = q.where(column, '=', value)
  }
  for (const { op, value } of filters.dates) q = q.where('date_created', op, value)
  return q
}
