import { sql } from 'kysely'
import type { Db } from '../../platform/data/database.js'
import { insertTask, newTaskRow, updateTask } from './task-repo.js'

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
      await updateTask(db, opportunity.organization_id, existing.id, moved, change)
      return
    }
    const same =
      existing.is_complete === 0 &&
      existing.date === due &&
      existing.lead_id === opportunity.lead_id &&
      existing.contact_id === opportunity.contact_id &&
      existing.assigned_to === opportunity.user_id
    if (same) return
    await updateTask(
      db,
      opportunity.organization_id,
      existing.id,
      {
        lead_id: opportunity.lead_id,
        contact_id: opportunity.contact_id,
        assigned_to: opportunity.user_id,
        date: due,
        has_time: 0,
        is_dateless: 0,
        is_complete: 0,
        date_completed: null,
      },
      change,
    )
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
  await updateTask(db, opportunity.organization_id, existing.id, { is_complete: 1, date_completed: change.now }, change)
}

/** How many due tasks one insert carries when a status's type change makes them (well under SQLite's 32,766 values). */
const DUE_ROWS_PER_INSERT = 500

/**
 * Brings the due tasks of every opportunity in a status in step after the status's type changed, in a few
 * statements whatever the number of opportunities: won or lost completes the open ones; active reopens and
 * redates the others from their opportunities, and makes the missing ones.
 */
export async function syncOpportunityDueOfStatus(
  db: Db,
  organizationId: string,
  statusId: string,
  statusType: string,
  change: DueChange,
): Promise<void> {
  const dated = db
    .selectFrom('opportunity')
    .where('opportunity.organization_id', '=', organizationId)
    .where('opportunity.status_id', '=', statusId)
    .where('opportunity.date_won', 'is not', null)
  const dueTasks = db
    .updateTable('task')
    .where('task.organization_id', '=', organizationId)
    .where('task.type', '=', 'opportunity_due')
    .where('task.object_id', 'in', dated.select('opportunity.id'))
  const stamp = { updated_by: change.userId, date_updated: change.now }
  if (statusType !== 'active') {
    await dueTasks
      .where('task.is_complete', '=', 0)
      .set({ is_complete: 1, date_completed: change.now, ...stamp })
      .execute()
    return
  }
  // An open task already due that day is left as it is, as one opportunity's sync leaves it. Every task here
  // belongs to a dated opportunity of the status, so each subquery finds one row.
  const of = <T>(column: 'lead_id' | 'contact_id' | 'user_id' | 'date_won') =>
    sql<T>`(select ${sql.ref(`opportunity.${column}`)} from opportunity where opportunity.id = task.object_id)`
  const dueDay = of<string>('date_won')
  await dueTasks
    .where((eb) => eb.or([eb('task.is_complete', '=', 1), eb('task.date', '<>', dueDay)]))
    .set({
      lead_id: of<string>('lead_id'),
      contact_id: of<string | null>('contact_id'),
      assigned_to: of<string | null>('user_id'),
      date: dueDay,
      has_time: 0,
      is_dateless: 0,
      is_complete: 0,
      date_completed: null,
      ...stamp,
    })
    .execute()
  const missing = await dated
    .select([
      'opportunity.id',
      'opportunity.lead_id',
      'opportunity.contact_id',
      'opportunity.user_id',
      'opportunity.date_won',
    ])
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('task')
            .select('task.id')
            .where('task.organization_id', '=', organizationId)
            .where('task.type', '=', 'opportunity_due')
            .whereRef('task.object_id', '=', 'opportunity.id'),
        ),
      ),
    )
    .execute()
  for (let at = 0; at < missing.length; at += DUE_ROWS_PER_INSERT) {
    const rows = missing.slice(at, at + DUE_ROWS_PER_INSERT).map((opportunity) =>
      newTaskRow({
        organizationId,
        leadId: opportunity.lead_id,
        type: 'opportunity_due',
        assignedTo: opportunity.user_id,
        contactId: opportunity.contact_id,
        date: opportunity.date_won,
        today: change.today,
        objectId: opportunity.id,
        userId: change.userId,
        now: change.now,
      }),
    )
    await db.insertInto('task').values(rows).execute()
  }
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
