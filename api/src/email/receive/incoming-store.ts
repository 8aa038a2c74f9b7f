import { readFile } from 'node:fs/promises'
import type { Db } from '../../platform/data/database.js'
import { recordIncomingEmail } from '../send/email-store.js'
import { emailOfMessageId } from '../send/email-thread.js'
import { accountsForAddresses, type EmailAccount } from '../accounts/email-account-repo.js'
import { insertEmailAttachments, listedAttachment } from '../attachments/email-attachment-repo.js'
import { bodyPreview } from '../../platform/text/email-text.js'
import type { EventContext } from '../../integrations/events/event-repo.js'
import { organizationMetaIn } from '../../crm/organizations/organization-meta.js'
import { newId } from '../../platform/security/ids.js'
import { outboxSink } from '../../integrations/outbox/outbox-writer.js'
import type { IncomingMessage } from './incoming-message.js'
import { noteIncomingEmail } from './incoming-task.js'
import type { SenderCheck } from './sender-check.js'

/** When a message is stored, where its events point, and what its sender's check found. */
interface StoreContext {
  now: string
  leadWebhookEnvUrl: string | null
  senderCheck: SenderCheck
}

/** What became of a message in one organization it was sent to. */
export type IncomingOutcome =
  | { organizationId: string; stored: { activityId: string; threadId: string; taskId: string } }
  | {
      organizationId: string
      /**
       * `unknown-sender`: from no contact, and answering no email of the organization; `own-address`: from one of
       * the organization's own accounts; `repeated`: its Message-ID is stored already.
       */
      skipped: 'unknown-sender' | 'own-address' | 'repeated'
    }

/** The lead a message goes on, and the contact it is from (null: someone answering the contact's thread). */
interface Destination {
  leadId: string
  contactId: string | null
}

/**
 * The thread of the newest of the organization's emails a message answers (`In-Reply-To`, then `References` from
 * the last), with its lead.
 */
async function answeredThread(tx: Db, organizationId: string, message: IncomingMessage) {
  const ids = [...(message.inReplyTo === null ? [] : [message.inReplyTo]), ...[...message.references].reverse()]
  if (ids.length === 0) return undefined
  const rows = await tx
    .selectFrom('email_message')
    .innerJoin('email_thread', 'email_thread.id', 'email_message.thread_id')
    .select(['email_message.message_id', 'email_thread.id', 'email_thread.lead_id'])
    .where('email_message.organization_id', '=', organizationId)
    .where('email_message.message_id', 'in', ids)
    .where('email_thread.organization_id', '=', organizationId)
    .execute()
  const byMessage = new Map(rows.map((r) => [r.message_id, r]))
  return ids.map((id) => byMessage.get(id)).find((row) => row !== undefined)
}

/** The organization's contacts with the address, those on the most recently updated leads first. */
async function contactsWithEmail(tx: Db, organizationId: string, address: string) {
  return tx
    .selectFrom('contact_email')
    .innerJoin('lead', 'lead.id', 'contact_email.lead_id')
    .select(['contact_email.lead_id', 'contact_email.contact_id'])
    .where('contact_email.organization_id', '=', organizationId)
    .where('contact_email.value_lower', '=', address)
    .where('lead.organization_id', '=', organizationId)
    .orderBy('lead.date_updated', 'desc')
    .orderBy('lead.id', 'desc')
    .orderBy('contact_email.contact_id')
    .execute()
}

/**
 * Where a message goes in an organization: the contact with the sender's address (on the lead of the thread it
 * answers, if the contact is there too); else, from someone who is no contact, the lead of the thread it answers (a
 * colleague of the contact replying); else nowhere. A sender that failed its check is never taken for a contact by
 * its address: its message goes only where the thread it names is, without a contact (decision 0039).
 */
