import type { Db } from '../../platform/data/database.js'
import { enqueueDelivery } from '../../integrations/outbox/outbox-writer.js'
import { HttpError, ValidationError } from '../../platform/http/errors.js'
import { LINK_TOKEN_LENGTH, linkTokenHash, newLinkToken } from '../../platform/security/single-use-link.js'
import { formatTimestamp } from '../../platform/data/time.js'

// Verifying an account's address (docs/decisions/0038-email-address-owners.md): a link with a single-use token is
// emailed to the address, through the account's own SMTP server, by an outbox row; following it while signed in as
// the account's user makes the address verified, so it receives mail and may be sent as. Only the token's SHA-256 is
// stored on the address; the token itself waits in the outbox row until the mail is sent, then is blanked.

/** The outbox kind of a verification link (`kind` holds 16 characters): `{email_account_id, address, token}`, ordering key `email_verify:<account>`. */
export const EMAIL_VERIFY_KIND = 'email_verify'
export const LINK_LIFETIME_MS = 24 * 3_600_000
/** How long after a link another one to the same address may be asked for. */
export const RESEND_WAIT_MS = 60_000
/** Links an account may send in an hour (added addresses and resends together), so nobody's mailbox is flooded. */
export const LINKS_PER_ACCOUNT_PER_HOUR = 10

export interface VerificationPayload {
  email_account_id: string
  address: string
  /** Null once the link was sent (or can no longer be). */
  token: string | null
}

/** Whether the link of `payload` is the address's waiting one: not replaced, followed, or gone with the address. */
export async function isWaitingLink(db: Db, organizationId: string, payload: VerificationPayload): Promise<boolean> {
  if (payload.token === null) return false
  const row = await db
    .selectFrom('email_account_address')
    .select('token_hash')
    .where('organization_id', '=', organizationId)
    .where('email_account_id', '=', payload.email_account_id)
    .where('address', '=', payload.address)
    .where('verified', '=', 0)
    .executeTakeFirst()
  return row?.token_hash === linkTokenHash(payload.token)
}

function orderingKey(accountId: string): string {
  return `email_verify:${accountId}`
}

/** How many links the account sent in the hour before `at`. */
async function linksInLastHour(tx: Db, organizationId: string, accountId: string, at: Date): Promise<number> {
  const row = await tx
    .selectFrom('outbox')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('organization_id', '=', organizationId)
    .where('ordering_key', '=', orderingKey(accountId))
    .where('date_created', '>', formatTimestamp(new Date(at.getTime() - 3_600_000)))
    .executeTakeFirst()
  return Number(row?.count ?? 0)
}

/**
 * Emails a new link to an unverified address of the account (replacing any earlier one), in the caller's
 * transaction; answers false, sending nothing, when the account has sent its links for the hour.
 */
export async function writeVerificationLink(
  tx: Db,
  input: { organizationId: string; accountId: string; address: string },
  at: Date,
): Promise<boolean> {
  if ((await linksInLastHour(tx, input.organizationId, input.accountId, at)) >= LINKS_PER_ACCOUNT_PER_HOUR) return false
  const { token, hash } = newLinkToken()
  const now = formatTimestamp(at)
  await tx
    .updateTable('email_account_address')
    .set({
      token_hash: hash,
      token_expires: formatTimestamp(new Date(at.getTime() + LINK_LIFETIME_MS)),
      link_sent_at: now,
    })
    .where('email_account_id', '=', input.accountId)
    .where('address', '=', input.address)
    .where('verified', '=', 0)
    .execute()
  const payload: VerificationPayload = { email_account_id: input.accountId, address: input.address, token }
  await enqueueDelivery(tx, {
    organizationId: input.organizationId,
    kind: EMAIL_VERIFY_KIND,
    orderingKey: orderingKey(input.accountId),
    payload: JSON.stringify(payload),
    dueAt: now,
    now,
  })
  return true
}

