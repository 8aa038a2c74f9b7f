import { createReadStream, createWriteStream } from 'node:fs'
import { join } from 'node:path'
import { Transform, type Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { AddressObject, AttachmentStream, EmailAddress, HeaderValue, Headers, MessageText } from 'mailparser'
import { formatTimestamp } from '../../platform/data/time.js'
import type { ReceivedEmail } from '../send/email-store.js'

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

/** A file of a received message, written to the message's spool directory (its bytes are read when stored). */
export interface IncomingFile {
  filename: string
  contentType: string
  /** Without angle brackets; null when the part has none. */
  contentId: string | null
  size: number
  /** Where its bytes are. */
  path: string
}

/** A received message as parsed: the stored email's fields, who it is from and its files. */
export interface IncomingMessage extends ReceivedEmail {
  /** The From address, lower-cased: who the message is from. */
  fromAddress: string
  /** Its files, each given an id where it is stored (once in each organization it is for). */
  files: IncomingFile[]
}

/** Mailboxes of an address header (From, To, Cc), groups opened; none when the header is not one. */
function mailboxes(header: HeaderValue | undefined): EmailAddress[] {
  const items = header === undefined ? [] : Array.isArray(header) ? header : [header]
  const objects = items.filter(
    (v): v is AddressObject => typeof v === 'object' && !(v instanceof Date) && 'value' in v && Array.isArray(v.value),
  )
  return objects.flatMap((o) => o.value).flatMap((a) => (a.group === undefined ? [a] : a.group))
}

/** A mailbox as written in an Email's fields: `"Name" <a@b.c>`, or `a@b.c` without a name. */
function written(mailbox: { address: string; name: string }): string {
  if (mailbox.name.trim() === '') return mailbox.address
  return `"${mailbox.name.replace(/["\\]/g, (c) => `\\${c}`)}" <${mailbox.address}>`
}

function addresses(header: HeaderValue | undefined): string[] {
  return mailboxes(header).flatMap((m) =>
    m.address === undefined ? [] : [written({ address: m.address, name: m.name })],
  )
}

/** Message-IDs of a header mailparser read as one or several (`<a@b> <c@d>`), each with its angle brackets. */
function messageIds(value: string | string[] | undefined): string[] {
  const raw = value === undefined ? [] : Array.isArray(value) ? value : [value]
  return raw.flatMap((v) => v.match(/<[^<>\s]+>/g) ?? [])
}

/** A header's text (or texts), if it is text. */
function textHeader(value: HeaderValue | undefined): string | string[] | undefined {
  if (typeof value === 'string') return value
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : undefined
}

/**
 * Writes a file's bytes to `path`, up to `limit`: past it the rest is read and dropped. Answers how many bytes the
 * file has (more than `limit` when it is over).
 */
export async function saveUpTo(content: Readable, path: string, limit: number): Promise<number> {
  let size = 0
  const cap = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length
      done(null, size <= limit ? chunk : undefined)
    },
  })
  await pipeline(content, cap, createWriteStream(path, { flags: 'wx', mode: 0o600 }))
  return size
}

/** What the parser gave: the headers, the bodies, the files (written to the spool directory). */
interface Parsed {
  headers: Headers
  text: MessageText | undefined
  files: IncomingFile[]
  /** A file was over the limit. */
  tooLarge: boolean
}

/**
 * Parses the message in `file` as it streams from the disk: each file it carries is written to `spoolDir` in turn
 * (up to `maxAttachmentBytes`), so no file is ever held in memory whole, nor the message.
 */
