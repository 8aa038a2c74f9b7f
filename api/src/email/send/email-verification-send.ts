import { performance } from 'node:perf_hooks'
import type { Config } from '../../platform/config.js'
import type { Db } from '../../platform/data/database.js'
import { EmailAccountSecretError, findEmailAccount, recordAccountSend } from '../accounts/email-account-repo.js'
import { isWaitingLink, LINK_LIFETIME_MS, type VerificationPayload } from '../accounts/email-address-verification.js'
import type { HandlerContext, OutboxHandler, OutboxRow } from '../../integrations/outbox/outbox-dispatcher.js'
import { systemResolver, type Resolver } from '../../integrations/outbound/outbound-client.js'
import { sendDeadline } from '../../integrations/outbound/send-deadline.js'
import { parseJsonObject } from '../../platform/http/raw-json.js'
import { formatTimestamp, type Clock } from '../../platform/data/time.js'
import { deliverThroughAccount } from './email-send.js'
import { linkMailRecorder } from './link-mail-record.js'
import { outboundPrivateAllowed } from '../../platform/config.js'

// The link that verifies an address of an email account (docs/decisions/0038-email-address-owners.md) goes out like
// any email of the account: through its own SMTP server, by `deliverThroughAccount`, retried as emails are. Once
// the row is settled its token is blanked, so the token lives in the database only until it was sent.

export interface VerificationSenderOptions {
  db: Db
  clock: Clock
  config: Pick<Config, 'appUrl' | 'email' | 'outboundAllowPrivate' | 'secretBox'>
  /** TLS settings beyond the defaults (tests trust their SMTP sink's certificate). */
  tls?: { ca?: string; rejectUnauthorized?: boolean }
  /** How SMTP hosts are resolved; the system's by default. */
  resolve?: Resolver
}

function payloadOf(row: OutboxRow): VerificationPayload {
  return parseJsonObject(row.payload) as unknown as VerificationPayload
}

function message(appUrl: string, payload: VerificationPayload & { token: string }, userName: string) {
  const link = `${appUrl}/verify-email?token=${encodeURIComponent(payload.token)}`
  const who = userName === '' ? 'A user' : userName
  return {
    subject: 'Confirm your address for Leadline',
    text:
      `${who} asked to send and receive email as ${payload.address} in Leadline.\n\n` +
      `If that is you, open this link while signed in to Leadline, and confirm:\n${link}\n\n` +
      `The link works once, for ${String(LINK_LIFETIME_MS / 3_600_000)} hours. If you did not ask for this, ` +
      'ignore this email: the address stays unverified, and receives nothing through Leadline.\n',
  }
}

/** The dispatcher's handler of `email_verify` rows. */
export function verificationSendHandler(
  options: VerificationSenderOptions,
): (context: HandlerContext) => OutboxHandler {
  const { db, clock, config } = options
  const allowPrivate = outboundPrivateAllowed(config)

  return (context) => {
    const record = linkMailRecorder(db, clock, config.email, context)

    return async (row) => {
      const deadline = sendDeadline(context.sendTimeoutMs)
      const started = performance.now()
      const elapsed = () => Math.round(performance.now() - started)
      const payload = payloadOf(row)
      if (payload.token === null || !(await isWaitingLink(db, row.organization_id, payload))) {
        await record(row, 'smtp:', 'The address was removed or verified, or a newer link replaced this one.', true, 0)
        return true
      }
      let account
      try {
        account = await findEmailAccount(db, config.secretBox, row.organization_id, payload.email_account_id)
      } catch (error) {
        if (!(error instanceof EmailAccountSecretError)) throw error
        await record(row, 'smtp:', error.message, true, elapsed())
        return true
      }
      if (account === undefined) {
        await record(row, 'smtp:', 'The email account no longer exists.', true, elapsed())
        return true
      }
      const user = await db
        .selectFrom('user')
        .select(['first_name', 'last_name'])
        .where('id', '=', account.userId)
        .executeTakeFirst()
      const userName = [user?.first_name ?? '', user?.last_name ?? ''].filter((part) => part.trim() !== '').join(' ')
      const delivery = await deliverThroughAccount(
        account.smtp,
        {
          from: account.email,
          to: payload.address,
          date: clock.now(),
          ...message(config.appUrl, { ...payload, token: payload.token }, userName),
        },
        {
          allowPrivate,
          allowedSmtpServers: config.email.allowedSmtpServers,
          tls: options.tls,
          resolve: options.resolve ?? systemResolver,
          deadline,
        },
      )
      await recordAccountSend(db, row.organization_id, account.id, {
        error: delivery.error,
        at: formatTimestamp(clock.now()),
      })
      await record(row, delivery.target, delivery.error, delivery.final, elapsed())
      return true
    }
  }
}
