import { LAST_ACTIVITY_TYPES, type LeadSummary } from '@leadline/shared/lead-summary-schema'
import { sql, type RawBuilder } from 'kysely'
import type { Db } from '../../platform/data/database.js'

/**
 * The summaries of the organization's leads among `leadIds`, in the order asked; ids of no lead of the organization
 * are left out. One query: each lead's newest call, email, note or SMS is the end of its run of activity_last_idx
 * (migration 0053), which holds those four kinds only.
 */
export async function leadSummaries(
  db: Db,
  organizationId: string,
  leadIds: readonly string[],
): Promise<LeadSummary[]> {
  if (leadIds.length === 0) return []
  const rows = await summariesQuery(db, organizationId, leadIds).execute()
  const byId = new Map(rows.map((r) => [r.lead_id, r.date_last_activity ?? null]))
  return leadIds.flatMap((id) => {
    const last = byId.get(id)
    return last === undefined ? [] : [{ lead_id: id, date_last_activity: last }]
  })
}

/**
 * The activity types a last activity is made of, as SQL literals: the condition of activity_last_idx (migration
 * 0053), which serves a query only when its own condition says so in the same constants (not bound parameters).
 */
export const LAST_ACTIVITY_TYPE_LIST: RawBuilder<unknown> = sql.join(LAST_ACTIVITY_TYPES.map((type) => sql.lit(type)))

/**
 * A lead's last activity as a correlated subquery on `lead`, for the summaries and for `sort:last_activity`: the
 * newest of its calls, emails, notes and texts, one seek backwards in activity_last_idx.
 */
export function lastActivityOfLead(): RawBuilder<string | null> {
  return sql<string | null>`(select activity.date_created from activity
    where activity.organization_id = lead.organization_id and activity.lead_id = lead.id
      and activity.type in (${LAST_ACTIVITY_TYPE_LIST})
    order by activity.date_created desc limit 1)`
}

/** The query, apart so that tests can read its plan. */
export function summariesQuery(db: Db, organizationId: string, leadIds: readonly string[]) {
  return db
    .selectFrom('lead')
    .where('lead.organization_id', '=', organizationId)
    .where('lead.id', 'in', leadIds)
    .select(['lead.id as lead_id', lastActivityOfLead().as('date_last_activity')])
}
