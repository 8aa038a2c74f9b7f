import { inTransaction, type Db } from '../platform/data/database.js'
import { formatTimestamp, type Clock } from '../platform/data/time.js'
import { newId } from '../platform/security/ids.js'
import { linkTokenHash, newLinkToken } from '../platform/security/single-use-link.js'
import { queueLinkMail, type LinkPayload, type SystemMail } from './system-mail.js'

// A forgotten password: a link emailed by the system mailer sets a new one, once, within the hour. At most three
// links an hour go to one address, so no one can flood a mailbox with them.

/** The outbox kind of a reset link's email (`kind` holds 16 characters). */
export const PASSWORD_RESET_KIND = 'password_reset'
export const RESET_LIFETIME_MS = 3_600_000
export const RESETS_PER_HOUR = 3
export const RESET_INVALID = 'This reset link is not valid any more. Ask for a new one.'

export function resetLink(appUrl: string, token: string): string {
  return `${appUrl}/reset-password?token=${encodeURIComponent(token)}`
}

/**
 * Makes a reset link for the user with this address when they are an active member somewhere and had fewer than
 * three links this hour, and queues its email; answers the token, or undefined when no link was made.
 */
export async function requestPasswordReset(db: Db, clock: Clock, email: string): Promise<string | undefined> {
  const now = clock.now()
  return inTransaction(db, async (tx) => {
    const user = await tx
      .selectFrom('user')
      .innerJoin('membership', 'membership.user_id', 'user.id')
      .select(['user.id', 'membership.organization_id'])
      .where('user.email_lower', '=', email.trim().toLowerCase())
      .where('membership.status', '=', 'active')
      .orderBy('membership.date_created')
      .limit(1)
      .executeTakeFirst()
    if (user === undefined) return undefined
    const recent = await tx
      .selectFrom('password_reset')
      .select((eb) => eb.fn.countAll<number | string>().as('count'))
      .where('user_id', '=', user.id)
      .where('date_created', '>', formatTimestamp(new Date(now.getTime() - 3_600_000)))
      .executeTakeFirst()
    if (Number(recent?.count ?? 0) >= RESETS_PER_HOUR) return undefined
    const { token, hash } = newLinkToken()
    const id = newId('passwordReset')
    await tx
      .insertInto('password_reset')
      .values({
        id,
        user_id: user.id,
        token_hash: hash,
        date_created: formatTimestamp(now),
        date_expires: formatTimestamp(new Date(now.getTime() + RESET_LIFETIME_MS)),
        date_used: null,
      })
      .execute()
    await queueLinkMail(
      tx,
      { organizationId: user.organization_id, kind: PASSWORD_RESET_KIND, payload: { id, token } },
      now,
    )
    return token
  })
}

/** The reset link `token` is while it can be used: its id and its user's. */
export async function usableReset(db: Db, token: string, now: Date) {
  if (token.length > 100) return undefined
  return db
    .selectFrom('password_reset')
    .innerJoin('user', 'user.id', 'password_reset.user_id')
    .select(['password_reset.id', 'password_reset.user_id', 'user.email', 'user.email_lower'])
    .where('password_reset.token_hash', '=', linkTokenHash(token))
    .where('password_reset.date_used', 'is', null)
    .where('password_reset.date_expires', '>', formatTimestamp(now))
    .executeTakeFirst()
}

/** Uses up a user's reset links, the one followed first (false when it was used meanwhile), in the caller's transaction. */
export async function useResetLinks(tx: Db, reset: { id: string; user_id: string }, now: Date): Promise<boolean> {
  const stamp = formatTimestamp(now)
  const used = await tx
    .updateTable('password_reset')
    .set({ date_used: stamp })
    .where('id', '=', reset.id)
    .where('date_used', 'is', null)
    .executeTakeFirst()
  if (Number(used.numUpdatedRows) === 0) return false
  await tx
    .updateTable('password_reset')
    .set({ date_used: stamp })
    .where('user_id', '=', reset.user_id)
    .where('date_used', 'is', null)
    .execute()
  return true
}

/** The email of a reset link that can still be used. */
export async function passwordResetMail(
  db: Db,
  appUrl: string,
  payload: LinkPayload & { token: string },
  now: Date,
): Promise<SystemMail | undefined> {
  const reset = await usableReset(db, payload.token, now)
  if (reset?.id !== payload.id) return undefined
  return {
    to: reset.email,
    subject: 'Reset your Leadline password',
    text:
      'Someone asked to reset the password of your Leadline account. If that was you, choose a new password here:\n' +
      `${resetLink(appUrl, payload.token)}\n\n` +
      'The link works once, for 1 hour. If you did not ask for this, ignore this email: your password stays as it is.\n',
  }
}
