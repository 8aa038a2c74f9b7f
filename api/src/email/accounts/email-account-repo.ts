import type { EmailAccountView } from '@leadline/shared/email-account-schema'
import type { Db, EmailAccountTable } from '../../platform/data/database.js'
import { inTransaction } from '../../platform/data/database.js'
import { isUniqueViolation } from '../../platform/data/db-errors.js'
import { newId } from '../../platform/security/ids.js'
import { SecretOpenError, type SecretBox } from '../../platform/security/secret-box.js'
import { writeVerificationLink } from './email-address-verification.js'
import { findInOrganization } from '../../platform/data/find-or-404.js'

// Email accounts (docs/decisions/0029-email-accounts.md): the address a user sends as, its SMTP server and the
// identities the user may send as. The SMTP password is stored sealed; only the functions that return an
// `EmailAccount` (for sending) open it, with the process's LEADLINE_SECRET_KEY.

export interface SmtpSettings {
  host: string
  port: number
  username: string | null
  password: string | null
  useSsl: boolean
}
export interface EmailIdentity {
  name: string
  email: string
}
/** An account's fields as checked by email-account-input.ts. */
export interface CheckedEmailAccount {
  email: string
  identities: EmailIdentity[]
  smtp: { host: string; port: number; username: string | null; useSsl: boolean }
}

export interface EmailAccount {
  id: string
  organizationId: string
  userId: string
  email: string
  identities: EmailIdentity[]
  smtp: SmtpSettings
}

/** An account's stored password does not decrypt: the server has no key, or not the one it was stored with. */
export class EmailAccountSecretError extends Error {
  constructor(
    readonly accountId: string,
    reason: 'no-key' | 'wrong-key',
  ) {
    super(
      reason === 'no-key'
        ? `Email account ${accountId} cannot send: its SMTP password is encrypted and this server has no LEADLINE_SECRET_KEY. Set the key it was stored with, or enter the password again.`
        : `Email account ${accountId} cannot send: its SMTP password does not decrypt with this server's LEADLINE_SECRET_KEY (the key changed). Enter the password again.`,
    )
    this.name = 'EmailAccountSecretError'
  }
}

/** Thrown by `insertEmailAccount` and `updateEmailAccount` when the organization has an account for the address. */
export class DuplicateEmailAccountError extends Error {
  constructor() {
    super('The organization already has an email account for this address.')
    this.name = 'DuplicateEmailAccountError'
  }
}

/**
 * Thrown by `insertEmailAccount` and `updateEmailAccount` when another account has verified `address`: an address
 * receives and sends for one account, of one organization (decision 0038).
 */
export class AddressTakenError extends Error {
  constructor(
    readonly address: string,
    readonly sameOrganization: boolean,
  ) {
    super(`The address ${address} is in use by another email account.`)
    this.name = 'AddressTakenError'
  }
}

function storedIdentities(row: EmailAccountTable): EmailIdentity[] {
  const parsed: unknown = JSON.parse(row.identities)
  if (!Array.isArray(parsed)) return []
  return parsed.flatMap((item: unknown) =>
    typeof item === 'object' &&
    item !== null &&
    'name' in item &&
    'email' in item &&
    typeof item.name === 'string' &&
    typeof item.email === 'string'
      ? [{ name: item.name, email: item.email }]
      : [],
  )
}

/** The verified addresses of each of the accounts (lowercased), by account id. */
async function verifiedAddresses(db: Db, accountIds: readonly string[]): Promise<Map<string, Set<string>>> {
  const verified = new Map<string, Set<string>>(accountIds.map((id) => [id, new Set()]))
  if (accountIds.length === 0) return verified
  const rows = await db
    .selectFrom('email_account_address')
    .select(['email_account_id', 'address'])
    .where('email_account_id', 'in', accountIds)
    .where('verified', '=', 1)
    .execute()
  for (const row of rows) verified.get(row.email_account_id)?.add(row.address)
  return verified
}

/** The account as the API shows it: never the password, only whether there is one; `verified`: its verified addresses. */
export function emailAccountView(row: EmailAccountTable, verified: ReadonlySet<string>): EmailAccountView {
  const identities = storedIdentities(row).map((identity) => ({ ...identity, verified: verified.has(identity.email) }))
  return {
    id: row.id,
    organization_id: row.organization_id,
    user_id: row.user_id,
    email: row.email,
    identities,
    default_identity: identities[0] ?? { name: '', email: row.email, verified: verified.has(row.email) },
    smtp: {
      host: row.smtp_host,
      port: row.smtp_port,
      username: row.smtp_username,
      use_ssl: row.smtp_use_ssl === 1,
      has_password: row.smtp_password !== null,
    },
    last_error:
      row.last_error_message === null || row.last_error_date === null
        ? null
        : { message: row.last_error_message, date: row.last_error_date },
    created_by: row.created_by,
    updated_by: row.updated_by,
    date_created: row.date_created,
    date_updated: row.date_updated,
  }
}

