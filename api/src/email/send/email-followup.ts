import type { Task } from '@leadline/shared/task-schema'
import type { Db } from '../../platform/data/database.js'
import { recordEvents, type EventContext } from '../../integrations/events/event-repo.js'
import { organizationMetaIn } from '../../crm/organizations/organization-meta.js'
import { taskEvent } from '../../crm/tasks/task-events.js'
import { insertTask, taskViews, type TaskRow } from '../../crm/tasks/task-repo.js'
import { parseJsonObject } from '../../platform/http/raw-json.js'
import { bodyPreview } from '../../platform/text/email-text.js'

// Follow-ups (docs/decisions/0031-emails-and-sending.md): an email sent with a `followup_date` gets an
// `email_followup` task on that date for its user, about its thread; a reply in the thread deletes the thread's open
// follow-ups, since the reason for them ("no answer yet") is gone.

/** Task views as the transaction sees them, in UTC. */
async function views(tx: Db, organizationId: string, rows: TaskRow[], now: string): Promise<Task[]> {
  if (rows.length === 0) return []
  const meta = await organizationMetaIn(tx, organizationId)
  if (meta === undefined) return []
  return taskViews(tx, meta, rows, { offsetHours: 0, now: new Date(now) })
}

/** An email a follow-up is about. */
export interface FollowedEmail {
  organizationId: string
  activityId: string
  leadId: string
  contactId: string | null
  userId: string
  threadId: string
  subject: string
  bodyText: string
  followupDate: string
}

/** Makes the email's `email_followup` task, dated its `followup_date` and assigned to its user, with its event. */
export async function createFollowup(tx: Db, email: FollowedEmail, now: string, events: EventContext): Promise<string> {
  const id = await insertTask(tx, {
    organizationId: email.organizationId,
    leadId: email.leadId,
    type: 'email_followup',
    assignedTo: email.userId,
    contactId: email.contactId,
    date: email.followupDate,
    today: now.slice(0, 10),
    objectId: email.threadId,
    data: { email_id: email.activityId, subject: email.subject, body_preview: bodyPreview(email.bodyText) },
    userId: null,
    now,
  })
  const row = await tx.selectFrom('task').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
  const [view] = await views(tx, email.organizationId, [row], now)
  if (view !== undefined) await recordEvents(tx, events, [taskEvent(view, 'created')])
  return id
}

/** Deletes a thread's open follow-ups (only the one of `emailId` when given), with their `deleted` events. */
async function deleteFollowups(
  tx: Db,
  input: { organizationId: string; threadId: string; now: string; events: EventContext },
  emailId?: string,
): Promise<void> {
  const open = (
    await tx
      .selectFrom('task')
      .selectAll()
      .where('organization_id', '=', input.organizationId)
      .where('type', '=', 'email_followup')
      .where('object_id', '=', input.threadId)
      .where('is_complete', '=', 0)
      .execute()
  ).filter((task) => emailId === undefined || parseJsonObject(task.data).email_id === emailId)
  if (open.length === 0) return
  const before = await views(tx, input.organizationId, open, input.now)
  await tx
    .deleteFrom('task')
    .where('organization_id', '=', input.organizationId)
    .where(
      'id',
      'in',
      open.map((t) => t.id),
    )
    .execute()
  await recordEvents(
    tx,
    input.events,
    before.map((view) => taskEvent(view, 'deleted')),
  )
}

/**
 * A reply came into the thread: its open follow-up tasks are deleted (with their `deleted` events) rather than
 * completed, as nobody did them and the inbox's archive would show them done. Export for incoming mail.
 */
export async function replyArrived(
  tx: Db,
  input: { organizationId: string; threadId: string; now: string; events: EventContext },
): Promise<void> {
  await deleteFollowups(tx, input)
}

/** An email is deleted: its open follow-up goes with it. */
export async function emailDeleted(
  tx: Db,
  input: { organizationId: string; threadId: string; emailId: string; now: string; events: EventContext },
): Promise<void> {
  await deleteFollowups(tx, input, input.emailId)
}
