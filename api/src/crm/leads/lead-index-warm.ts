import { sql } from 'kysely'
import type { Db, Dialect } from '../../platform/data/database.js'
import { leadIndexes } from './lead-index.js'
import { searchLeads } from './lead-search.js'

// The lead indexes built when the api starts (docs/decisions/0061), so that the first search of an organization
// after a start or a deploy does not wait for its index to be built: some 1.5 s at 100,000 leads on SQLite, 2 to 3 s
// for the leads list in a browser.

export interface WarmingPlan {
  /** The organizations to build indexes for, most recently changed first. */
  organizationIds: string[]
  leads: number
}

/**
 * The organizations whose indexes to build: those with leads, their leads most recently updated first, as many as
 * this process's indexes hold together (`maxLeads`; an organization that would not fit is passed over, as the next
 * search would evict it again). One row an organization, each its latest update through the organization's index of
 * update times.
 */
export async function leadIndexWarmingPlan(db: Db, dialect: Dialect, maxLeads?: number): Promise<WarmingPlan> {
  const limit = maxLeads ?? leadIndexes(db, dialect).maxLeads
  const { rows } = await sql<{ organization_id: string; leads: number | string }>`
    select c.organization_id, c.leads from organization_lead_count c
    where c.leads > 0
    order by (select max(l.date_updated) from lead l where l.organization_id = c.organization_id) desc,
      c.organization_id`.execute(db)
  const plan: WarmingPlan = { organizationIds: [], leads: 0 }
  for (const row of rows) {
    const leads = Number(row.leads)
    if (plan.leads + leads > limit) continue
    plan.organizationIds.push(row.organization_id)
    plan.leads += leads
  }
  return plan
}

/**
 * Builds the plan's indexes one organization after another, through the path of a first search (the leads list's
 * first page), so that what a search loads first is loaded. Stops between organizations once `signal` is aborted.
 * Resolves to the organizations warmed.
 */
export async function warmLeadIndexes(
  db: Db,
  dialect: Dialect,
  plan: WarmingPlan,
  options: { now: () => Date; signal?: AbortSignal },
): Promise<number> {
  let warmed = 0
  for (const organizationId of plan.organizationIds) {
    if (options.signal?.aborted === true) break
    await searchLeads(db, {
      dialect,
      organizationId,
      query: '',
      skip: 0,
      limit: 1,
      now: options.now(),
      tzOffsetHours: 0,
      engine: 'index',
    })
    warmed++
  }
  return warmed
}
