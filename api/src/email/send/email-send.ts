import { isIP } from 'node:net'
import { performance } from 'node:perf_hooks'
import { Readable } from 'node:stream'
import type { Attachment } from 'nodemailer'
import type Mail from 'nodemailer/lib/mailer'
import { smtpServerKey, type Config } from '../../platform/config.js'
import type { ActivityTable, Db, Dialect } from '../../platform/data/database.js'
import {
  EmailAccountSecretError,
  findEmailAccount,
  recordAccountSend,
  type SmtpSettings,
} from '../accounts/email-account-repo.js'
import {
  findEmailAttachment,
  findStoredFiles,
  storedAttachmentId,
  storedAttachmentIds,
} from '../attachments/email-attachment-repo.js'
import {
  messageSendHandler,
  storedMessage,
  type SendAttempt,
  type SendChannel,
} from '../../integrations/messages/message-send.js'
import type { HandlerContext, OutboxHandler } from '../../integrations/outbox/outbox-dispatcher.js'
import {
  createOutboundClient,
  type OutboundClient,
  type OutboundDownload,
  type Resolver,
  systemResolver,
} from '../../integrations/outbound/outbound-client.js'
import { privateAddressAmong } from '../../platform/security/host-check.js'
import type { SendDeadline } from '../../integrations/outbound/send-deadline.js'
import { bytesText, hasControlCharacter } from '../../platform/text/text.js'
import { formatTimestamp, type Clock } from '../../platform/data/time.js'
import { addressDomain, parseAddress, parseMailbox, type EnvelopeAddress } from '../../platform/text/email-text.js'
import { createFollowup } from './email-followup.js'
import type { ActivityData } from '../../crm/activities/activity-repo.js'
import { recordMessageIds } from './email-thread.js'
import { outboundPrivateAllowed } from '../../platform/config.js'

// Sending an email (docs/decisions/0031-emails-and-sending.md): an `email_send` row in the outbox, handled like a
// text's, through the SMTP server of the account the email was written for, with nodemailer. The server's host
// passes the outbound guard (no private address unless LEADLINE_OUTBOUND_ALLOW_PRIVATE=1 or the server is one of
// LEADLINE_SMTP_ALLOW_HOSTS) and is connected to at the address checked; TLS is implicit with `use_ssl`, else
// STARTTLS whenever the server offers it, and certificates are verified against the host's name. Its files go with it
// (docs/decisions/0034-outgoing-attachments.md): stored ones read from the database as the message is written, https
// ones fetched first through the outbound guard. Every step is within the send's one deadline (half the outbox
// lease), and nothing goes out whose headers would carry a control character or whose envelope would differ from
// the addresses stored (docs/decisions/0037-who-sends-clean-headers-send-deadline.md).

export const EMAIL_SEND_KIND = 'email_send'
/** An email's sends: `email_send` rows, ordering key `email:<activity id>`. */
type EmailData = ActivityData['Email']

export const EMAIL_CHANNEL: SendChannel<'Email'> = { type: 'Email', kind: EMAIL_SEND_KIND, prefix: 'email' }
/** The longest wait between two attempts at an email. */
export const EMAIL_RETRY_CAP_MS = 600_000

/** A stored email's fields (written only by this module's routes and senders, and by incoming mail). */
export function storedEmail(row: ActivityTable): EmailData {
  return storedMessage<'Email'>(row)
}

/** The Message-ID an email goes out with: its activity id at its sender's domain (the same on every attempt). */
export function messageIdOf(activityId: string, sender: string | null): string {
  const address = sender === null ? undefined : parseAddress(sender)
  return `<${activityId}@${address === undefined ? 'leadline.invalid' : addressDomain(address.email)}>`
}

