import { insertIncomingTask, retypeIncomingTask, type SystemTaskWrite } from '../../telephony/inbound/inbound-store.js'
import { parseJsonObject } from '../../platform/http/raw-json.js'

/** An email just received, as its thread's `incoming_email` task tells of it. */
export interface ReceivedEmail {
  activityId: string
  threadId: string
  leadId: string
  contactId: string | null
  /** The user of the account it came to. */
  userId: string
  subject: string
  bodyPreview: string
}

/**
 * Tells the account's user of an email in their inbox: the thread's open `incoming_email` task, if it has one, lists
 * it too (with its subject and preview, the newest), else a new one, due now, does. Several unread emails of one
 * thread are one task. Answers the task's id.
 */
export async function noteIncomingEmail(w: SystemTaskWrite, email: ReceivedEmail): Promise<string> {
  const open = await w.tx
    .selectFrom('task')
    .select(['id', 'data'])
    .where('organization_id', '=', w.organization.organization.id)
    .where('object_id', '=', email.threadId)
    .where('type', '=', 'incoming_email')
    .where('is_complete', '=', 0)
    .orderBy('date_created')
    .orderBy('id')
    .executeTakeFirst()
  const fields = (emails: string[]) => ({ emails, subject: email.subject, body_preview: email.bodyPreview })
  if (open !== undefined) {
    const listed = parseJsonObject(open.data).emails
    const emails = Array.isArray(listed) ? listed.filter((id): id is string => typeof id === 'string') : []
    const change = {
      from: 'incoming_email',
      to: 'incoming_email',
      data: fields([...emails, email.activityId]),
    } as const
    if (await retypeIncomingTask(w, open.id, change)) return open.id
  }
  return insertIncomingTask(w, {
    type: 'incoming_email',
    leadId: email.leadId,
    contactId: email.contactId,
    assignedTo: email.userId,
    objectId: email.threadId,
    data: fields([email.activityId]),
  })
}
