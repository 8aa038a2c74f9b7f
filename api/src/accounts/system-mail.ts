import { isIP } from 'node:net'
import { performance } from 'node:perf_hooks'
import type { Config, SystemMailConfig } from '../platform/config.js'
import type { Db } from '../platform/data/database.js'
import { formatTimestamp, type Clock } from '../platform/data/time.js'
import { parseJsonObject } from '../platform/http/raw-json.js'
import type { HandlerContext, OutboxHandler, OutboxRow } from '../integrations/outbox/outbox-dispatcher.js'
import { enqueueDelivery } from '../integrations/outbox/outbox-writer.js'
import { sendDeadline } from '../integrations/outbound/send-deadline.js'
import { linkMailRecorder } from '../email/send/link-mail-record.js'

// Leadline's own mail (an invitation, a password reset) goes out through the system mailer, the operator's relay
// (LEADLINE_SYSTEM_SMTP_URL), by an outbox row written with the link it carries. The link's token waits in the row
// only until the mail is sent (or can no longer be), then is blanked; before sending, the handler checks that the
// link is still the waiting one (not revoked, replaced or used), else settles the row without sending.

export const NO_SYSTEM_MAILER = 'No system mailer is configured (LEADLINE_SYSTEM_SMTP_URL)'

/** What an outbox row of a link carries: its object and the token, null once sent. */
export interface LinkPayload {
  id: string
  token: string | null
}

export interface SystemMail {
  to: string
  subject: string
  text: string
}

/** Queues the email of a link, in the caller's transaction (`kind` holds 16 characters). */
export async function queueLinkMail(
  tx: Db,
  input: { organizationId: string; kind: string; payload: LinkPayload },
  at: Date,
): Promise<void> {
  const now = formatTimestamp(at)
  await enqueueDelivery(tx, {
    organizationId: input.organizationId,
    kind: input.kind,
    // One link's mail at a time; another link's never waits behind it.
    orderingKey: `${input.kind}:${input.payload.id}`,
    payload: JSON.stringify(input.payload),
    dueAt: now,
    now,
  })
}

/** Hands `mail` to the system mailer; answers where it went and the failure, or null. */
export async function sendSystemMail(
  config: SystemMailConfig,
  mail: SystemMail & { date: Date },
  options: { tls?: { ca?: string; rejectUnauthorized?: boolean } | undefined; timeoutMs: number },
): Promise<{ target: string; error: string | null; final: boolean }> {
  const smtp = config.smtp
  if (smtp === null) return { target: 'smtp:', error: NO_SYSTEM_MAILER, final: true }
  const target = `${smtp.secure ? 'smtps' : 'smtp'}://${isIP(smtp.host) === 6 ? `[${smtp.host}]` : smtp.host}:${String(smtp.port)}`
  const deadline = sendDeadline(options.timeoutMs)
  const { default: nodemailer } = await import('nodemailer')
  const transport = nodemailer.createTransport({
    host: smtp.host,
    port: smtp.port,
    secure: smtp.secure,
    ...(smtp.user === null ? {} : { auth: { user: smtp.user, pass: smtp.password ?? '' } }),
    tls: { ...(isIP(smtp.host) === 0 ? { servername: smtp.host } : {}), ...options.tls },
    connectionTimeout: options.timeoutMs,
    greetingTimeout: options.timeoutMs,
    socketTimeout: options.timeoutMs,
  })
  try {
    await transport.sendMail({ from: config.from, ...mail, signal: deadline.signal })
    return { target, error: null, final: false }
  } catch (error) {
    const response = error instanceof Error && 'response' in error ? error.response : undefined
    const why = typeof response === 'string' ? response : error instanceof Error ? error.message : String(error)
    return { target, error: why, final: false }
  } finally {
    transport.close()
  }
}

export interface LinkMailOptions {
  db: Db
  clock: Clock
  config: Pick<Config, 'appUrl' | 'email' | 'systemMail'>
  /** TLS settings beyond the defaults (tests trust their SMTP sink's certificate). */
  tls?: { ca?: string; rejectUnauthorized?: boolean }
}

/**
 * The dispatcher's handler of one kind of link mail: `compose` answers the email of a link that is still the waiting
 * one, or undefined (the row settles unsent). Retried as emails are (LEADLINE_EMAIL_RETRY_SECONDS, _MAX_ATTEMPTS).
 */
export function linkMailHandler(
  options: LinkMailOptions,
  compose: (db: Db, payload: LinkPayload & { token: string }, now: Date) => Promise<SystemMail | undefined>,
): (context: HandlerContext) => OutboxHandler {
  const { db, clock, config } = options
  return (context) => {
    const record = linkMailRecorder(db, clock, config.email, context)

    return async (row) => {
      const started = performance.now()
      const payload = payloadOf(row)
      const mail =
        payload.token === null ? undefined : await compose(db, { ...payload, token: payload.token }, clock.now())
      if (mail === undefined) {
        await record(row, 'smtp:', 'The link was used, revoked or replaced, or it expired: nothing was sent.', true, 0)
        return true
      }
      const delivery = await sendSystemMail(
        config.systemMail,
        { ...mail, date: clock.now() },
        { tls: options.tls, timeoutMs: context.sendTimeoutMs },
      )
      await record(row, delivery.target, delivery.error, delivery.final, Math.round(performance.now() - started))
      return true
    }
  }
}

function payloadOf(row: OutboxRow): LinkPayload {
  const parsed = parseJsonObject(row.payload)
  return {
    id: typeof parsed.id === 'string' ? parsed.id : '',
    token: typeof parsed.token === 'string' ? parsed.token : null,
  }
}
