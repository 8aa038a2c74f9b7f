import { sql } from 'kysely'
import type { Db } from '../../platform/data/database.js'
import type { CheckedActivityFilters } from './activity-filters.js'
import { FALSE } from '../../platform/data/sql-conditions.js'

/**
 * The organization's threads that match activity filters, each with its date: its latest email's `date_created`,
 * which places it in a list ordered by `date_created` and which the date filters bound. `lead_id` is the thread's
 * lead; `user_id` and `contact_id` match a thread with any email of that user or with that contact; no email is about
 * an opportunity or a task, so those filters match none. Unordered: callers order and page it.
 */
export function threadKeysQuery(db: Db, organizationId: string, filters: CheckedActivityFilters) {
  let query = db
    .selectFrom('activity')
    .select([
      sql<string>`thread_id`.as('id'),
      (eb) => eb.fn.max<string>('date_created').as('date_created'),
      sql<string>`'thread'`.as('kind'),
    ])
    .where('organization_id', '=', organizationId)
    .where('type', '=', 'Email')
    .where('thread_id', 'is not', null)
  if (filters.lead_id !== undefined) query = query.where('lead_id', '=', filters.lead_id)
  if (filters.opportunity_id !== undefined || filters.task_id !== undefined) query = query.where(FALSE)
  for (const column of ['user_id', 'contact_id'] as const) {
    const value = filters[column]
    if (value === undefined) continue
    query = query.where('thread_id', 'in', (eb) =>
      eb
        .selectFrom('activity as member')
        .select('member.thread_id')
        .where('member.organization_id', '=', organizationId)
        .where('member.type', '=', 'Email')
        .where(`member.${column}`, '=', value),
    )
  }
  let grouped = query.groupBy('thread_id')
  for (const { op, value } of filters.dates) grouped = grouped.having((eb) => eb.fn.max('date_created'), op, value)
  return grouped
}