function tooSoon(seconds: number): HttpError {
  return new HttpError(
    429,
    `A link was sent to this address moments ago: wait ${String(seconds)} seconds before asking for another.`,
    { 'retry-after': String(seconds) },
  )
}

/**
 * Sends the link again to an unverified address of the account (`field` names it in errors), unless one went out
 * less than a minute ago (429) or the account sent its links for the hour (429).
 */
export async function resendVerificationLink(
  tx: Db,
  input: { organizationId: string; accountId: string; address: string; field: string },
  at: Date,
): Promise<void> {
  const row = await tx
    .selectFrom('email_account_address')
    .select(['verified', 'link_sent_at'])
    .where('email_account_id', '=', input.accountId)
    .where('organization_id', '=', input.organizationId)
    .where('address', '=', input.address)
    .executeTakeFirst()
  if (row === undefined) throw ValidationError.field(input.field, 'Not an address of this email account.')
  if (row.verified === 1) throw ValidationError.field(input.field, 'This address is verified already.')
  const since = row.link_sent_at === null ? Infinity : at.getTime() - Date.parse(row.link_sent_at)
  if (since < RESEND_WAIT_MS) throw tooSoon(Math.ceil((RESEND_WAIT_MS - since) / 1000))
  if (!(await writeVerificationLink(tx, input, at))) {
    throw new HttpError(
      429,
      `This email account has sent ${String(LINKS_PER_ACCOUNT_PER_HOUR)} links in the last hour: try again later.`,
      { 'retry-after': '3600' },
    )
  }
}

const INVALID =
  'This link is not valid: it was used already, or a newer one replaced it. Send a new link from the email account.'

/**
 * Follows a link: the address whose token it is becomes verified and the token unusable, in the caller's
 * transaction. The caller must be the account's user. Throws a ValidationError on `token`, or the unique violation
 * of an address verified meanwhile by another account (the caller maps it).
 */
export async function verifyAddress(
  tx: Db,
  token: string,
  caller: { organizationId: string; userId: string },
  at: Date,
): Promise<{ accountId: string; address: string }> {
  if (token.length !== LINK_TOKEN_LENGTH) throw ValidationError.field('token', INVALID)
  const hash = linkTokenHash(token)
  const row = await tx
    .selectFrom('email_account_address')
    .innerJoin('email_account', 'email_account.id', 'email_account_address.email_account_id')
    .select([
      'email_account_address.email_account_id',
      'email_account_address.address',
      'email_account_address.token_hash',
      'email_account_address.token_expires',
      'email_account.organization_id',
      'email_account.user_id',
    ])
    .where('email_account_address.token_hash', '=', hash)
    .where('email_account_address.verified', '=', 0)
    .executeTakeFirst()
  // Looked up by the token's SHA-256, never the token itself: how long the lookup takes says nothing of a token.
  if (row === undefined) throw ValidationError.field('token', INVALID)
  if (row.organization_id !== caller.organizationId || row.user_id !== caller.userId)
    throw ValidationError.field(
      'token',
      'This link verifies an address of another user’s email account: sign in as that user to follow it.',
    )
  if (row.token_expires === null || Date.parse(row.token_expires) <= at.getTime())
    throw ValidationError.field('token', 'This link has expired. Send a new one from the email account.')
  const now = formatTimestamp(at)
  const done = await tx
    .updateTable('email_account_address')
    .set({ verified: 1, token_hash: null, token_expires: null })
    .where('email_account_id', '=', row.email_account_id)
    .where('address', '=', row.address)
    .where('token_hash', '=', hash)
    .where('verified', '=', 0)
    .executeTakeFirst()
  if (Number(done.numUpdatedRows) === 0) throw ValidationError.field('token', INVALID)
  // The account's change moves the organization's meta version (its trigger), so the cached /me/ shows it.
  await tx
    .updateTable('email_account')
    .set({ date_updated: now })
    .where('organization_id', '=', row.organization_id)
    .where('id', '=', row.email_account_id)
    .execute()
  return { accountId: row.email_account_id, address: row.address }
}
