import type { ActivityTable, Db } from '../../platform/data/database.js'
import { bodyPreview, envelopeAddresses, quotedHtml, quotedText } from '../../platform/text/email-text.js'

// What an email's view adds to its stored fields, as Close shows emails: the preview, the envelope, the reply told
// from the quoted text, whether a reply came, and the fields of Close's features Leadline does not have (opens,
// sequences, bulk actions) with their empty values.

/** The threads of some emails with the latest time an incoming email was stored in each. */
export async function latestIncoming(db: Db, rows: readonly ActivityTable[]): Promise<Map<string, string>> {
  const threads = [...new Set(rows.filter((r) => r.type === 'Email').map((r) => r.thread_id))].filter(
    (id): id is string => id !== null,
  )
  const [first] = rows
  if (threads.length === 0 || first === undefined) return new Map()
  const found = await db
    .selectFrom('activity')
    .select(['thread_id', (eb) => eb.fn.max('date_created').as('latest')])
    .where('organization_id', '=', first.organization_id)
    .where('thread_id', 'in', threads)
    .where('type', '=', 'Email')
    // An email's data is written with `direction` first (email-store.ts), so the prefix tells incoming ones.
    .where('data', 'like', '{"direction":"incoming"%')
    .groupBy('thread_id')
    .execute()
  return new Map(found.map((f) => [f.thread_id ?? '', f.latest]))
}

const RFC2822_DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat']
const RFC2822_MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']

/** A time as a mail header writes it: `Fri, 01 Feb 2013 00:54:51 -0000`. */
export function mailDate(at: string): string {
  const d = new Date(at)
  const two = (n: number) => String(n).padStart(2, '0')
  const day = RFC2822_DAYS[d.getUTCDay()] ?? ''
  const month = RFC2822_MONTHS[d.getUTCMonth()] ?? ''
  const time = `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}`
  return `${day}, ${two(d.getUTCDate())} ${month} ${String(d.getUTCFullYear())} ${time} -0000`
}

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []
const text = (value: unknown): string => (typeof value === 'string' ? value : '')

/** The fields an email's view adds to its stored ones; `incoming` from `latestIncoming` tells `has_reply`. */
export function emailViewFields(
  row: ActivityTable,
  data: Record<string, unknown>,
  incoming: ReadonlyMap<string, string>,
): Record<string, unknown> {
  const sender = typeof data.sender === 'string' ? data.sender : null
  const messageIds = strings(data.message_ids)
  const references = strings(data.references)
  const dateSent = typeof data.date_sent === 'string' ? data.date_sent : null
  const replyAt = row.thread_id === null ? undefined : incoming.get(row.thread_id)
  return {
    body_preview: bodyPreview(text(data.body_text)),
    body_text_quoted: quotedText(text(data.body_text)),
    body_html_quoted: quotedHtml(text(data.body_html)),
    envelope: {
      from: envelopeAddresses([sender]),
      sender: envelopeAddresses([sender]),
      to: envelopeAddresses(strings(data.to)),
      cc: envelopeAddresses(strings(data.cc)),
      bcc: envelopeAddresses(strings(data.bcc)),
      reply_to: [],
      date: dateSent === null ? null : mailDate(dateSent),
      message_id: messageIds[0] ?? null,
      in_reply_to: references.at(-1) ?? null,
      subject: text(data.subject),
      is_autoreply: false,
    },
    has_reply: data.direction === 'outgoing' && replyAt !== undefined && replyAt > row.date_created,
    // Leadline's own (decision 0039): what the receiver found of a received email's sender; read-only.
    sender_check:
      row.sender_check === null ? null : { result: row.sender_check, reason: row.sender_check_reason ?? '' },
    opens: [],
    opens_summary: null,
    need_smtp_credentials: false,
    send_as_id: null,
    sequence_id: null,
    sequence_name: null,
    sequence_subscription_id: null,
    followup_sequence_id: null,
    followup_sequence_delay: null,
    followup_sequence_add_cc_bcc: false,
    bulk_email_action_id: null,
  }
}

const WIRE_TIMESTAMP = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6})\+00:00$/

/** A view's time fields: `date_created`, `activity_at`, `followup_date`… */
const TIME_FIELD = /^date(_|$)|_at$|_date$/

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object'

/**
 * An email's view with its timestamps written without an offset (`2013-02-01T00:54:51.274000`), as Close's create
 * and update answers write them; every other answer keeps `+00:00`.
 */
export function withoutOffsets(view: Record<string, unknown>): Record<string, unknown> {
  const strip = (value: unknown) => (typeof value === 'string' ? value.replace(WIRE_TIMESTAMP, '$1') : value)
  return Object.fromEntries(
    Object.entries(view).map(([key, value]) => {
      if (TIME_FIELD.test(key)) return [key, strip(value)]
      if (key === 'send_attempts' && Array.isArray(value))
        return [key, value.map((attempt: unknown) => (isRecord(attempt) ? withoutOffsets(attempt) : attempt))]
      return [key, value]
    }),
  )
}
