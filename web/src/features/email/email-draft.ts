import type { Contact } from '@leadline/shared/contact-schema'
import { SEND_IN_SECONDS } from '../messages/message-send'
import {
  attachmentsOf,
  composerAttachments,
  emailAttachment,
  isUploading,
  type ComposerAttachment,
} from './email-attachments'
import { formatAddress, parseAddress, sameMailbox, type Address } from './email-address'
import { composerSource, emailBodyParts } from './email-format'
import type { EmailActivity, EmailAccount, EmailAttachment } from './email-wire'

// The email composer's choices and the body it sends; no React, so the rules are unit-tested.

/** What the composer holds. Addresses are chips; `body` is the text with its formatting marks. */
export interface EmailDraft {
  sender: string
  to: Address[]
  cc: Address[]
  bcc: Address[]
  subject: string
  body: string
  attachments: ComposerAttachment[]
  contactId: string | undefined
  templateId: string | undefined
  inReplyToId: string | undefined
}

/** Send now (after the undo window), send at an ISO instant, or keep as a draft. */
export type EmailAction = { kind: 'send' } | { kind: 'schedule'; sendAt: string } | { kind: 'draft' }

/** `POST /activity/email/` (with `lead_id`) or `PUT` of a draft. */
export interface EmailBody {
  status: 'draft' | 'outbox' | 'scheduled'
  sender?: string
  to: string[]
  cc: string[]
  bcc: string[]
  subject: string
  body_text: string
  body_html: string
  /** Every file the email carries: a draft's PUT without one of its files removes it. */
  attachments: EmailAttachment[]
  contact_id?: string
  template_id?: string
  in_reply_to_id?: string
  send_in?: number
  date_scheduled?: string
}

/** The fields the composer shows errors beside (`to.1` shows beside To); the others' are listed under it. */
export const EMAIL_FIELDS = [
  'sender',
  'to',
  'cc',
  'bcc',
  'subject',
  'body_text',
  'body_html',
  'date_scheduled',
  'template_id',
  'attachments',
] as const
export type EmailField = (typeof EMAIL_FIELDS)[number]

export type EmailBodyResult = { ok: true; body: EmailBody } | { ok: false; errors: Partial<Record<EmailField, string>> }

/**
 * Checks what sending needs (a sender, a recipient, a subject; a future time to schedule; no file still uploading,
 * which saving waits for too) and writes the body.
 */
export function emailBodyOf(draft: EmailDraft, action: EmailAction, now: Date): EmailBodyResult {
  const errors: Partial<Record<EmailField, string>> = {}
  if (isUploading(draft.attachments)) errors.attachments = 'Wait until the files have uploaded.'
  if (action.kind !== 'draft') {
    if (draft.sender === '') errors.sender = 'Choose an address to send from.'
    if (draft.to.length + draft.cc.length + draft.bcc.length === 0) errors.to = 'Add at least one recipient.'
    if (draft.subject.trim() === '') errors.subject = 'Write a subject.'
  }
  if (action.kind === 'schedule') {
    const at = Date.parse(action.sendAt)
    if (action.sendAt === '' || Number.isNaN(at)) errors.date_scheduled = 'Pick a date and time.'
    else if (at <= now.getTime()) errors.date_scheduled = 'Pick a time in the future.'
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors }
  const parts = emailBodyParts(draft.body)
  const body: EmailBody = {
    status: action.kind === 'send' ? 'outbox' : action.kind === 'schedule' ? 'scheduled' : 'draft',
    ...(draft.sender === '' ? {} : { sender: draft.sender }),
    to: draft.to.map(formatAddress),
    cc: draft.cc.map(formatAddress),
    bcc: draft.bcc.map(formatAddress),
    subject: draft.subject,
    body_text: parts.text,
    body_html: parts.html,
    attachments: attachmentsOf(draft.attachments),
    ...(draft.contactId === undefined ? {} : { contact_id: draft.contactId }),
    ...(draft.templateId === undefined ? {} : { template_id: draft.templateId }),
    ...(draft.inReplyToId === undefined ? {} : { in_reply_to_id: draft.inReplyToId }),
    ...(action.kind === 'send' ? { send_in: SEND_IN_SECONDS } : {}),
    ...(action.kind === 'schedule' ? { date_scheduled: action.sendAt } : {}),
  }
  return { ok: true, body }
}

/**
 * A failed email sent again: a copy, with its files, into the outbox, with the same undo window as Send. The state
 * machine has no way out of `error`, so Try again writes a new email (in the same thread: it answers what the failed
 * one answered, with its subject) and the failed one is deleted.
 */
