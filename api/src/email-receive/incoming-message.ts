import { simpleParser, type AddressObject, type EmailAddress, type ParsedMail } from 'mailparser'
import { formatTimestamp } from '../platform/time.js'
import type { ReceivedFile } from '../email-attachments/email-attachment-repo.js'
import type { ReceivedEmail } from '../email/email-store.js'

/** An SMTP answer refusing a message: `responseCode` (5xx: do not retry; 4xx: retry later) and its text. */
export class SmtpRefusal extends Error {
  constructor(
    readonly responseCode: number,
    message: string,
  ) {
    super(message)
    this.name = 'SmtpRefusal'
  }
}

/** A received message as parsed: the stored email's fields, who it is from and its files. */
export interface IncomingMessage extends ReceivedEmail {
  /** The From address, lower-cased: who the message is from. */
  fromAddress: string
  /** Its files, each given an id where it is stored (once in each organization it is for). */
  files: Omit<ReceivedFile, 'id'>[]
}

/** Mailboxes of an address header, groups opened. */
function mailboxes(header: AddressObject | AddressObject[] | undefined): EmailAddress[] {
  const objects = header === undefined ? [] : Array.isArray(header) ? header : [header]
  return objects.flatMap((o) => o.value).flatMap((a) => (a.group === undefined ? [a] : a.group))
}

/** A mailbox as written in an Email's fields: `"Name" <a@b.c>`, or `a@b.c` without a name. */
function written(mailbox: { address: string; name: string }): string {
  if (mailbox.name.trim() === '') return mailbox.address
  return `"${mailbox.name.replace(/["\\]/g, (c) => `\\${c}`)}" <${mailbox.address}>`
}

function addresses(header: AddressObject | AddressObject[] | undefined): string[] {
  return mailboxes(header).flatMap((m) =>
    m.address === undefined ? [] : [written({ address: m.address, name: m.name })],
  )
}

/** Message-IDs of a header mailparser read as one or several (`<a@b> <c@d>`), each with its angle brackets. */
function messageIds(value: string | string[] | undefined): string[] {
  const raw = value === undefined ? [] : Array.isArray(value) ? value : [value]
  return raw.flatMap((v) => v.match(/<[^<>\s]+>/g) ?? [])
}

/**
 * Reads a raw message (RFC 5322): a 554 when it cannot be read, a 550 when it has no From address, a 552 when one
 * of its files is over `maxAttachmentBytes`.
 */
export async function readIncomingMessage(
  raw: Buffer,
  limits: { maxAttachmentBytes: number },
  now: Date,
): Promise<IncomingMessage> {
  let parsed: ParsedMail
  try {
    // cid: links stay as written: the files they name are stored and listed with their Content-ID.
    parsed = await simpleParser(raw, { keepCidLinks: true })
  } catch {
    throw new SmtpRefusal(554, '5.6.0 The message could not be read')
  }
  const from = mailboxes(parsed.from).find((m) => m.address !== undefined && m.address.includes('@'))
  if (from?.address === undefined) throw new SmtpRefusal(550, '5.1.7 The message has no From address')
  const tooLarge = parsed.attachments.find((a) => a.size > limits.maxAttachmentBytes)
  if (tooLarge !== undefined) {
    throw new SmtpRefusal(552, `5.3.4 An attachment is over the limit of ${String(limits.maxAttachmentBytes)} bytes`)
  }
  const date = parsed.date !== undefined && !Number.isNaN(parsed.date.getTime()) ? parsed.date : now
  const [inReplyTo] = messageIds(parsed.inReplyTo)
  const [messageId] = messageIds(parsed.messageId)
  return {
    fromAddress: from.address.toLowerCase(),
    sender: written({ address: from.address, name: from.name }),
    to: addresses(parsed.to),
    cc: addresses(parsed.cc),
    subject: parsed.subject ?? '',
    // Without the line break a message's text ends with, which a preview would show.
    bodyText: (parsed.text ?? '').trimEnd(),
    bodyHtml: typeof parsed.html === 'string' ? parsed.html : null,
    messageId: messageId ?? null,
    inReplyTo: inReplyTo ?? null,
    references: messageIds(parsed.references),
    dateSent: formatTimestamp(date),
    files: parsed.attachments.map((a, i) => ({
      filename: a.filename ?? `attachment-${String(i + 1)}`,
      contentType: a.contentType,
      contentId: a.contentId === undefined ? null : a.contentId.replace(/^<|>$/g, ''),
      content: a.content,
    })),
  }
}
