import type { EmailThread, ThreadEmail } from '@leadline/shared/email-thread-schema'
import type { ActivityTable, Db, EmailThreadTable } from '../../platform/data/database.js'
import type { EmailAttachment } from './activity-repo.js'
import { parseJsonObject } from '../../platform/http/raw-json.js'
import { bodyPreview, parseAddress } from '../../platform/text/email-text.js'

const text = (value: unknown) => (typeof value === 'string' ? value : null)
const texts = (value: unknown) => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [])

/** An email as a thread lists it (its stored fields, without bodies). */
function threadEmail(row: ActivityTable): ThreadEmail {
  const data = parseJsonObject(row.data)
  const attachments = Array.isArray(data.attachments) ? (data.attachments as EmailAttachment[]) : []
  return {
    id: row.id,
    _type: 'Email',
    status: text(data.status) ?? 'draft',
    direction: text(data.direction) ?? 'outgoing',
    sender: text(data.sender),
    to: texts(data.to),
    cc: texts(data.cc),
    subject: text(data.subject) ?? '',
    body_preview: bodyPreview(text(data.body_text) ?? ''),
    date_created: row.date_created,
    date_sent: text(data.date_sent),
    activity_at: text(data.activity_at) ?? row.date_created,
    attachments,
    user_id: row.user_id,
  }
}

/** Every address of the emails (sender, To, Cc), once each, in the order first met; the first name given wins. */
function participants(emails: readonly ThreadEmail[]): { email: string; name: string }[] {
  const found = new Map<string, { email: string; name: string }>()
  for (const email of emails) {
    for (const written of [...(email.sender === null ? [] : [email.sender]), ...email.to, ...email.cc]) {
      const address = parseAddress(written)
      if (address === undefined) continue
      const email = address.email.toLowerCase()
      const seen = found.get(email)
      if (seen === undefined) found.set(email, { email, name: address.name })
      else if (seen.name === '') seen.name = address.name
    }
  }
  return [...found.values()]
}

/** A thread as the API shows it, from its emails newest first; `withEmails` false leaves their list out. */
function threadView(thread: EmailThreadTable, rows: readonly ActivityTable[], withEmails: boolean): EmailThread {
  const emails = rows.map(threadEmail)
  const latestRow = rows[0]
  const latest = emails[0]
  const updated = [thread.date_updated, ...rows.map((r) => r.date_updated)].sort().at(-1) ?? thread.date_updated
  const view: EmailThread = {
    id: thread.id,
    _type: 'EmailThread',
    organization_id: thread.organization_id,
    lead_id: thread.lead_id,
    contact_id: latestRow?.contact_id ?? null,
    user_id: latestRow?.user_id ?? null,
    date_created: latestRow?.date_created ?? thread.date_created,
    date_updated: updated,
    activity_at: latest?.activity_at ?? thread.date_created,
    latest_normalized_subject: thread.subject,
    n_emails: rows.length,
    participants: participants(emails),
    users: [...new Set(rows.flatMap((r) => (r.user_id === null ? [] : [r.user_id])))],
  }
  if (withEmails) view.emails = emails
  return view
}

/**
 * The organization's threads of `ids` as the API shows them, in the order of `ids` (ids of no thread are left out),
 * read in two queries whatever their number.
 */
export async function emailThreadViews(
  db: Db,
  organizationId: string,
  ids: readonly string[],
  options: { withEmails: boolean },
): Promise<EmailThread[]> {
  if (ids.length === 0) return []
  const [threads, rows] = await Promise.all([
    db
      .selectFrom('email_thread')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('id', 'in', ids)
      .execute(),
    threadEmailRows(db, organizationId, ids),
  ])
  const byThread = new Map<string, ActivityTable[]>()
  for (const row of rows) {
    if (row.thread_id === null) continue
    byThread.set(row.thread_id, [...(byThread.get(row.thread_id) ?? []), row])
  }
  const byId = new Map(threads.map((t) => [t.id, t]))
  return ids.flatMap((id) => {
    const thread = byId.get(id)
    return thread === undefined ? [] : [threadView(thread, byThread.get(id) ?? [], options.withEmails)]
  })
}

/** The emails of some threads of the organization, newest first (by `date_created`, then id). */
export async function threadEmailRows(db: Db, organizationId: string, threadIds: readonly string[]) {
  if (threadIds.length === 0) return []
  return db
    .selectFrom('activity')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('type', '=', 'Email')
    .where('thread_id', 'in', threadIds)
    .orderBy('date_created', 'desc')
    .orderBy('id', 'desc')
    .execute()
}
