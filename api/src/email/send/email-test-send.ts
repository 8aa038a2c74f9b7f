import type { Config } from '../../platform/config.js'
import { outboundPrivateAllowed } from '../../platform/config.js'
import type { Db } from '../../platform/data/database.js'
import { formatTimestamp, type Clock } from '../../platform/data/time.js'
import type { Resolver } from '../../platform/security/host-check.js'
import { sendDeadline } from '../../integrations/outbound/send-deadline.js'
import { EmailAccountSecretError, findEmailAccount, recordAccountSend } from '../accounts/email-account-repo.js'
import { deliverThroughAccount } from './email-send.js'

// A test email (`POST /email_account/{id}/send_test/`): sent at once, within the request, through the account's
// SMTP server by the code every email goes through, so the outbound guard and LEADLINE_SMTP_ALLOW_HOSTS apply as
// they do to real sends. Its outcome is the account's `last_error` like any send's.

/** The longest a test email may take: a request should not hang for the outbox's whole send time. */
export const TEST_SEND_TIMEOUT_MS = 20_000

export type TestSendResult = { ok: true; response: string } | { ok: false; error: string }

export interface TestSendOptions {
  db: Db
  clock: Clock
  config: Pick<Config, 'email' | 'outboundAllowPrivate' | 'outbox' | 'secretBox'>
  resolve: Resolver
  /** TLS settings beyond the defaults (tests trust their SMTP sink's certificate). */
  tls?: { ca?: string; rejectUnauthorized?: boolean }
}

export async function sendTestEmail(
  options: TestSendOptions,
  account: { organizationId: string; id: string },
  to: string | undefined,
): Promise<TestSendResult> {
  const { db, clock, config } = options
  let found
  try {
    found = await findEmailAccount(db, config.secretBox, account.organizationId, account.id)
  } catch (error) {
    if (!(error instanceof EmailAccountSecretError)) throw error
    found = error
  }
  if (found === undefined) return { ok: false, error: 'The email account no longer exists.' }
  const deadline = sendDeadline(Math.min(TEST_SEND_TIMEOUT_MS, Math.floor((config.outbox.leaseSeconds * 1000) / 2)))
  const delivery =
    found instanceof EmailAccountSecretError
      ? { error: found.message, response: undefined }
      : await deliverThroughAccount(
          found.smtp,
          {
            from: found.email,
            to: to ?? found.email,
            date: clock.now(),
            subject: 'Leadline test email',
            text:
              `This is a test email from Leadline, sent through the SMTP server of the email account ${found.email}.\n\n` +
              'It arrived, so the account can send.\n',
          },
          {
            allowPrivate: outboundPrivateAllowed(config),
            allowedSmtpServers: config.email.allowedSmtpServers,
            tls: options.tls,
            resolve: options.resolve,
            deadline,
          },
        )
  await recordAccountSend(db, account.organizationId, account.id, {
    error: delivery.error,
    at: formatTimestamp(clock.now()),
  })
  return delivery.error === null
    ? { ok: true, response: delivery.response ?? '' }
    : { ok: false, error: delivery.error }
}