/** The organization's accounts, oldest first; only `userId`'s when given. */
export function emailAccountsQuery(db: Db, organizationId: string, userId?: string) {
  let query = db.selectFrom('email_account').selectAll().where('organization_id', '=', organizationId)
  if (userId !== undefined) query = query.where('user_id', '=', userId)
  return query.orderBy('date_created').orderBy('id')
}

/** One account of the organization, as stored. */
export async function findEmailAccountRow(db: Db, organizationId: string, id: string) {
  return findInOrganization(db, 'email_account', organizationId, id)
}

/** The accounts as the API shows them, in the order given. */
export async function emailAccountViews(db: Db, rows: readonly EmailAccountTable[]): Promise<EmailAccountView[]> {
  const verified = await verifiedAddresses(
    db,
    rows.map((row) => row.id),
  )
  return rows.map((row) => emailAccountView(row, verified.get(row.id) ?? new Set()))
}

/** One account as the API shows it. */
export async function oneEmailAccountView(db: Db, row: EmailAccountTable): Promise<EmailAccountView> {
  const [view] = await emailAccountViews(db, [row])
  if (view === undefined) throw new Error('unreachable: one row makes one view')
  return view
}

/** The user's accounts in the organization as the API shows them, oldest first (`/me/`). */
export async function userEmailAccountViews(
  db: Db,
  organizationId: string,
  userId: string,
): Promise<EmailAccountView[]> {
  return emailAccountViews(db, await emailAccountsQuery(db, organizationId, userId).execute())
}

function sendingAccount(row: EmailAccountTable, box: SecretBox | null, password: 'open' | 'skip'): EmailAccount {
  let opened: string | null = null
  if (row.smtp_password !== null && password === 'open') {
    if (box === null) throw new EmailAccountSecretError(row.id, 'no-key')
    try {
      opened = box.open(row.smtp_password, row.id)
    } catch (error) {
      if (error instanceof SecretOpenError) throw new EmailAccountSecretError(row.id, 'wrong-key')
      throw error
    }
  }
  return {
    id: row.id,
    organizationId: row.organization_id,
    userId: row.user_id,
    email: row.email,
    identities: storedIdentities(row),
    smtp: {
      host: row.smtp_host,
      port: row.smtp_port,
      username: row.smtp_username,
      password: opened,
      useSsl: row.smtp_use_ssl === 1,
    },
  }
}

/** The account, its password decrypted; undefined when none. Throws EmailAccountSecretError when the password does not decrypt. */
export async function findEmailAccount(
  db: Db,
  box: SecretBox | null,
  organizationId: string,
  accountId: string,
): Promise<EmailAccount | undefined> {
  const row = await findEmailAccountRow(db, organizationId, accountId)
  return row === undefined ? undefined : sendingAccount(row, box, 'open')
}

/**
 * The user's account that sends as `address` (its own address or one of its identities, case-insensitive, verified
 * only); with address null, the user's first account. Its password decrypted; throws EmailAccountSecretError when it
 * does not decrypt.
 */
export async function accountForSender(
  db: Db,
  box: SecretBox | null,
  organizationId: string,
  userId: string,
  address: string | null,
): Promise<EmailAccount | undefined> {
  const rows = await emailAccountsQuery(db, organizationId, userId).execute()
  const wanted = address?.trim().toLowerCase()
  const verified =
    wanted === undefined
      ? new Map<string, Set<string>>()
      : await verifiedAddresses(
          db,
          rows.map((r) => r.id),
        )
  const sendsAs = (r: EmailAccountTable) => verified.get(r.id)?.has(wanted ?? '') === true
  // An account's own address wins over another account's identity of the same address.
  const row =
    wanted === undefined
      ? rows[0]
      : (rows.find((r) => r.email === wanted && sendsAs(r)) ??
        rows.find((r) => sendsAs(r) && storedIdentities(r).some((identity) => identity.email === wanted)))
  return row === undefined ? undefined : sendingAccount(row, box, 'open')
}

/**
 * Every account of the organization whose verified address or identity is one of `addresses` (lowercased), for
 * incoming mail; `organizationId` null: across organizations (an address is verified for one account at most). Incoming mail needs no SMTP password: it is not decrypted here
 * (`smtp.password` is null), so an account whose password no longer decrypts still receives.
 */
