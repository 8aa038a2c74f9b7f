import type { Db } from '../../platform/data/database.js'
import { newId } from '../../platform/security/ids.js'

// An email's thread (docs/decisions/0031-emails-and-sending.md): the conversation it belongs to on its lead. Every
// stored email gets one: the thread of the email it answers (`in_reply_to_id`), else the thread of a Message-ID its
// `In-Reply-To` or `References` names, else the lead's thread with the same subject once `Re:`/`Fwd:` and the like
// are stripped, else a new one. A thread never spans leads: every lookup is by organization and lead.

/** Reply and forward prefixes in the languages mail clients write them, each with an optional `[n]` counter. */
const PREFIX = /^(?:re|fwd?|aw|wg|sv|vs|antw|réf|tr)(?:\s*\[\d+\])?\s*:/iu

/**
 * A subject without its run of reply and forward prefixes (`Re:`, `RE[2]:`, `Fwd:`, `AW:`, `SV:`, `Réf:`…),
 * whitespace collapsed; `[tags]` stay. `Re: ` + s normalizes like s, and normalizing twice changes nothing.
 */
export function normalizeSubject(subject: string): string {
  let rest = subject.replace(/\s+/gu, ' ').trim()
  for (let match = PREFIX.exec(rest); match !== null; match = PREFIX.exec(rest)) {
    rest = rest.slice(match[0].length).trimStart()
  }
  return rest
}

/** The key replies are matched by when they carry no references: the normalized subject, case-folded. */
export function subjectKey(subject: string): string {
  return normalizeSubject(subject).toLowerCase()
}

/** What places an email in a thread. */
export interface ThreadHints {
  organizationId: string
  leadId: string
  subject: string
  /** The email it answers, when known (it must be of the same lead). */
  inReplyToId?: string | null
  /** Message-IDs of its `In-Reply-To` and `References` headers, most telling first. */
  messageIds?: readonly string[]
  now: string
}

/** A thread of the lead that an email of it names (by id or Message-ID), if any. */
async function namedThread(tx: Db, hints: ThreadHints): Promise<string | undefined> {
  if (hints.inReplyToId !== undefined && hints.inReplyToId !== null) {
    const answered = await tx
      .selectFrom('activity')
      .select('thread_id')
      .where('organization_id', '=', hints.organizationId)
      .where('lead_id', '=', hints.leadId)
      .where('id', '=', hints.inReplyToId)
      .where('type', '=', 'Email')
      .executeTakeFirst()
    if (answered?.thread_id !== undefined && answered.thread_id !== null) return answered.thread_id
  }
  const ids = [...new Set(hints.messageIds ?? [])]
  if (ids.length === 0) return undefined
  const found = await tx
    .selectFrom('email_message as m')
    .innerJoin('email_thread as t', 't.id', 'm.thread_id')
    .select(['m.message_id', 'm.thread_id'])
    .where('m.organization_id', '=', hints.organizationId)
    .where('m.message_id', 'in', ids)
    .where('t.organization_id', '=', hints.organizationId)
    .where('t.lead_id', '=', hints.leadId)
    .execute()
  for (const id of ids) {
    const hit = found.find((f) => f.message_id === id)
    if (hit !== undefined) return hit.thread_id
  }
  return undefined
}

/**
 * The thread an email belongs to, made when none fits, with its subject and `date_updated` brought up to this email;
 * in the caller's transaction. Export for incoming mail, which stores through it.
 */
export async function assignThread(tx: Db, hints: ThreadHints): Promise<string> {
  const subject = normalizeSubject(hints.subject)
  const key = subject.toLowerCase()
  let threadId = await namedThread(tx, hints)
  if (threadId === undefined && key !== '') {
    const same = await tx
      .selectFrom('email_thread')
      .select('id')
      .where('organization_id', '=', hints.organizationId)
      .where('lead_id', '=', hints.leadId)
      .where('subject_key', '=', key)
      .orderBy('date_updated', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst()
    threadId = same?.id
  }
  if (threadId === undefined) {
    const id = newId('activity')
    await tx
      .insertInto('email_thread')
      .values({
        id,
        organization_id: hints.organizationId,
        lead_id: hints.leadId,
        subject,
        subject_key: key,
        date_created: hints.now,
        date_updated: hints.now,
      })
      .execute()
    return id
  }
  await tx
    .updateTable('email_thread')
    .set({ subject, subject_key: key, date_updated: hints.now })
    .where('organization_id', '=', hints.organizationId)
    .where('id', '=', threadId)
    .execute()
  return threadId
}

/** Records the Message-IDs an email went out or came in with, so replies that name them find its thread. */
export async function recordMessageIds(
  tx: Db,
  email: { organizationId: string; activityId: string; threadId: string },
  messageIds: readonly string[],
): Promise<void> {
  if (messageIds.length === 0) return
  await tx
    .insertInto('email_message')
    .values(
      [...new Set(messageIds)].map((messageId) => ({
        organization_id: email.organizationId,
        message_id: messageId,
        activity_id: email.activityId,
        thread_id: email.threadId,
      })),
    )
    .onConflict((oc) => oc.columns(['organization_id', 'message_id']).doNothing())
    .execute()
}

/** The email a Message-ID names in the organization, if one was stored with it. */
export async function emailOfMessageId(tx: Db, organizationId: string, messageId: string) {
  return tx
    .selectFrom('email_message')
    .select(['activity_id', 'thread_id'])
    .where('organization_id', '=', organizationId)
    .where('message_id', '=', messageId)
    .executeTakeFirst()
}

/** Deletes a thread no email is in any more (its last one deleted or moved). */
export async function deleteThreadIfEmpty(tx: Db, organizationId: string, threadId: string | null): Promise<void> {
  if (threadId === null) return
  const left = await tx
    .selectFrom('activity')
    .select('id')
    .where('organization_id', '=', organizationId)
    .where('thread_id', '=', threadId)
    .limit(1)
    .executeTakeFirst()
  if (left !== undefined) return
  await tx.deleteFrom('email_thread').where('organization_id', '=', organizationId).where('id', '=', threadId).execute()
}
