import { recordActivity, type ActivityData, type EmailAttachment } from '../../crm/activities/activity-repo.js'
import { deleteActivity } from '../../crm/activities/activity-routes.js'
import type { ActivityTable, Db } from '../../platform/data/database.js'
import type { ChangeContext, EventContext } from '../../integrations/events/event-repo.js'
import { stopSend } from '../../integrations/messages/message-send.js'
import { emailBodies } from '../../platform/text/email-text.js'
import { createFollowup, emailDeleted, replyArrived } from './email-followup.js'
import { EMAIL_CHANNEL } from './email-send.js'
import { assignThread, deleteThreadIfEmpty, emailOfMessageId, recordMessageIds } from './email-thread.js'

// Storing an email, made through the API or received: its thread first, then the activity and its event, the
// Message-IDs it carries, and what it means for follow-ups (a reply clears the thread's; one sent with a
// `followup_date` gets its task).

export type EmailData = ActivityData['Email']

/**
 * An email's stored fields in their fixed order: `direction` first, which the view's reply lookup relies on
 * (email-view.ts), then the rest as given.
 */
export function emailData(fields: EmailData): EmailData {
  const { direction, ...rest } = fields
  return { direction, ...rest }
}

/** An email to store. */
export interface NewEmail {
  organizationId: string
  leadId: string
  contactId: string | null
  userId: string
  /** Who made it, when not its user. */
  createdBy?: string
  data: EmailData
  /** Message-IDs its `In-Reply-To` and `References` name, most telling first: they find its thread. */
  threadHints?: readonly string[]
  /**
   * A received email's sender check (decision 0039). One that failed is stored but is no reply for follow-ups: its
   * sender may not be the contact it claims to be.
   */
  senderCheck?: { result: 'pass' | 'fail' | 'none'; reason: string }
  now: string
}

/** Stores an email in its thread, with its events, Message-IDs, and follow-up effects, in the caller's transaction. */
export async function storeEmail(
  tx: Db,
  email: NewEmail,
  events: EventContext,
): Promise<{ activityId: string; threadId: string }> {
  const { data } = email
  const threadId = await assignThread(tx, {
    organizationId: email.organizationId,
    leadId: email.leadId,
    subject: data.subject,
    inReplyToId: data.in_reply_to_id,
    messageIds: email.threadHints ?? [],
    now: email.now,
  })
  const activityId = await recordActivity(
    tx,
    {
      organizationId: email.organizationId,
      leadId: email.leadId,
      contactId: email.contactId,
      userId: email.userId,
      ...(email.createdBy === undefined ? {} : { createdBy: email.createdBy, updatedBy: email.createdBy }),
      type: 'Email',
      data: emailData(data),
      threadId,
      ...(email.senderCheck === undefined ? {} : { senderCheck: email.senderCheck }),
      now: email.now,
    },
    events,
  )
  await recordMessageIds(tx, { organizationId: email.organizationId, activityId, threadId }, data.message_ids)
  if (data.status === 'inbox' && email.senderCheck?.result !== 'fail')
    await replyArrived(tx, { organizationId: email.organizationId, threadId, now: email.now, events })
  if (data.status === 'sent' && data.followup_date !== null) {
    await createFollowup(
      tx,
      {
        organizationId: email.organizationId,
        activityId,
        leadId: email.leadId,
        contactId: email.contactId,
        userId: email.userId,
        threadId,
        subject: data.subject,
        bodyText: data.body_text,
        followupDate: data.followup_date,
      },
      email.now,
      events,
    )
  }
  return { activityId, threadId }
}

/** A received message as the CRM keeps it: addresses as written (`"Name" <a@b.c>` or `a@b.c`), dates in wire form. */
export interface ReceivedEmail {
  sender: string
  to: string[]
  cc: string[]
  subject: string
  bodyText: string
  bodyHtml: string | null
  /** With angle brackets, as the headers carry them. */
  messageId: string | null
  inReplyTo: string | null
  references: string[]
  /** Its Date header, or when it arrived when it has none (or one that is no date). */
  dateSent: string
}

/** A received message, where it goes and the files it listed. */
export interface IncomingEmailInput extends ReceivedEmail {
  organizationId: string
  leadId: string
  contactId: string | null
  userId: string
  emailAccountId: string
  attachments: EmailAttachment[]
  /** What the receiver's check found of its sender; none for an email stored otherwise. */
  senderCheck?: NewEmail['senderCheck']
  now: string
}

/** Stores a received email as `inbox`/`incoming` on the lead, joins its thread, clears the thread's follow-ups. */
export async function recordIncomingEmail(
  tx: Db,
  input: IncomingEmailInput,
  events: EventContext,
): Promise<{ activityId: string; threadId: string }> {
  if (input.messageId !== null) {
    const stored = await emailOfMessageId(tx, input.organizationId, input.messageId)
    if (stored !== undefined) return { activityId: stored.activity_id, threadId: stored.thread_id }
  }
  // The References header, ending with the id it answers (so the envelope's `in_reply_to` is its last).
  const references = [...input.references.filter((id) => id !== input.inReplyTo)]
  if (input.inReplyTo !== null) references.push(input.inReplyTo)
  const answered =
    input.inReplyTo === null ? undefined : await emailOfMessageId(tx, input.organizationId, input.inReplyTo)
  const answeredOnLead =
    answered === undefined
      ? undefined
      : await tx
          .selectFrom('activity')
          .select('id')
          .where('organization_id', '=', input.organizationId)
          .where('lead_id', '=', input.leadId)
          .where('id', '=', answered.activity_id)
          .executeTakeFirst()
  const bodies = emailBodies(input.bodyText, input.bodyHtml)
  return storeEmail(
    tx,
    {
      organizationId: input.organizationId,
      leadId: input.leadId,
      contactId: input.contactId,
      userId: input.userId,
      data: {
        direction: 'incoming',
        status: 'inbox',
        subject: input.subject,
        body_text: bodies.text,
        body_html: bodies.html,
        sender: input.sender,
        to: input.to,
        cc: input.cc,
        bcc: [],
        attachments: input.attachments,
        date_scheduled: null,
        date_sent: input.dateSent,
        email_account_id: input.emailAccountId,
        template_id: null,
        template_name: null,
        in_reply_to_id: answeredOnLead?.id ?? null,
        message_ids: input.messageId === null ? [] : [input.messageId],
        references,
        followup_date: null,
        send_attempts: [],
        error_message: null,
        activity_at: input.dateSent,
      },
      threadHints: [...references].reverse(),
      ...(input.senderCheck === undefined ? {} : { senderCheck: input.senderCheck }),
      now: input.now,
    },
    events,
  )
}

/**
 * Deletes an email in the caller's transaction: its waiting send is cancelled (a 400 when it is under way), its open
 * follow-up goes, its `deleted` event is recorded, and its thread too when no email is left in it. Export for the
 * thread endpoints.
 */
export async function deleteEmail(tx: Db, ctx: ChangeContext & { events: EventContext }, row: ActivityTable) {
  await stopSend(tx, EMAIL_CHANNEL, row, { now: ctx.now, why: 'deleted' })
  if (row.thread_id !== null) {
    const input = { organizationId: row.organization_id, threadId: row.thread_id, emailId: row.id }
    await emailDeleted(tx, { ...input, now: ctx.now, events: ctx.events })
  }
  await deleteActivity(tx, ctx, row)
  await deleteThreadIfEmpty(tx, row.organization_id, row.thread_id)
}
