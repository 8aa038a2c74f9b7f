import type { Contact } from '@leadline/shared/contact-schema'
import type { PhoneNumber } from '@leadline/shared/phone-number-schema'
import type { SmsActivity } from './sms-display'
import { SEND_IN_SECONDS } from '../messages/message-send'

// The SMS composer's choices and the body it sends; no React, so the rules are unit-tested.

/** One number a message can go to: a contact's phone. */
export interface Recipient {
  /** The select's value: the contact and the number together (one contact may have two numbers). */
  key: string
  contactId: string | undefined
  phone: string
  /** "Ann Smith — +1 415-555-0100 (mobile)". */
  label: string
  /** Who the message goes to, in a sentence: "Ann Smith". */
  name: string
}

export function recipientKey(contactId: string | null | undefined, phone: string): string {
  return `${contactId ?? ''} ${phone}`
}

/**
 * Every phone of the lead's contacts, labelled with the contact's name; a draft's own recipient is kept even if
 * its contact no longer has that number, so carrying on with it never changes where it goes.
 */
export function recipientsOf(contacts: readonly Contact[], draft?: SmsActivity): Recipient[] {
  const recipients: Recipient[] = contacts.flatMap((contact) => {
    const name = contact.display_name === '' ? 'Unnamed contact' : contact.display_name
    return contact.phones.map((phone) => ({
      key: recipientKey(contact.id, phone.phone),
      contactId: contact.id,
      phone: phone.phone,
      label: `${name} — ${phone.phone_formatted} (${phone.type})`,
      name,
    }))
  })
  const remote = draft?.remote_phone ?? null
  if (draft !== undefined && remote !== null) {
    const key = recipientKey(draft.contact_id, remote)
    if (!recipients.some((r) => r.key === key)) {
      const phone = draft.remote_phone_formatted ?? remote
      const name = draft.contact_name ?? phone
      recipients.push({
        key,
        contactId: draft.contact_id ?? undefined,
        phone: remote,
        label: draft.contact_name === null ? phone : `${draft.contact_name} — ${phone}`,
        name,
      })
    }
  }
  return recipients
}

/** The numbers a user may text from: the shared lines and their own (a colleague's direct line is theirs alone). */
export function sendingNumbers(numbers: readonly PhoneNumber[], userId: string | undefined): PhoneNumber[] {
  return numbers.filter((n) => n.user_id === null || n.user_id === userId)
}

/** The number to send from at first: the draft's, else the user's own internal number, else the first shared one. */
export function defaultSender(numbers: readonly PhoneNumber[], userId: string | undefined, draft?: SmsActivity) {
  const usable = sendingNumbers(numbers, userId)
  const own = usable.find((n) => n.user_id !== null)
  return draft?.local_phone ?? own?.number ?? usable[0]?.number ?? ''
}

export function senderLabel(number: PhoneNumber): string {
  return number.label === null || number.label === ''
    ? number.number_formatted
    : `${number.number_formatted} (${number.label})`
}

/** A message to send now (after `send_in` seconds) or at `date_scheduled`. */
export interface SmsBody {
  contact_id?: string
  remote_phone: string
  local_phone: string
  text: string
  status: 'outbox' | 'scheduled'
  send_in?: number
  date_scheduled?: string
}

/** The fields the composer shows errors beside; the API's errors on any other field are shown under it. */
export const SMS_FIELDS = ['remote_phone', 'local_phone', 'text', 'date_scheduled'] as const
export type SmsField = (typeof SMS_FIELDS)[number]

export interface SmsDraft {
  recipient: Recipient | undefined
  from: string
  text: string
  /** Send now (after the undo window), or at `sendAt`. */
  mode: 'send' | 'schedule'
  /** An ISO instant, from the browser's date and time field; empty when none was picked. */
  sendAt: string
}

export type SmsBodyResult = { ok: true; body: SmsBody } | { ok: false; errors: Partial<Record<SmsField, string>> }

/** Checks what the composer holds (a text, a recipient, a sender; a future time to schedule) and writes the body. */
export function smsBodyOf(draft: SmsDraft, now: Date): SmsBodyResult {
  const errors: Partial<Record<SmsField, string>> = {}
  if (draft.recipient === undefined) errors.remote_phone = 'Choose whom to text.'
  if (draft.from === '') errors.local_phone = 'Choose a number to send from.'
  if (draft.text.trim() === '') errors.text = 'Write a message first.'
  if (draft.mode === 'schedule') {
    const at = Date.parse(draft.sendAt)
    if (draft.sendAt === '' || Number.isNaN(at)) errors.date_scheduled = 'Pick a date and time.'
    else if (at <= now.getTime()) errors.date_scheduled = 'Pick a time in the future.'
  }
  if (draft.recipient === undefined || Object.keys(errors).length > 0) return { ok: false, errors }
  const body: SmsBody = {
    remote_phone: draft.recipient.phone,
    local_phone: draft.from,
    text: draft.text,
    ...(draft.recipient.contactId === undefined ? {} : { contact_id: draft.recipient.contactId }),
    ...(draft.mode === 'schedule'
      ? { status: 'scheduled', date_scheduled: draft.sendAt }
      : { status: 'outbox', send_in: SEND_IN_SECONDS }),
  }
  return { ok: true, body }
}
