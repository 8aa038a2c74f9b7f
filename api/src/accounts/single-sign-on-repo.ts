import type { Db } from '../platform/data/database.js'
import { formatTimestamp } from '../platform/data/time.js'
import { openSecret, StoredSecretError } from '../platform/security/stored-secrets.js'
import type { SecretBox } from '../platform/security/secret-box.js'
import { linkTokenHash } from '../platform/security/single-use-link.js'

// An organization's single sign-on provider, its email domains and the sign-ins begun with it (decision 0045).

export const SINGLE_SIGN_ON_REQUIRED =
  'Your organization signs in with single sign-on: use “Sign in with single sign-on” instead of a password.'

/** How long a sign-in begun at the provider may take to come back. */
export const LOGIN_TTL_MS = 10 * 60 * 1000

export interface SingleSignOnConfig {
  organizationId: string
  issuer: string
  clientId: string
  /** Sealed; null when none is stored. */
  sealedSecret: string | null
  enabled: boolean
  required: boolean
  domains: string[]
}

function secretContext(organizationId: string): string {
  return `single_sign_on:${organizationId}`
}

export function sealClientSecret(box: SecretBox, organizationId: string, secret: string): string {
  return box.seal(secret, secretContext(organizationId))
}

/** The client secret in the clear; throws StoredSecretError when this server cannot open it. */
export function clientSecretOf(box: SecretBox | null, config: SingleSignOnConfig): string | undefined {
  if (config.sealedSecret === null) return undefined
  if (box === null) throw new StoredSecretError('The single sign-on client secret', 'no-key')
  return openSecret(box, config.sealedSecret, secretContext(config.organizationId), 'The single sign-on client secret')
}

export async function findSingleSignOn(db: Db, organizationId: string): Promise<SingleSignOnConfig | undefined> {
  const row = await db
    .selectFrom('single_sign_on')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .executeTakeFirst()
  if (row === undefined) return undefined
  const domains = await db
    .selectFrom('single_sign_on_domain')
    .select('domain')
    .where('organization_id', '=', organizationId)
    .orderBy('domain')
    .execute()
  return {
    organizationId,
    issuer: row.issuer,
    clientId: row.client_id,
    sealedSecret: row.client_secret,
    enabled: Boolean(row.enabled),
    required: Boolean(row.required),
    domains: domains.map((d) => d.domain),
  }
}

/** The organization whose single sign-on covers a domain, when it is turned on. */
export async function organizationForDomain(db: Db, domain: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('single_sign_on_domain')
    .innerJoin('single_sign_on', 'single_sign_on.organization_id', 'single_sign_on_domain.organization_id')
    .select('single_sign_on_domain.organization_id')
    .where('single_sign_on_domain.domain', '=', domain)
    .where('single_sign_on.enabled', '=', 1)
    .executeTakeFirst()
  return row?.organization_id
}

/** Which of `domains` another organization's single sign-on already covers. */
export async function domainsTakenElsewhere(db: Db, organizationId: string, domains: string[]): Promise<string[]> {
  if (domains.length === 0) return []
  const rows = await db
    .selectFrom('single_sign_on_domain')
    .select('domain')
    .where('domain', 'in', domains)
    .where('organization_id', '!=', organizationId)
    .execute()
  return rows.map((r) => r.domain).sort()
}

export interface SingleSignOnWrite {
  issuer: string
  clientId: string
  /** A newly sealed secret, or undefined to keep the stored one. */
  sealedSecret: string | undefined
  enabled: boolean
  required: boolean
  domains: string[]
}

/** Stores an organization's provider and replaces its domains; run in a transaction. */
export async function saveSingleSignOn(tx: Db, organizationId: string, write: SingleSignOnWrite, now: Date) {
  const at = formatTimestamp(now)
  const values = {
    issuer: write.issuer,
    client_id: write.clientId,
    // 0/1: better-sqlite3 binds no booleans, and Postgres reads the text '1' as true.
    enabled: write.enabled ? 1 : 0,
    required: write.required ? 1 : 0,
    date_updated: at,
    ...(write.sealedSecret === undefined ? {} : { client_secret: write.sealedSecret }),
  }
  await tx
    .insertInto('single_sign_on')
    .values({ organization_id: organizationId, client_secret: null, date_created: at, ...values })
    .onConflict((conflict) => conflict.column('organization_id').doUpdateSet(values))
    .execute()
  await tx.deleteFrom('single_sign_on_domain').where('organization_id', '=', organizationId).execute()
  if (write.domains.length > 0) {
    await tx
      .insertInto('single_sign_on_domain')
      .values(write.domains.map((domain) => ({ domain, organization_id: organizationId })))
      .execute()
  }
}

/** Whether a member of this role must sign in through the organization's provider (admins never: break-glass). */
export async function singleSignOnRequired(db: Db, organizationId: string, role: string): Promise<boolean> {
  if (role === 'admin') return false
  const row = await db
    .selectFrom('single_sign_on')
    .select(['enabled', 'required'])
    .where('organization_id', '=', organizationId)
    .executeTakeFirst()
  return row !== undefined && Boolean(row.enabled) && Boolean(row.required)
}

export async function recordLogin(
  db: Db,
  login: { state: string; organizationId: string; nonce: string; codeVerifier: string; invitationTokenHash?: string },
  now: Date,
): Promise<void> {
  // Sign-ins never finished are forgotten here, so the table holds ten minutes of them at most.
  await db.deleteFrom('single_sign_on_login').where('date_expires', '<=', formatTimestamp(now)).execute()
  await db
    .insertInto('single_sign_on_login')
    .values({
      state_hash: linkTokenHash(login.state),
      organization_id: login.organizationId,
      nonce: login.nonce,
      code_verifier: login.codeVerifier,
      invitation_token_hash: login.invitationTokenHash ?? null,
      date_created: formatTimestamp(now),
      date_expires: formatTimestamp(new Date(now.getTime() + LOGIN_TTL_MS)),
    })
    .execute()
}

/** The sign-in a state began, used up: a second call with the same state finds nothing. Undefined when expired. */
export async function takeLogin(db: Db, state: string, now: Date) {
  const row = await db
    .deleteFrom('single_sign_on_login')
    .where('state_hash', '=', linkTokenHash(state))
    .returningAll()
    .executeTakeFirst()
  if (row === undefined || row.date_expires <= formatTimestamp(now)) return undefined
  return row
}
