import type { EmailAccountView } from '@leadline/shared/email-account-schema'
import type { Db, EmailAccountTable } from '../db/database.js'
import { inTransaction } from '../db/database.js'
import { isUniqueViolation } from '../platform/db-errors.js'
import { newId } from '../platform/ids.js'
import { SecretOpenError, type SecretBox } from '../platform/secret-box.js'
import type { CheckedEmailAccount } from './email-account-input.js'

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

/** The account as the API shows it: never the password, only whether there is one. */
export function emailAccountView(row: EmailAccountTable): EmailAccountView {
  const identities = storedIdentities(row)
  return {
    id: row.id,
    organization_id: row.organization_id,
    user_id: row.user_id,
    email: row.email,
    identities,
    default_identity: identities[0] ?? { name: '', email: row.email },
    smtp: {
      host: row.smtp_host,
      port: row.smtp_port,
      username: row.smtp_username,
      use_ssl: row.smtp_use_ssl === 1,
      has_password: row.smtp_password !== null,
    },
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
export async function findEmailAccountRow(
  db: Db,
  organizationId: string,
  id: string,
): Promise<EmailAccountTable | undefined> {
  return db
    .selectFrom('email_account')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst()
}

/** The user's accounts in the organization as the API shows them, oldest first (`/me/`). */
export async function userEmailAccountViews(
  db: Db,
  organizationId: string,
  userId: string,
): Promise<EmailAccountView[]> {
  return (await emailAccountsQuery(db, organizationId, userId).execute()).map(emailAccountView)
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
 * The user's account that sends as `address` (its own address or one of its identities, case-insensitive); with
 * address null, the user's first account. Its password decrypted; throws EmailAccountSecretError when it does not
 * decrypt.
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
  // An account's own address wins over another account's identity of the same address.
  const row =
    wanted === undefined
      ? rows[0]
      : (rows.find((r) => r.email === wanted) ??
        rows.find((r) => storedIdentities(r).some((identity) => identity.email === wanted)))
  return row === undefined ? undefined : sendingAccount(row, box, 'open')
}

/**
 * Every account of the organization whose address or identity is one of `addresses` (lowercased), for incoming mail;
 * `organizationId` null: across organizations. Incoming mail needs no SMTP password: it is not decrypted here
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
      const ids = eb.selectFrom('email_account_address').select('email_account_id').where('address', 'in', wanted)
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

async function writeAddresses(tx: Db, organizationId: string, id: string, fields: CheckedEmailAccount): Promise<void> {
  await tx.deleteFrom('email_account_address').where('email_account_id', '=', id).execute()
  const addresses = new Set([fields.email, ...fields.identities.map((identity) => identity.email)])
  await tx
    .insertInto('email_account_address')
    .values([...addresses].map((address) => ({ email_account_id: id, organization_id: organizationId, address })))
    .execute()
}

async function uniqueAddress<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write()
  } catch (error) {
    if (isUniqueViolation(error)) throw new DuplicateEmailAccountError()
    throw error
  }
}

/**
 * Stores a new account of `userId` with `password` sealed by `box` (a password needs a box: see `checkedPassword`).
 * Relies on the (organization_id, email) unique constraint, so two concurrent creates cannot both take an address.
 */
export async function insertEmailAccount(
  db: Db,
  box: SecretBox | null,
  input: { organizationId: string; userId: string; fields: CheckedEmailAccount; password: string | null },
  change: Change,
): Promise<EmailAccountTable> {
  const id = newId('emailAccount')
  const row: EmailAccountTable = {
    id,
    organization_id: input.organizationId,
    user_id: input.userId,
    ...columns(input.fields),
    smtp_password: sealed(box, input.password, id),
    date_created: change.now,
    date_updated: change.now,
    created_by: change.actorId,
    updated_by: change.actorId,
  }
  return uniqueAddress(() =>
    inTransaction(db, async (tx) => {
      await tx.insertInto('email_account').values(row).execute()
      await writeAddresses(tx, input.organizationId, id, input.fields)
      return row
    }),
  )
}

function sealed(box: SecretBox | null, password: string | null, id: string): string | null {
  if (password === null) return null
  if (box === null) throw new Error('A password needs LEADLINE_SECRET_KEY: check it with checkedPassword first')
  return box.seal(password, id)
}

/** Changes an account; `password` undefined keeps the stored one, null removes it. */
export async function updateEmailAccount(
  db: Db,
  box: SecretBox | null,
  row: EmailAccountTable,
  input: { userId: string; fields: CheckedEmailAccount; password: string | null | undefined },
  change: Change,
): Promise<EmailAccountTable> {
  const changed = {
    user_id: input.userId,
    ...columns(input.fields),
    smtp_password: input.password === undefined ? row.smtp_password : sealed(box, input.password, row.id),
    date_updated: change.now,
    updated_by: change.actorId,
  }
  return uniqueAddress(() =>
    inTransaction(db, async (tx) => {
      await tx
        .updateTable('email_account')
        .set(changed)
        .where('organization_id', '=', row.organization_id)
        .where('id', '=', row.id)
        .execute()
      await writeAddresses(tx, row.organization_id, row.id, input.fields)
      return { ...row, ...changed }
    }),
  )
}

/** Removes an account (its addresses go with it, by cascade). */
export async function deleteEmailAccount(db: Db, organizationId: string, id: string): Promise<void> {
  await db.deleteFrom('email_account').where('organization_id', '=', organizationId).where('id', '=', id).execute()
}