export async function accountsForAddresses(
  db: Db,
  organizationId: string | null,
  addresses: readonly string[],
): Promise<EmailAccount[]> {
  const wanted = [...new Set(addresses.map((address) => address.trim().toLowerCase()))]
  if (wanted.length === 0) return []
  // The organization narrows the addresses (their index leads with the address); the accounts are then read by id.
  const rows = await db
    .selectFrom('email_account')
    .selectAll()
    .where('id', 'in', (eb) => {
      // Through the index that makes a verified address one account's (migration 0025): `lower(address)`, verified.
      const ids = eb
        .selectFrom('email_account_address')
        .select('email_account_id')
        .where((inner) => inner(inner.fn('lower', ['address']), 'in', wanted))
        .where('verified', '=', 1)
      return organizationId === null ? ids : ids.where('organization_id', '=', organizationId)
    })
    .orderBy('date_created')
    .orderBy('id')
    .execute()
  return rows.map((row) => sendingAccount(row, null, 'skip'))
}

/**
 * The name an account's own identity gets when the request names none: the user's first and last name (blank
 * without them). Undefined when the user is not a member of the organization.
 */
export async function memberIdentityName(db: Db, organizationId: string, userId: string): Promise<string | undefined> {
  const user = await db
    .selectFrom('user')
    .innerJoin('membership', 'membership.user_id', 'user.id')
    .select(['user.first_name', 'user.last_name'])
    .where('membership.organization_id', '=', organizationId)
    .where('user.id', '=', userId)
    .executeTakeFirst()
  if (user === undefined) return undefined
  return [user.first_name, user.last_name].filter((part) => part !== null && part.trim() !== '').join(' ')
}

/** Who changes an account, and when. */
export interface Change {
  actorId: string | null
  now: string
}

function columns(fields: CheckedEmailAccount) {
  return {
    email: fields.email,
    identities: JSON.stringify(fields.identities),
    smtp_host: fields.smtp.host,
    smtp_port: fields.smtp.port,
    smtp_username: fields.smtp.username,
    smtp_use_ssl: fields.smtp.useSsl ? 1 : 0,
  }
}

/** The first of `addresses` another account than `accountId` has verified, and whether it is of the same organization. */
/** The first of `addresses` another account (`accountId`: the one asking, if any) holds verified, as an error to throw. */
export async function takenAddress(
  db: Db,
  organizationId: string,
  accountId: string | null,
  addresses: readonly string[],
) {
  if (addresses.length === 0) return undefined
  const rows = await db
    .selectFrom('email_account_address')
    .select(['address', 'organization_id'])
    .where('address', 'in', addresses)
    .where('verified', '=', 1)
    .$if(accountId !== null, (q) => q.where('email_account_id', '<>', accountId ?? ''))
    .execute()
  const address = addresses.find((a) => rows.some((r) => r.address === a))
  if (address === undefined) return undefined
  return new AddressTakenError(
    address,
    rows.some((r) => r.address === address && r.organization_id === organizationId),
  )
}

/**
 * Makes the account's address rows its own address and identities': those no longer there go; those new are stored
 * verified when `trusted` (an admin set them), else unverified, with a verification link emailed to each.
 */
async function writeAddresses(
  tx: Db,
  organizationId: string,
  id: string,
  fields: CheckedEmailAccount,
  trusted: readonly string[],
  now: string,
): Promise<void> {
  const wanted = [...new Set([fields.email, ...fields.identities.map((identity) => identity.email)])]
  const stored = await tx
    .selectFrom('email_account_address')
    .select('address')
    .where('email_account_id', '=', id)
    .execute()
  const added = wanted.filter((address) => !stored.some((row) => row.address === address))
  // Only new addresses are checked: one kept unverified while another account verified it changes nothing.
  const taken = await takenAddress(tx, organizationId, id, added)
  if (taken !== undefined) throw taken
  const gone = stored.map((row) => row.address).filter((address) => !wanted.includes(address))
  if (gone.length > 0)
    await tx
      .deleteFrom('email_account_address')
      .where('email_account_id', '=', id)
      .where('address', 'in', gone)
      .execute()
  if (added.length === 0) return
  await tx
    .insertInto('email_account_address')
    .values(
      added.map((address) => ({
        email_account_id: id,
        organization_id: organizationId,
        address,
        verified: trusted.includes(address) ? 1 : 0,
      })),
    )
    .execute()
  for (const address of added) {
    if (!trusted.includes(address))
      await writeVerificationLink(tx, { organizationId, accountId: id, address }, new Date(now))
  }
}

/**
 * A write of an account's addresses broke a unique constraint: another account verified one of them meanwhile, or
 * the organization has an account of the address. `explainAddressConflict` says which, once the transaction is over.
 */