/** The `In-Reply-To` and `References` of a reply: of the email it answers, else of the thread's latest one with a Message-ID. */
async function replyHeaders(db: Db, email: ActivityTable, data: EmailData) {
  const earlier = await db
    .selectFrom('activity')
    .select(['id', 'data'])
    .where('organization_id', '=', email.organization_id)
    .where('type', '=', 'Email')
    .where((eb) =>
      data.in_reply_to_id === null
        ? eb.and([eb('thread_id', '=', email.thread_id ?? ''), eb('id', '<>', email.id)])
        : eb('id', '=', data.in_reply_to_id),
    )
    .orderBy('date_created', 'desc')
    .orderBy('id', 'desc')
    .limit(50)
    .execute()
  for (const row of earlier) {
    const answered = storedMessage<'Email'>({ ...email, data: row.data })
    const messageId = answered.message_ids[0]
    if (messageId === undefined) continue
    return { inReplyTo: messageId, references: [...answered.references.filter((r) => r !== messageId), messageId] }
  }
  return undefined
}

/** An SMTP host the outbound guard refuses: no retry will reach it. */
class OutboundGuardError extends Error {}

/**
 * The address the SMTP host is reached at: resolved once (within the send's deadline), refused when private unless
 * that is allowed.
 */
async function guardedAddress(
  host: string,
  allowPrivate: boolean,
  resolve: Resolver,
  deadline: SendDeadline,
): Promise<string> {
  const addresses = await deadline.within(resolve(host), `Looking up ${host}`)
  if (!allowPrivate) {
    const inside = privateAddressAmong(addresses)
    if (inside !== undefined)
      throw new OutboundGuardError(`refused: ${host} resolves to ${inside.address}, a private address`)
  }
  const chosen = addresses.find((a) => a.family === 4) ?? addresses[0]
  if (chosen === undefined) throw new Error(`${host} has no address`)
  return chosen.address
}

/** Answers to a download that no retry will change: the guard's refusal, a file too large, gone or forbidden. */
const FINAL_STATUSES = [403, 404, 410]

function finalDownloadFailure(download: OutboundDownload): boolean {
  if (download.failure === 'refused' || download.failure === 'too_large') return true
  const status = download.statusCode ?? 0
  return download.failure === 'status' && (FINAL_STATUSES.includes(status) || (status >= 300 && status < 400))
}

/** A stored file's bytes as a stream that reads them from the database only when the message is written. */
function storedContent(db: Db, organizationId: string, id: string, filename: string): Readable {
  return Readable.from(
    (async function* () {
      const row = await findEmailAttachment(db, organizationId, id)
      if (row === undefined) throw new Error(`The attachment "${filename}" is no longer stored.`)
      yield Buffer.from(row.content, 'base64')
    })(),
  )
}

/**
 * The values of an email that become header lines (or parts' headers), named as a request's field errors name them:
 * a control character in one could end its line and start another header, so the email does not go out.
 */
function headerValues(data: EmailData): [string, string][] {
  const values: [string, string][] = [
    ['sender', data.sender ?? ''],
    ['subject', data.subject],
  ]
  for (const field of ['to', 'cc', 'bcc'] as const)
    data[field].forEach((value, i) => values.push([`${field}.${String(i)}`, value]))
  data.attachments.forEach((file, i) => {
    const at = `attachments.${String(i)}`
    values.push([`${at}.filename`, file.filename], [`${at}.content_type`, file.content_type ?? ''])
    values.push([`${at}.content_id`, file.content_id ?? ''])
  })
  data.references.forEach((value, i) => values.push([`references.${String(i)}`, value]))
  return values
}

/** The envelope and address headers of an email: each stored address read as exactly one mailbox, or the one that is not. */
type EmailAddresses =
  { from: EnvelopeAddress; to: EnvelopeAddress[]; cc: EnvelopeAddress[]; bcc: EnvelopeAddress[] } | { problem: string }