async function destinationOf(
  tx: Db,
  organizationId: string,
  message: IncomingMessage,
  senderCheck: SenderCheck,
): Promise<Destination | undefined> {
  const [contacts, thread] = await Promise.all([
    senderCheck.result === 'fail' ? [] : contactsWithEmail(tx, organizationId, message.fromAddress),
    answeredThread(tx, organizationId, message),
  ])
  const contact = contacts.find((c) => c.lead_id === thread?.lead_id) ?? contacts[0]
  if (contact !== undefined) return { leadId: contact.lead_id, contactId: contact.contact_id }
  return thread === undefined ? undefined : { leadId: thread.lead_id, contactId: null }
}

async function isStored(tx: Db, organizationId: string, messageId: string | null): Promise<boolean> {
  if (messageId === null) return false
  return (await emailOfMessageId(tx, organizationId, messageId)) !== undefined
}

/** Stores a message in the organization of `account`, the account it came to, in the caller's transaction. */
async function storeIn(
  tx: Db,
  message: IncomingMessage,
  account: EmailAccount,
  context: StoreContext,
): Promise<IncomingOutcome> {
  const organizationId = account.organizationId
  if (await isStored(tx, organizationId, message.messageId)) return { organizationId, skipped: 'repeated' }
  // A rep's own mail (a copy sent to the receiver) is not mail from the lead: outgoing mail is recorded when sent.
  if ((await accountsForAddresses(tx, organizationId, [message.fromAddress])).length > 0) {
    return { organizationId, skipped: 'own-address' }
  }
  const destination = await destinationOf(tx, organizationId, message, context.senderCheck)
  const organization = await organizationMetaIn(tx, organizationId)
  if (destination === undefined || organization === undefined) return { organizationId, skipped: 'unknown-sender' }

  // Nobody's request made it: no user and no key, as for the inbound endpoint (decision 0027).
  const events: EventContext = {
    organizationId,
    userId: null,
    requestId: null,
    apiKeyId: null,
    now: context.now,
    sink: outboxSink(context.leadWebhookEnvUrl),
  }
  const files = message.files.map((file) => ({ ...file, id: newId('emailAttachment') }))
  const { activityId, threadId } = await recordIncomingEmail(
    tx,
    {
      organizationId,
      leadId: destination.leadId,
      contactId: destination.contactId,
      userId: account.userId,
      emailAccountId: account.id,
      ...message,
      attachments: files.map(listedAttachment),
      senderCheck: context.senderCheck,
      now: context.now,
    },
    events,
  )
  // Read from the disk one at a time: one file's bytes in memory at once, never the message's.
  for (const file of files) {
    const { path: _path, size: _size, ...fields } = file
    await insertEmailAttachments(tx, { organizationId, activityId, now: context.now }, [
      { ...fields, content: await readFile(file.path) },
    ])
  }
  const taskId = await noteIncomingEmail(
    { tx, organization, events, now: context.now },
    {
      activityId,
      threadId,
      leadId: destination.leadId,
      contactId: destination.contactId,
      userId: account.userId,
      subject: message.subject,
      bodyPreview: bodyPreview(message.bodyText),
    },
  )
  return { organizationId, stored: { activityId, threadId, taskId } }
}

/**
 * Stores a received message once in each organization one of `accounts` (the accounts of its recipients, in the
 * order they were named) belongs to, through the first of them there: an `inbox` email on the lead, its files, and
 * its thread's `incoming_email` task. All of it in one transaction: the message is stored whole or not at all.
 */
export async function storeIncomingMessage(
  db: Db,
  message: IncomingMessage,
  accounts: readonly EmailAccount[],
  context: StoreContext,
): Promise<IncomingOutcome[]> {
  const first = new Map<string, EmailAccount>()
  for (const account of accounts) if (!first.has(account.organizationId)) first.set(account.organizationId, account)
  return db.transaction().execute(async (tx) => {
    const outcomes: IncomingOutcome[] = []
    for (const account of first.values()) outcomes.push(await storeIn(tx, message, account, context))
    return outcomes
  })
}