export class AddressConflict extends Error {
  constructor(
    readonly organizationId: string,
    readonly accountId: string,
    readonly addresses: readonly string[],
  ) {
    super('An address of the email account is taken.')
    this.name = 'AddressConflict'
  }
}

/** `error` as AddressTakenError or DuplicateEmailAccountError when it is an AddressConflict, else as it is. */
export async function explainAddressConflict(db: Db, error: unknown): Promise<unknown> {
  if (!(error instanceof AddressConflict)) return error
  return (
    (await takenAddress(db, error.organizationId, error.accountId, error.addresses)) ?? new DuplicateEmailAccountError()
  )
}

async function uniqueAddress<T>(
  account: { organizationId: string; id: string; fields: CheckedEmailAccount },
  write: () => Promise<T>,
): Promise<T> {
  try {
    return await write()
  } catch (error) {
    if (!isUniqueViolation(error)) throw error
    const { fields } = account
    const addresses = [fields.email, ...fields.identities.map((identity) => identity.email)]
    throw new AddressConflict(account.organizationId, account.id, addresses)
  }
}

/**
 * Stores a new account of `userId` with `password` sealed by `box` (a password needs a box: see `checkedPassword`).
 * `trusted` addresses are stored verified (the own address an admin sets); a link is emailed to each other one.
 * Relies on the (organization_id, email) unique constraint and on the one over verified addresses, so two
 * concurrent creates cannot both take an address.
 */
export async function insertEmailAccount(
  db: Db,
  box: SecretBox | null,
  input: {
    organizationId: string
    userId: string
    fields: CheckedEmailAccount
    password: string | null
    trusted: readonly string[]
  },
  change: Change,
): Promise<EmailAccountTable> {
  const id = newId('emailAccount')
  const row: EmailAccountTable = {
    id,
    organization_id: input.organizationId,
    user_id: input.userId,
    ...columns(input.fields),
    smtp_password: sealed(box, input.password, id),
    last_error_message: null,
    last_error_date: null,
    date_created: change.now,
    date_updated: change.now,
    created_by: change.actorId,
    updated_by: change.actorId,
  }
  return uniqueAddress({ organizationId: input.organizationId, id, fields: input.fields }, () =>
    inTransaction(db, async (tx) => {
      await tx.insertInto('email_account').values(row).execute()
      await writeAddresses(tx, input.organizationId, id, input.fields, input.trusted, change.now)
      return row
    }),
  )
}

function sealed(box: SecretBox | null, password: string | null, id: string): string | null {
  if (password === null) return null
  if (box === null) throw new Error('A password needs LEADLINE_SECRET_KEY: check it with checkedPassword first')
  return box.seal(password, id)
}

/**
 * Changes an account; `password` undefined keeps the stored one, null removes it. Addresses it keeps stay as they
 * are; new ones are stored verified when `trusted`, else a link is emailed to each.
 */
export async function updateEmailAccount(
  db: Db,
  box: SecretBox | null,
  row: EmailAccountTable,
  input: {
    userId: string
    fields: CheckedEmailAccount
    password: string | null | undefined
    trusted: readonly string[]
  },
  change: Change,
): Promise<EmailAccountTable> {
  const changed = {
    user_id: input.userId,
    ...columns(input.fields),
    smtp_password: input.password === undefined ? row.smtp_password : sealed(box, input.password, row.id),
    date_updated: change.now,
    updated_by: change.actorId,
  }
  return uniqueAddress({ organizationId: row.organization_id, id: row.id, fields: input.fields }, () =>
    inTransaction(db, async (tx) => {
      await tx
        .updateTable('email_account')
        .set(changed)
        .where('organization_id', '=', row.organization_id)
        .where('id', '=', row.id)
        .execute()
      await writeAddresses(tx, row.organization_id, row.id, input.fields, input.trusted, change.now)
      return { ...row, ...changed }
    }),
  )
}

/**
 * Remembers how the latest send through the account ended: its failure (`error`) becomes the account's
 * `last_error`, a send that went through (`error` null) clears it. An account deleted since is left alone.
 */
export async function recordAccountSend(
  db: Db,
  organizationId: string,
  id: string,
  outcome: { error: string | null; at: string },
): Promise<void> {
  await db
    .updateTable('email_account')
    .set(
      outcome.error === null
        ? { last_error_message: null, last_error_date: null }
        : { last_error_message: outcome.error, last_error_date: outcome.at },
    )
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .execute()
}

/** Removes an account (its addresses go with it, by cascade). */
export async function deleteEmailAccount(db: Db, organizationId: string, id: string): Promise<void> {
  await db.deleteFrom('email_account').where('organization_id', '=', organizationId).where('id', '=', id).execute()
}