function emailAddresses(data: EmailData, accountAddress: string): EmailAddresses {
  const read = (field: string, value: string): EnvelopeAddress | string => {
    const address = parseMailbox(value)
    return address ?? `${field} (${value}) is not one email address`
  }
  const from = read('sender', data.sender ?? accountAddress)
  if (typeof from === 'string') return { problem: from }
  const lists = { to: [] as EnvelopeAddress[], cc: [] as EnvelopeAddress[], bcc: [] as EnvelopeAddress[] }
  for (const field of ['to', 'cc', 'bcc'] as const) {
    for (const [i, value] of data[field].entries()) {
      const address = read(`${field}.${String(i)}`, value)
      if (typeof address === 'string') return { problem: address }
      lists[field].push(address)
    }
  }
  return { from, ...lists }
}

/** The files of an email as nodemailer attaches them, or why it cannot go out (`final`: no retry mends it). */
type EmailFiles = { files: Attachment[] } | { error: string; target: string; final: boolean }

/** An SMTP failure as a line: the server's answer when it gave one, else what went wrong. */
function smtpError(error: unknown): string {
  if (error instanceof Error) {
    const response = 'response' in error && typeof error.response === 'string' ? error.response : undefined
    return response ?? error.message
  }
  return String(error)
}

/** How a message reaches an account's SMTP server: the outbound guard's settings, TLS beyond the defaults, a deadline. */
export interface SmtpDeliveryOptions {
  allowPrivate: boolean
  /** LEADLINE_SMTP_ALLOW_HOSTS: `host:port` keys (`smtpServerKey`) reached even at a private address. */
  allowedSmtpServers: ReadonlySet<string>
  tls?: { ca?: string; rejectUnauthorized?: boolean } | undefined
  resolve: Resolver
  /** The send's one deadline: the lookup, the connection, TLS and the SMTP dialogue all end within it. */
  deadline: SendDeadline
}

/**
 * Hands `mail` to the account's SMTP server, reached at an address the outbound guard allows; answers the server as
 * `target`, and the failure (`final`: no retry will reach the server) or null, and the server's
 * answer to the message when it took it. Every email Leadline sends goes here.
 */
export async function deliverThroughAccount(
  smtp: SmtpSettings,
  mail: Mail.Options,
  options: SmtpDeliveryOptions,
): Promise<{ target: string; error: string | null; final: boolean; response?: string }> {
  const target = `smtp://${smtp.host}:${String(smtp.port)}`
  const { deadline } = options
  let address: string
  try {
    const allowed = options.allowPrivate || options.allowedSmtpServers.has(smtpServerKey(smtp.host, smtp.port))
    address = await guardedAddress(smtp.host, allowed, options.resolve, deadline)
  } catch (error) {
    return { target, error: smtpError(error), final: error instanceof OutboundGuardError }
  }
  const left = deadline.left()
  if (left <= 0) return { target, error: 'The send ran out of time before it reached the SMTP server.', final: false }
  // Loaded when an email first goes out: an api that sends none does not hold it.
  const { default: nodemailer } = await import('nodemailer')
  const transport = nodemailer.createTransport({
    host: address,
    port: smtp.port,
    secure: smtp.useSsl,
    ...(smtp.username === null ? {} : { auth: { user: smtp.username, pass: smtp.password ?? '' } }),
    // The certificate is checked against the host's name (an IP literal is checked as itself, without SNI).
    tls: { ...(isIP(smtp.host) === 0 ? { servername: smtp.host } : {}), ...options.tls },
    connectionTimeout: left,
    greetingTimeout: left,
    socketTimeout: left,
  })
  try {
    // The signal aborts the SMTP dialogue (connection, TLS, every command) when the deadline passes.
    const info: { response?: unknown } = await transport.sendMail({ ...mail, signal: deadline.signal })
    return { target, error: null, final: false, response: typeof info.response === 'string' ? info.response : '' }
  } catch (error) {
    const late = deadline.signal.aborted ? ' (cut off: the send took longer than the time it has)' : ''
    return { target, error: `${smtpError(error)}${late}`, final: false }
  } finally {
    transport.close()
  }
}
export interface EmailSenderOptions {
  db: Db
  dialect: Dialect
  clock: Clock
  config: Pick<Config, 'email' | 'emailReceive' | 'leadWebhookUrl' | 'outboundAllowPrivate' | 'secretBox'>
  /**
   * TLS settings beyond the defaults: tests trust their self-signed certificate here (`ca`), for the SMTP server and
   * for the servers attachments are fetched from.
   */
  tls?: { ca?: string; rejectUnauthorized?: boolean }
  /** How SMTP hosts and attachments' hosts are resolved; the system's by default (tests give one that never answers). */
  resolve?: Resolver
}

