import type { Db } from '../db/database.js'
import { insertTask } from './task-repo.js'

/** What an `opportunity_due` task follows of its opportunity. */
export interface DueSource {
  id: string
  organization_id: string
  lead_id: string
  contact_id: string | null
  user_id: string | null
  date_won: string | null
}

export interface DueChange {
  /** Who made the change that moved the opportunity; null for the system. */
  userId: string | null
  now: string
  today: string
}

/**
 * Keeps an opportunity's `opportunity_due` task in step with it: an active opportunity with a `date_won` has one,
 * open, dated that day and assigned to its owner; without a `date_won` its open one goes; won or lost, it is
 * completed. A completed one is opened again when the opportunity is active and dated again. `previous` is the
 * opportunity before an update: when it was already due that day, only its owner and contact are followed.
 */
export async function syncOpportunityDue(
  db: Db,
  opportunity: DueSource,
  statusType: string,
  change: DueChange,
  previous?: { opportunity: DueSource; statusType: string },
): Promise<void> {
  const existing = await db
    .selectFrom('task')
    .select(['id', 'lead_id', 'contact_id', 'assigned_to', 'date', 'is_complete'])
    .where('organization_id', '=', opportunity.organization_id)
    .where('type', '=', 'opportunity_due')
    .where('object_id', '=', opportunity.id)
    .executeTakeFirst()
  const due = statusType === 'active' ? opportunity.date_won : null
  if (due !== null) {
    if (existing === undefined) {
      await insertTask(db, {
        organizationId: opportunity.organization_id,
        leadId: opportunity.lead_id,
        type: 'opportunity_due',
        assignedTo: opportunity.user_id,
        contactId: opportunity.contact_id,
        date: due,
        today: change.today,
        objectId: opportunity.id,
        userId: change.userId,
        now: change.now,
      })
      return
    }
    // Still due the same day as before the change: only what changed follows (a task its user completed, or
    // moved, stays so through an edit of the note or the value).
    const wasDue = previous === undefined || previous.statusType !== 'active' ? null : previous.opportunity.date_won
    if (previous !== undefined && wasDue === due) {
      const moved: { lead_id?: string; contact_id?: string | null; assigned_to?: string | null } = {}
      if (existing.lead_id !== opportunity.lead_id) moved.lead_id = opportunity.lead_id
      if (previous.opportunity.contact_id !== opportunity.contact_id) moved.contact_id = opportunity.contact_id
      if (previous.opportunity.user_id !== opportunity.user_id) moved.assigned_to = opportunity.user_id
      if (Object.keys(moved).length === 0) return
      await db
        .updateTable('task')
        .set({ ...moved, updated_by: change.userId, date_updated: change.now })
        .where('organization_id', '=', opportunity.organization_id)
        .where('id', '=', existing.id)
        .execute()
      return
    }
    const same =
      existing.is_complete === 0 &&
      existing.date === due &&
      existing.lead_id === opportunity.lead_id &&
      existing.contact_id === opportunity.contact_id &&
      existing.assigned_to === opportunity.user_id
    if (same) return
    await db
      .updateTable('task')
      .set({
        lead_id: opportunity.lead_id,
        contact_id: opportunity.contact_id,
        assigned_to: opportunity.user_id,
        date: due,
        has_time: 0,
        is_dateless: 0,
        is_complete: 0,
        date_completed: null,
        updated_by: change.userId,
        date_updated: change.now,
      })
      .where('organization_id', '=', opportunity.organization_id)
      .where('id', '=', existing.id)
      .execute()
    return
  }
  if (existing === undefined || existing.is_complete === 1) return
  if (statusType === 'active') {
    await db
      .deleteFrom('task')
      .where('organization_id', '=', opportunity.organization_id)
      .where('id', '=', existing.id)
      .execute()
    return
  }
  await db
    .updateTable('task')
    .set({ is_complete: 1, date_completed: change.now, updated_by: change.userId, date_updated: change.now })
    .where('organization_id', '=', opportunity.organization_id)
    .where('id', '=', existing.id)
    .execute()
}

/** Brings the due tasks of every opportunity in a status in step after the status's type changed. */
export async function syncOpportunityDueOfStatus(
  db: Db,
  organizationId: string,
  statusId: string,
  statusType: string,
  change: DueChange,
): Promise<void> {
  const opportunities = await db
    .selectFrom('opportunity')
    .select(['id', 'organization_id', 'lead_id', 'contact_id', 'user_id', 'date_won'])
    .where('organization_id', '=', organizationId)
    .where('status_id', '=', statusId)
    .where('date_won', 'is not', null)
    .execute()
  for (const opportunity of opportunities) await syncOpportunityDue(db, opportunity, statusType, change)
}

/** Deletes the due task of an opportunity that is going away. */
export async function deleteOpportunityDue(db: Db, organizationId: string, opportunityId: string): Promise<void> {
  await db
    .deleteFrom('task')
    .where('organization_id', '=', organizationId)
    .where('type', '=', 'opportunity_due')
    .where('object_id', '=', opportunityId)
    .execute()
}
