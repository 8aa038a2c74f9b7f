import { createHash, timingSafeEqual } from 'node:crypto'
import type { Db } from '../data/database.js'
import { newId, randomBase62 } from './ids.js'
import { formatTimestamp, type Clock } from '../data/time.js'

// A key reads `<key id>.<secret>`: the id finds the row, the secret is compared by its SHA-256.
// The secret has 256 bits of entropy, so a fast hash is enough; no password stretching needed.
const SECRET_LENGTH = 43
const KEY_FORMAT = /^[A-Za-z0-9_]{1,100}\.[A-Za-z0-9]{1,100}$/

function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex')
}

export interface IssuedKey {
  api_key_id: string
  api_key: string
}

/** A key's description, and what sets a session key apart: it expires, and after a spell without use. */
export interface KeyTerms {
  description?: string | null
  session?: { expires: Date; idleSeconds: number }
}

export async function createApiKey(
  db: Db,
  clock: Clock,
  owner: { organizationId: string; userId: string; membershipId: string },
  terms: KeyTerms = {},
): Promise<IssuedKey> {
  const id = newId('apiKey')
  const secret = randomBase62(SECRET_LENGTH)
  const session = terms.session
  await db
    .insertInto('api_key')
    .values({
      id,
      organization_id: owner.organizationId,
      user_id: owner.userId,
      membership_id: owner.membershipId,
      secret_hash: hashSecret(secret),
      date_created: formatTimestamp(clock.now()),
      date_revoked: null,
      // Only when there is one: test set-ups make keys on databases migrated to before the column existed.
      ...(terms.description === undefined || terms.description === null ? {} : { description: terms.description }),
      ...(session === undefined
        ? {}
        : {
            kind: 'session' as const,
            date_expires: formatTimestamp(session.expires),
            idle_seconds: session.idleSeconds,
          }),
    })
    .execute()
  return { api_key_id: id, api_key: `${id}.${secret}` }
}

/**
 * Revokes a key: whose it is, and whether this call revoked it (`revokedNow`; false for a key revoked before, which
 * revoking again leaves as it was); undefined when no such key exists.
 */
export async function revokeApiKey(
  db: Db,
  clock: Clock,
  id: string,
): Promise<{ organizationId: string; userId: string; revokedNow: boolean } | undefined> {
  const key = await db
    .selectFrom('api_key')
    .select(['organization_id', 'user_id', 'date_revoked'])
    .where('id', '=', id)
    .executeTakeFirst()
  if (key === undefined) return undefined
  if (key.date_revoked === null) {
    await db
      .updateTable('api_key')
      .set({ date_revoked: formatTimestamp(clock.now()) })
      .where('id', '=', id)
      .execute()
  }
  return { organizationId: key.organization_id, userId: key.user_id, revokedNow: key.date_revoked === null }
}

export interface KeyOwner {
  apiKeyId: string
  organizationId: string
  userId: string
  membershipId: string
  role: 'admin' | 'user'
  kind: 'api' | 'session'
  /** Epoch ms after which the key is refused (a session key's expiry or idle limit); undefined for none. */
  refusedFrom: number | undefined
  /**
   * A session key of someone whose organization requires two-factor sign-in and who has not turned it on: it is
   * refused but on the few routes that let them turn it on (decision 0044). Keys of kind `api` never are.
   */
  twoFactorSetupRequired: boolean
}

// A key in use writes its last use at most this often: often enough for "last used" and a session's idle limit,
// rarely enough that reads do not become writes.
const LAST_USED_EVERY_MS = 60_000

/**
 * Finds the live key a presented secret belongs to; undefined for unknown, wrong, revoked or expired keys and for
 * keys of a deactivated member. Records the key's use, at most once a minute.
 */
export async function verifyApiKey(db: Db, presented: string, now: Date): Promise<KeyOwner | undefined> {
  // Anything but `<id>.<secret>` in the key's alphabet is no key of ours, and never reaches the database
  // (a NUL, for one, is an error in a Postgres query parameter).
  if (!KEY_FORMAT.test(presented)) return undefined
  const dot = presented.indexOf('.')
  if (dot <= 0) return undefined
  const id = presented.slice(0, dot)
  const secret = presented.slice(dot + 1)
  const row = await db
    .selectFrom('api_key')
    .innerJoin('membership', 'membership.id', 'api_key.membership_id')
    .innerJoin('user', 'user.id', 'api_key.user_id')
    .innerJoin('organization', 'organization.id', 'api_key.organization_id')
    .select([
      'api_key.id',
      'api_key.secret_hash',
      'api_key.date_revoked',
      'api_key.organization_id',
      'api_key.user_id',
      'api_key.kind',
      'api_key.date_created',
      'api_key.date_expires',
      'api_key.idle_seconds',
      'api_key.date_last_used',
      'membership.id as membership_id',
      'membership.role',
      'membership.status',
      'user.totp_enabled_at',
      'organization.require_two_factor',
    ])
    .where('api_key.id', '=', id)
    .executeTakeFirst()
  const expected = Buffer.from(row?.secret_hash ?? hashSecret(''), 'hex')
  const actual = Buffer.from(hashSecret(secret), 'hex')
  const matches = timingSafeEqual(expected, actual)
  if (row === undefined || !matches || row.date_revoked !== null || row.status !== 'active') return undefined
  const expires = row.date_expires === null ? Infinity : Date.parse(row.date_expires)
  const idleMs = row.idle_seconds === null ? Infinity : row.idle_seconds * 1000
  const lastUsed = Date.parse(row.date_last_used ?? row.date_created)
  if (now.getTime() >= Math.min(expires, lastUsed + idleMs)) return undefined
  const stale = row.date_last_used === null || now.getTime() - lastUsed >= LAST_USED_EVERY_MS
  if (stale) {
    await db
      .updateTable('api_key')
      .set({ date_last_used: formatTimestamp(now) })
      .where('id', '=', row.id)
      .execute()
  }
  const refusedFrom = Math.min(expires, (stale ? now.getTime() : lastUsed) + idleMs)
  return {
    apiKeyId: row.id,
    organizationId: row.organization_id,
    userId: row.user_id,
    membershipId: row.membership_id,
    role: row.role,
    kind: row.kind,
    refusedFrom: Number.isFinite(refusedFrom) ? refusedFrom : undefined,
    twoFactorSetupRequired: row.kind === 'session' && row.require_two_factor === 1 && row.totp_enabled_at === null,
  }
}