/**
 * The dispatcher's handler of `email_send` rows: the email goes out through its account's SMTP server; `sent` only
 * once the server accepted it (with its Message-ID, and its follow-up task); a refusal or failure is retried with
 * backoff up to LEADLINE_EMAIL_MAX_ATTEMPTS, then the email is `error`. An account deleted since, or a password that
 * no longer decrypts, fails it at once.
 */
export function emailSendHandler(options: EmailSenderOptions): (context: HandlerContext) => OutboxHandler {
  const { db, clock, config } = options
  const allowPrivate = outboundPrivateAllowed(config)
  const ca = options.tls?.ca
  // Downloads keep no connection open, so this client holds nothing to close.
  const resolve = options.resolve ?? systemResolver
  const client: OutboundClient = createOutboundClient({
    allowPrivate,
    ...(ca === undefined ? {} : { ca }),
    ...(options.resolve === undefined ? {} : { resolve }),
  })
  const limits = config.emailReceive

  /**
   * The email's files: stored ones (their sizes read now, their bytes as the message is written), https ones
   * downloaded, all of them within the send's deadline and together within the message limit.
   */
  async function emailFiles(email: ActivityTable, data: EmailData, deadline: SendDeadline): Promise<EmailFiles> {
    if (data.attachments.length === 0) return { files: [] }
    const stored = await findStoredFiles(db, email.organization_id, storedAttachmentIds(data.attachments), false)
    const files: Attachment[] = []
    let total = 0
    for (const listed of data.attachments) {
      const name = `"${listed.filename}"`
      const inline = listed.content_id === undefined || listed.content_id === null ? {} : { cid: listed.content_id }
      const id = storedAttachmentId(listed.url)
      if (id !== undefined) {
        const file = stored.get(id)
        if (file === undefined)
          return { error: `The attachment ${name} is no longer stored.`, target: listed.url, final: true }
        total += file.size
        files.push({
          filename: file.filename,
          contentType: file.content_type,
          content: storedContent(db, email.organization_id, id, file.filename),
          ...inline,
        })
      } else {
        const left = deadline.left()
        if (left <= 0) {
          const error = 'The attachments could not all be fetched within the time a send has.'
          return { error, target: listed.url, final: false }
        }
        const download = await client.get({ url: listed.url, timeoutMs: left, maxBytes: limits.maxAttachmentBytes })
        if (download.body === null) {
          const why =
            download.failure === 'too_large'
              ? `is larger than ${bytesText(limits.maxAttachmentBytes)}, the limit of a file`
              : `could not be fetched from ${listed.url}: ${download.error ?? 'no answer'}`
          return { error: `The attachment ${name} ${why}.`, target: listed.url, final: finalDownloadFailure(download) }
        }
        total += download.body.length
        files.push({
          filename: listed.filename,
          content: download.body,
          ...(listed.content_type === null ? {} : { contentType: listed.content_type }),
          ...inline,
        })
      }
      if (total > limits.maxMessageBytes) {
        const error = `The attachments add up to more than ${bytesText(limits.maxMessageBytes)}, the limit of a message.`
        return { error, target: listed.url, final: true }
      }
    }
    return { files }
  }

  async function send(email: ActivityTable, deadline: SendDeadline): Promise<SendAttempt<'Email'>> {
    const started = performance.now()
    const outcome = (error: string | null, target: string, final = false): SendAttempt<'Email'> => ({
      result: { ok: error === null, statusCode: null, durationMs: Math.round(performance.now() - started), error },
      target,
      final,
    })
    const data = storedEmail(email)
    let account
    try {
      account =
        data.email_account_id === null
          ? undefined
          : await findEmailAccount(db, config.secretBox, email.organization_id, data.email_account_id)
    } catch (error) {
      if (error instanceof EmailAccountSecretError) return outcome(error.message, 'smtp:', true)
      throw error
    }
    if (account === undefined)
      return outcome('The email account this email was to be sent through no longer exists.', 'smtp:', true)
    const { smtp } = account
    const target = `smtp://${smtp.host}:${String(smtp.port)}`
    // The last guard: what the API refused on the way in (decision 0037) does not go out if it was stored anyway.
    const unsafe = headerValues(data).find(([, value]) => hasControlCharacter(value))
    if (unsafe !== undefined)
      return outcome(
        `Not sent: the email’s ${unsafe[0]} holds a line break or another control character.`,
        target,
        true,
      )
    const addresses = emailAddresses(data, account.email)
    if ('problem' in addresses) return outcome(`Not sent: ${addresses.problem}.`, target, true)
    const attached = await emailFiles(email, data, deadline)
    if ('error' in attached) return outcome(attached.error, attached.target, attached.final)
    const messageId = messageIdOf(email.id, data.sender)
    const reply = await replyHeaders(db, email, data)
    const mailbox = (a: EnvelopeAddress) => ({ name: a.name, address: a.email })
    const { from, to, cc, bcc } = addresses
    const delivery = await deliverThroughAccount(
      smtp,
      {
        from: mailbox(from),
        to: to.map(mailbox),
        cc: cc.map(mailbox),
        bcc: bcc.map(mailbox),
        // Exactly the stored recipients, each once as stored: nodemailer does not work the envelope out itself.
        envelope: { from: from.email, to: [...to, ...cc, ...bcc].map((a) => a.email) },
        subject: data.subject,
        text: data.body_text,
        html: data.body_html,
        messageId,
        date: clock.now(),
        attachments: attached.files,
        ...(reply === undefined ? {} : { inReplyTo: reply.inReplyTo, references: reply.references }),
      },
      { allowPrivate, allowedSmtpServers: config.email.allowedSmtpServers, tls: options.tls, resolve, deadline },
    )
    await recordAccountSend(db, email.organization_id, account.id, {
      error: delivery.error,
      at: formatTimestamp(clock.now()),
    })
    if (delivery.error !== null) return outcome(delivery.error, delivery.target, delivery.final)
    return {
      ...outcome(null, delivery.target),
      sentFields: { message_ids: [messageId], references: reply?.references ?? [] },
    }
  }

  return messageSendHandler({
    db,
    dialect: options.dialect,
    clock,
    channel: EMAIL_CHANNEL,
    leadWebhookUrl: config.leadWebhookUrl,
    retry: {
      baseMs: config.email.retrySeconds * 1000,
      capMs: EMAIL_RETRY_CAP_MS,
      maxAttempts: config.email.maxAttempts,
    },
    send: (email, { deadline }) => send(email, deadline),
    async after(tx, email, settlement) {
      if (settlement.outcome !== 'sent' || email.thread_id === null) return
      const data = storedEmail(email)
      const ids = { organizationId: email.organization_id, activityId: email.id, threadId: email.thread_id }
      await recordMessageIds(tx, ids, data.message_ids)
      if (data.followup_date === null || email.user_id === null) return
      await createFollowup(
        tx,
        {
          ...ids,
          leadId: email.lead_id,
          contactId: email.contact_id,
          userId: email.user_id,
          subject: data.subject,
          bodyText: data.body_text,
          followupDate: data.followup_date,
        },
        settlement.at,
        settlement.events,
      )
    },
  })
}