async function parseFromDisk(file: string, spoolDir: string, maxAttachmentBytes: number): Promise<Parsed> {
  // Loaded when the first message comes in: mailparser and what it loads add some 6 MB of heap to every api process.
  const { MailParser } = await import('mailparser')
  return new Promise((resolve, reject) => {
    const parsed: Parsed = { headers: new Map(), text: undefined, files: [], tooLarge: false }
    // The bodies go in the email as text; the files go to disk, one at a time (the parser waits for `release`).
    const parser = new MailParser({ skipTextToHtml: true })
    let failed = false
    const fail = (error: unknown) => {
      if (failed) return
      failed = true
      parser.destroy()
      reject(error instanceof Error ? error : new Error(String(error)))
    }
    parser.on('headers', (headers: Headers) => {
      parsed.headers = headers
    })
    parser.on('data', (data: AttachmentStream | MessageText) => {
      if (data.type === 'text') {
        parsed.text = data
        return
      }
      const path = join(spoolDir, `file-${String(parsed.files.length + 1)}`)
      const index = parsed.files.length
      saveUpTo(data.content, path, maxAttachmentBytes).then(
        (size) => {
          if (size > maxAttachmentBytes) parsed.tooLarge = true
          parsed.files.push({
            filename: data.filename ?? `attachment-${String(index + 1)}`,
            contentType: data.contentType,
            contentId: data.contentId === undefined ? null : data.contentId.replace(/^<|>$/g, ''),
            size,
            path,
          })
          data.release?.()
        },
        (error: unknown) => {
          fail(error)
        },
      )
    })
    parser.on('error', fail)
    parser.on('end', () => {
      if (!failed) resolve(parsed)
    })
    const input = createReadStream(file)
    input.on('error', fail)
    input.pipe(parser)
  })
}

/** The SMTP refusal a parse failure is, or the failure itself when it is the disk's, not the message's. */
function unreadable(error: unknown): unknown {
  // A system call that failed (ENOSPC, EACCES…) is ours: the sender should try again, not hear its message is bad.
  if (typeof error === 'object' && error !== null && 'syscall' in error) return error
  return new SmtpRefusal(554, '5.6.0 The message could not be read')
}

/**
 * Reads a raw message (RFC 5322) from `file`, its files written to `spoolDir`: a 554 when it cannot be read, a 550
 * when it has no From address, a 552 when one of its files is over `maxAttachmentBytes`.
 */
export async function readIncomingMessage(
  file: string,
  limits: { maxAttachmentBytes: number },
  now: Date,
  spoolDir: string,
): Promise<IncomingMessage> {
  let parsed: Parsed
  try {
    parsed = await parseFromDisk(file, spoolDir, limits.maxAttachmentBytes)
  } catch (error) {
    throw unreadable(error)
  }
  const { headers } = parsed
  const from = mailboxes(headers.get('from')).find((m) => m.address !== undefined && m.address.includes('@'))
  if (from?.address === undefined) throw new SmtpRefusal(550, '5.1.7 The message has no From address')
  if (parsed.tooLarge) {
    throw new SmtpRefusal(552, `5.3.4 An attachment is over the limit of ${String(limits.maxAttachmentBytes)} bytes`)
  }
  const dateHeader = headers.get('date')
  const date = dateHeader instanceof Date && !Number.isNaN(dateHeader.getTime()) ? dateHeader : now
  const [inReplyTo] = messageIds(textHeader(headers.get('in-reply-to')))
  const [messageId] = messageIds(textHeader(headers.get('message-id')))
  const subject = textHeader(headers.get('subject'))
  const html = parsed.text?.html
  return {
    fromAddress: from.address.toLowerCase(),
    sender: written({ address: from.address, name: from.name }),
    to: addresses(headers.get('to')),
    cc: addresses(headers.get('cc')),
    subject: typeof subject === 'string' ? subject : '',
    // Without the line break a message's text ends with, which a preview would show.
    bodyText: (parsed.text?.text ?? '').trimEnd(),
    bodyHtml: typeof html === 'string' ? html : null,
    messageId: messageId ?? null,
    inReplyTo: inReplyTo ?? null,
    references: messageIds(textHeader(headers.get('references'))),
    dateSent: formatTimestamp(date),
    files: parsed.files,
  }
}
