import type { Activity } from '@leadline/shared/activity-schema'

// How a conversation shows its text messages; no React, so the rules are unit-tested.

export type SmsActivity = Extract<Activity, { _type: 'SMS' }>

export interface MessageState {
  /** "Sent", "Scheduled for …", "Sending…", "Failed to send: …", "Draft", "Received". */
  label: string
  tone: 'plain' | 'pending' | 'error'
  /** The instant the label is about, if any. */
  at?: string | undefined
}

/** What a message's state is read from: a text message's fields, which an email has too. */
export type MessageStateFields = Pick<
  SmsActivity,
  'status' | 'activity_at' | 'date_scheduled' | 'date_sent' | 'error_message' | 'send_attempts'
>

/** A text message's or an email's status in words; `format` writes an instant (the caller's locale and zone). */
export function messageState(message: MessageStateFields, format: (timestamp: string) => string): MessageState {
  const lastAttempt = message.send_attempts.at(-1)?.error
  switch (message.status) {
    case 'inbox':
      return { label: 'Received', tone: 'plain', at: message.activity_at }
    case 'draft':
      return { label: 'Draft', tone: 'pending' }
    case 'scheduled':
      return message.date_scheduled === null
        ? { label: 'Scheduled', tone: 'pending' }
        : { label: `Scheduled for ${format(message.date_scheduled)}`, tone: 'pending' }
    case 'outbox':
      // A failed attempt is retried; the reason shows until it goes out.
      return lastAttempt === undefined
        ? { label: 'Sending…', tone: 'pending' }
        : { label: `Sending… (last try failed: ${lastAttempt})`, tone: 'error' }
    case 'sent':
      return { label: 'Sent', tone: 'plain', at: message.date_sent ?? message.activity_at }
    case 'error':
      return { label: `Failed to send: ${message.error_message ?? lastAttempt ?? 'not sent'}`, tone: 'error' }
    default:
      return { label: message.status, tone: 'plain', at: message.activity_at }
  }
}

/** When a message stands in its conversation: when sent, when it is due, or when it was written or received. */
function momentOf(message: MessageStateFields): number {
  const at =
    message.status === 'sent'
      ? (message.date_sent ?? message.activity_at)
      : message.status === 'scheduled'
        ? (message.date_scheduled ?? message.activity_at)
        : message.activity_at
  const time = Date.parse(at)
  return Number.isNaN(time) ? 0 : time
}

/** Oldest first, as a conversation (or an email thread) reads; drafts, not yet part of it, at the end. */
export function conversationOrder<M extends MessageStateFields & { id: string }>(messages: readonly M[]): M[] {
  const rank = (m: M) => (m.status === 'draft' ? 1 : 0)
  return [...messages].sort((a, b) => rank(a) - rank(b) || momentOf(a) - momentOf(b) || a.id.localeCompare(b.id))
}

/** Who the conversation is with: the contact, else the number. */
export function conversationName(messages: readonly SmsActivity[]): string {
  for (const m of messages) if (m.contact_name !== null && m.contact_name !== '') return m.contact_name
  const first = messages[0]
  return first?.remote_phone_formatted ?? first?.remote_phone ?? 'an unknown number'
}
