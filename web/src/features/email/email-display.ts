import { addressLabel, type Address } from './email-address'
import { escapeHtml } from './email-format'
import type { EmailActivity } from './email-wire'

// How a thread shows its emails; no React, so the rules are unit-tested. The order and the status words are the
// text messages' (`conversationOrder`, `messageState`).

const PREFIX = /^\s*(?:(?:re|fwd?|aw|wg|sv|vs|antw|tr)(?:\[\d+\])?\s*:\s*)+/i

/** The thread's subject: its newest email's, without `Re:`/`Fwd:` prefixes. */
export function threadSubject(ordered: readonly EmailActivity[]): string {
  const subject = (ordered.at(-1)?.subject ?? '').replace(PREFIX, '').trim()
  return subject === '' ? '(no subject)' : subject
}

/** Everyone who wrote or was written to in the thread, each once, by name where one is known. */
export function threadParticipants(emails: readonly EmailActivity[]): string[] {
  const seen = new Map<string, Address>()
  for (const email of emails) {
    for (const a of [...email.envelope.from, ...email.envelope.to, ...email.envelope.cc]) {
      const key = a.email.toLowerCase()
      const known = seen.get(key)
      if (known === undefined || (known.name === '' && a.name !== '')) seen.set(key, a)
    }
  }
  return [...seen.values()].map((a) => (a.name === '' ? a.email : a.name))
}

/** Who an email is from, as people read it. */
export function emailFrom(email: EmailActivity): string {
  const from = email.envelope.from[0]
  if (from !== undefined) return addressLabel(from)
  return email.sender ?? email.user_name ?? 'Unknown sender'
}

/** Who an email went to, as people read it. */
export function emailTo(email: EmailActivity): string {
  const to = email.envelope.to.length > 0 ? email.envelope.to.map(addressLabel) : email.to
  return to.join(', ')
}

/** A piece of an email's body: its own words, or text it quotes (folded until asked for). */
export interface EmailPart {
  html: string
  quoted: boolean
}

/**
 * The body as HTML in pieces, quoted ones folded: the API's split of the HTML, else of the text (escaped, line breaks
 * kept), else the whole body as one piece. Neighbouring pieces of one kind join; empty ones go.
 */
export function emailParts(email: EmailActivity): EmailPart[] {
  const textAsHtml = (text: string) => escapeHtml(text).replace(/\r?\n/g, '<br>')
  const split =
    email.body_html !== '' && email.body_html_quoted.length > 0
      ? email.body_html_quoted.map((p) => ({ html: p.html, quoted: !p.expand }))
      : email.body_html === '' && email.body_text_quoted.length > 0
        ? email.body_text_quoted.map((p) => ({ html: textAsHtml(p.text), quoted: !p.expand }))
        : [{ html: email.body_html === '' ? textAsHtml(email.body_text) : email.body_html, quoted: false }]
  const parts: EmailPart[] = []
  for (const part of split) {
    if (part.html.replace(/<br\s*\/?>|&nbsp;|\s/gi, '') === '') continue
    const last = parts.at(-1)
    if (last?.quoted === part.quoted) last.html += part.html
    else parts.push({ ...part })
  }
  return parts
}

/**
 * The warning a received email shows when its sender failed the receiver's check (SPF/DMARC): the From address may
 * be forged. Undefined otherwise.
 */
export function senderWarning(email: EmailActivity): string | undefined {
  if (email.sender_check?.result !== 'fail') return undefined
  return `The sender could not be verified: this email may not be from ${emailFrom(email)}. ${email.sender_check.reason}`
}
