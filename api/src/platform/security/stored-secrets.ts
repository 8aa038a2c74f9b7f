import { sql } from 'kysely'
import type { Db } from '../data/database.js'
import { SecretOpenError, type SecretBox } from './secret-box.js'

// Secrets the api must use again, stored sealed under LEADLINE_SECRET_KEY
// (docs/decisions/0040-sealed-secrets-and-status-deletion.md): webhook signature keys, each organization's inbound
// secret, the lead webhook's signature key, SMTP passwords and two-factor (TOTP) secrets. The keys the api makes itself are stored in the clear
// only on a server with no key (it needs them to sign and verify, so it cannot refuse to store them as it refuses a
// password); the api seals them when it starts with a key.

const SEALED_PREFIX = 'v1:'

/** Whether a stored value is sealed (`v1:…`, secret-box.ts); the keys the api makes are hex, never that. */
export function isSealed(stored: string): boolean {
  return stored.startsWith(SEALED_PREFIX)
}

/** A stored secret that cannot be opened: no key on this server, or another key. */
export class StoredSecretError extends Error {
  override name = 'StoredSecretError'
  constructor(what: string, reason: 'no-key' | 'wrong-key') {
    super(
      reason === 'no-key'
        ? `${what} is sealed and this server has no LEADLINE_SECRET_KEY: give it the key it was sealed with.`
        : `${what} does not open with this server's LEADLINE_SECRET_KEY: give it the key it was sealed with.`,
    )
  }
}

/** What to store for a secret the api made: sealed under `box`, or the value itself when the server has no key. */
export function storeSecret(box: SecretBox | null, plaintext: string, context: string): string {
  return box === null ? plaintext : box.seal(plaintext, context)
}

/** The secret a stored value holds; `what` names it in the error thrown when it cannot be opened. */
export function openSecret(box: SecretBox | null, stored: string, context: string, what: string): string {
  if (!isSealed(stored)) return stored
  if (box === null) throw new StoredSecretError(what, 'no-key')
  try {
    return box.open(stored, context)
  } catch (error) {
    if (error instanceof SecretOpenError) throw new StoredSecretError(what, 'wrong-key')
    throw error
  }
}

/** Where each kind of stored secret lives, and the context it is sealed for (authenticated with it). */
interface SecretColumn {
  kind: SecretKind
  /** What one value is, in errors. */
  label: string
  table: string
  column: string
  id: string
  /** Only the rows this condition selects hold the secret (app_state holds other things too). */
  where?: ReturnType<typeof sql>
  context(id: string): string
}

export type SecretKind =
  | 'webhook_signature_keys'
  | 'inbound_secrets'
  | 'lead_webhook_signature_key'
  | 'smtp_passwords'
  | 'totp_secrets'
  | 'single_sign_on_client_secrets'

export const webhookKeyContext = (subscriptionId: string) => `webhook_subscription:${subscriptionId}`
export const inboundSecretContext = (organizationId: string) => `inbound_secret:${organizationId}`
export const LEAD_WEBHOOK_KEY_CONTEXT = 'app_state:lead_webhook_signature_key'
/** A user's TOTP secret, pending or on: one context, so turning it on moves the sealed value as it is. */
export const totpSecretContext = (userId: string) => `totp_secret:${userId}`

const SECRET_COLUMNS: readonly SecretColumn[] = [
  {
    kind: 'webhook_signature_keys',
    label: 'The signature key of webhook subscription',
    table: 'webhook_subscription',
    column: 'signature_key',
    id: 'id',
    context: webhookKeyContext,
  },
  {
    kind: 'inbound_secrets',
    label: 'The inbound secret of organization',
    table: 'inbound_secret',
    column: 'secret',
    id: 'organization_id',
    context: inboundSecretContext,
  },
  {
    kind: 'lead_webhook_signature_key',
    label: 'The lead webhook signature key',
    table: 'app_state',
    column: 'value',
    id: 'key',
    where: sql`${sql.ref('key')} = ${'lead_webhook_signature_key'}`,
    context: () => LEAD_WEBHOOK_KEY_CONTEXT,
  },
  // An SMTP password is sealed for its account's id (decision 0029), and never stored in the clear.
  {
    kind: 'smtp_passwords',
    label: 'The SMTP password of email account',
    table: 'email_account',
    column: 'smtp_password',
    id: 'id',
    context: (id) => id,
  },
  // Two-factor secrets (decision 0044) are sealed for their user, and never stored in the clear either.
  {
    kind: 'totp_secrets',
    label: 'The two-factor secret of user',
    table: 'user',
    column: 'totp_secret',
    id: 'id',
    context: totpSecretContext,
  },
  {
    kind: 'totp_secrets',
    label: 'The pending two-factor secret of user',
    table: 'user',
    column: 'totp_pending_secret',
    id: 'id',
    context: totpSecretContext,
  },
  // A single sign-on client secret is sealed for its organization (decision 0045), and never stored in the clear.
  {
    kind: 'single_sign_on_client_secrets',
    label: 'The single sign-on client secret of organization',
    table: 'single_sign_on',
    column: 'client_secret',
    id: 'organization_id',
    context: (id) => `single_sign_on:${id}`,
  },
]

export type SecretCounts = Record<SecretKind, number>

/**
 * Seals every stored secret under `to`: the clear ones, and with `from` the sealed ones too (opened with `from`,
 * sealed again). `clearOnly` leaves sealed values as they are (the api's start). Each value is replaced only if it
 * is still what was read, so processes doing this at once never seal a value twice. Throws StoredSecretError, in
 * the caller's transaction, when a sealed value does not open with `from`.
 */
export async function resealSecrets(
  db: Db,
  from: SecretBox | null,
  to: SecretBox,
  clearOnly = false,
): Promise<SecretCounts> {
  const counts: SecretCounts = {
    webhook_signature_keys: 0,
    inbound_secrets: 0,
    lead_webhook_signature_key: 0,
    smtp_passwords: 0,
    totp_secrets: 0,
    single_sign_on_client_secrets: 0,
  }
  for (const secret of SECRET_COLUMNS) {
    const condition = secret.where === undefined ? sql`` : sql`and ${secret.where}`
    // At start only clear values are read, so a start with everything sealed reads no rows.
    const clear = clearOnly ? sql`and ${sql.ref(secret.column)} not like ${`${SEALED_PREFIX}%`}` : sql``
    const rows = await sql<{ id: string; value: string }>`
      select ${sql.ref(secret.id)} as id, ${sql.ref(secret.column)} as value from ${sql.table(secret.table)}
      where ${sql.ref(secret.column)} is not null ${condition} ${clear}`.execute(db)
    for (const row of rows.rows) {
      const context = secret.context(row.id)
      const what = secret.kind === 'lead_webhook_signature_key' ? secret.label : `${secret.label} ${row.id}`
      const plaintext = openSecret(from, row.value, context, what)
      const changed = await sql`
        update ${sql.table(secret.table)} set ${sql.ref(secret.column)} = ${to.seal(plaintext, context)}
        where ${sql.ref(secret.id)} = ${row.id} and ${sql.ref(secret.column)} = ${row.value}`.execute(db)
      counts[secret.kind] += Number(changed.numAffectedRows ?? 0)
    }
  }
  return counts
}
