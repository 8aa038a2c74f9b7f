import type { Activity } from '@leadline/shared/activity-schema'
import type { EmailAccountView } from '@leadline/shared/email-account-schema'

// The wire shapes the email screens read that have no schema of their own in `@leadline/shared`.

export type EmailActivity = Extract<Activity, { _type: 'Email' }>

/** A file on an email, as the email's POST or PUT names it and every answer lists it. */
export type EmailAttachment = EmailActivity['attachments'][number]

/** `POST /email_attachment/`'s answer: the file uploaded, whose `url` an email's `attachments` may carry. */
export interface UploadedAttachment {
  id: string
  url: string
  filename: string
  content_type: string | null
  size: number
  date_created: string
}

/** One of the user's email accounts: the names and addresses it sends as. */
export type EmailAccount = Pick<EmailAccountView, 'id' | 'email' | 'identities'>

/** `/me/`, as far as the composer reads it: the user's email accounts. */
export interface Me {
  id: string
  email_accounts: EmailAccountView[]
}

const withoutOffset = /T\d{2}:\d{2}:\d{2}(?:\.\d+)?$/

/** A UTC time written without its offset (`2026-03-02T10:00:00.000000`) with it, so browsers read it as UTC. */
function utc(timestamp: string): string {
  return withoutOffset.test(timestamp) ? `${timestamp}+00:00` : timestamp
}

/**
 * An email as a create or update answers it, whose times have no offset (as Close writes them there), with the
 * offset every other answer has: a browser would read them in its own zone otherwise.
 */
export function withUtcOffsets(email: EmailActivity): EmailActivity {
  const maybe = (timestamp: string | null) => (timestamp === null ? null : utc(timestamp))
  return {
    ...email,
    date_created: utc(email.date_created),
    date_updated: utc(email.date_updated),
    activity_at: utc(email.activity_at),
    date_scheduled: maybe(email.date_scheduled),
    date_sent: maybe(email.date_sent),
    send_attempts: email.send_attempts.map((a) => ({ ...a, date: utc(a.date) })),
  }
}