export function resendBody(failed: EmailActivity): EmailBody & { lead_id: string } {
  return {
    lead_id: failed.lead_id,
    status: 'outbox',
    ...(failed.sender === null ? {} : { sender: failed.sender }),
    to: failed.to,
    cc: failed.cc,
    bcc: failed.bcc,
    subject: failed.subject,
    body_text: failed.body_text,
    body_html: failed.body_html,
    attachments: failed.attachments.map(emailAttachment),
    ...(failed.contact_id === null ? {} : { contact_id: failed.contact_id }),
    ...(failed.template_id === null ? {} : { template_id: failed.template_id }),
    ...(failed.in_reply_to_id === null ? {} : { in_reply_to_id: failed.in_reply_to_id }),
    send_in: SEND_IN_SECONDS,
  }
}

/** An address of one of the lead's contacts, to offer as a recipient. */
export interface ContactAddress {
  contactId: string
  address: Address
}

/** Every email of the lead's contacts, named after the contact. */
export function contactAddresses(contacts: readonly Contact[]): ContactAddress[] {
  return contacts.flatMap((contact) =>
    contact.emails.map((e) => ({ contactId: contact.id, address: { name: contact.display_name, email: e.email } })),
  )
}

/** The contact the email is with: the first recipient who is one of the lead's contacts. */
export function contactOf(addresses: readonly Address[], known: readonly ContactAddress[]): string | undefined {
  for (const a of addresses) {
    const match = known.find((k) => sameMailbox(k.address.email, a.email))
    if (match !== undefined) return match.contactId
  }
  return undefined
}

/** Each name and address the user may send as, through each of their accounts, once: verified ones only. */
export function senderOptions(accounts: readonly EmailAccount[]): { value: string; label: string }[] {
  const options: { value: string; label: string }[] = []
  for (const account of accounts) {
    // An address is sent as once the link emailed to it was followed (the API refuses it before).
    const verified = account.identities.filter((identity) => identity.verified)
    const identities = account.identities.length === 0 ? [{ name: '', email: account.email }] : verified
    for (const identity of identities) {
      const value = formatAddress(identity)
      if (!options.some((o) => o.value === value))
        options.push({ value, label: identity.name === '' ? identity.email : `${identity.name} <${identity.email}>` })
    }
  }
  return options
}

/**
 * The address to send from at first: a draft's own; for a reply, the one the email was written to; else the first.
 */
export function defaultSender(
  options: readonly { value: string }[],
  draft: EmailActivity | undefined,
  replyTo: EmailActivity | undefined,
): string {
  if (draft?.sender != null && draft.sender !== '') return draft.sender
  const written =
    replyTo === undefined ? [] : [...replyTo.to, ...replyTo.cc, ...(replyTo.sender === null ? [] : [replyTo.sender])]
  for (const address of written) {
    const mine = options.find((o) => {
      const a = parseAddress(o.value)
      const b = parseAddress(address)
      return a !== undefined && b !== undefined && sameMailbox(a.email, b.email)
    })
    if (mine !== undefined) return mine.value
  }
  return options[0]?.value ?? ''
}

/** "Re: " once before the subject answered. */
export function replySubject(subject: string): string {
  return /^re:/i.test(subject.trim()) ? subject.trim() : `Re: ${subject.trim()}`
}

function addressesOf(list: readonly string[]): Address[] {
  return list.map(parseAddress).filter((a) => a !== undefined)
}

/** Who a reply goes to: the sender of a received email; the same people as a sent one. */
export function replyRecipients(email: EmailActivity): Address[] {
  if (email.direction === 'incoming') return addressesOf(email.sender === null ? [] : [email.sender])
  return addressesOf(email.to)
}

/** The composer's fields for a new email, a reply, or a draft carried on with (an undone send is one). */
export function composerFields(
  contacts: readonly ContactAddress[],
  draft: EmailActivity | undefined,
  replyTo: EmailActivity | undefined,
): Omit<EmailDraft, 'sender'> {
  if (draft !== undefined)
    return {
      to: addressesOf(draft.to),
      cc: addressesOf(draft.cc),
      bcc: addressesOf(draft.bcc),
      subject: draft.subject,
      body: composerSource(draft.body_html, draft.body_text),
      attachments: composerAttachments(draft.attachments),
      contactId: draft.contact_id ?? undefined,
      templateId: draft.template_id ?? undefined,
      inReplyToId: draft.in_reply_to_id ?? undefined,
    }
  const to = replyTo === undefined ? contacts.slice(0, 1).map((c) => c.address) : replyRecipients(replyTo)
  return {
    to,
    cc: [],
    bcc: [],
    subject: replyTo === undefined ? '' : replySubject(replyTo.subject),
    body: '',
    attachments: [],
    contactId: replyTo?.contact_id ?? contactOf(to, contacts),
    templateId: undefined,
    inReplyToId: replyTo?.id,
  }
}
