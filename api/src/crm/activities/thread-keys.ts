import { sql, type SqlBool } from 'kysely'
import type { Db } from '../../platform/data/database.js'
import { activityFilters } from './activity-filters.js'
import { columnCondition, type CheckedFilter, type ConditionOf } from '../../platform/data/list-filters.js'
import { FALSE } from '../../platform/data/sql-conditions.js'

/**
 * The organization's threads that match activity filters, each with its date: its latest email's `date_created`,
 * which places it in a list ordered by `date_created` and which the date filters bound. `lead_id` is the thread's
 * lead; `user_id` and `contact_id` match a thread with any email of that user or with that contact; no email is about
 * an opportunity or a task, so those filters match none. Unordered: callers order and page it.
 */
export function threadKeysQuery(db: Db, organizationId: string, filters: CheckedFilter[]) {
  const withEmail =
    (column: 'user_id' | 'contact_id'): ConditionOf =>
    (filter) =>
      sql<SqlBool>`thread_id in (${db
        .selectFrom('activity as member')
        .select('member.thread_id')
        .where('member.organization_id', '=', organizationId)
        .where('member.type', '=', 'Email')
        .where(columnCondition(`member.${column}`, filter))})`
  const query = db
    .selectFrom('activity')
    .select([
      sql<string>`thread_id`.as('id'),
      (eb) => eb.fn.max<string>('date_created').as('date_created'),
      sql<string>`'thread'`.as('kind'),
    ])
    .where('organization_id', '=', organizationId)
    .where('type', '=', 'Email')
    .where('thread_id', 'is not', null)
  const ofEmails = filters.filter((f) => f.field !== 'date_created')
  const dated = filters.filter((f) => f.field === 'date_created')
  const columns = {
    opportunity_id: () => FALSE,
    task_id: () => FALSE,
    user_id: withEmail('user_id'),
    contact_id: withEmail('contact_id'),
    date_created: sql`max(date_created)`,
  }
  const grouped = activityFilters
    .conditions(ofEmails, { columns })
    .reduce((q, condition) => q.where(condition), query)
    .groupBy('thread_id')
  return activityFilters.conditions(dated, { columns }).reduce((q, condition) => q.having(condition), grouped)
}
