import { createHash, randomInt } from 'node:crypto'
import { Secret, TOTP } from 'otpauth'
import type { Db } from '../platform/data/database.js'
import { formatTimestamp } from '../platform/data/time.js'
import type { SecretBox } from '../platform/security/secret-box.js'
import { openSecret, totpSecretContext } from '../platform/security/stored-secrets.js'

// Two-factor sign-in (decision 0044): RFC 6238 TOTP as every authenticator app reads it (SHA-1, 6 digits, 30 s),
// a code accepted for the step before and after too (clocks drift), each step at most once per user; and ten
// single-use recovery codes.

const ISSUER = 'Leadline'
const PERIOD_SECONDS = 30
/** Steps either side of now a code is accepted for. */
const WINDOW = 1
const SECRET_BYTES = 20
export const RECOVERY_CODE_COUNT = 10
// Crockford's base32: 5 bits a character, no i, l, o or u to misread; 10 characters are 50 bits.
const RECOVERY_ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'
const RECOVERY_LENGTH = 10
const RECOVERY_CODE = /^[0-9a-hjkmnp-tv-z]{10}$/
/** The longest code (TOTP or recovery) a request may carry; anything longer is no code of ours. */
export const MAX_CODE_LENGTH = 32

function totp(secretBase32: string, label: string): TOTP {
  return new TOTP({
    issuer: ISSUER,
    label,
    algorithm: 'SHA1',
    digits: 6,
    period: PERIOD_SECONDS,
    secret: Secret.fromBase32(secretBase32),
  })
}

/** A new random TOTP secret (base32, as authenticator apps take it) and its `otpauth://` URL for `label`. */
export function newTotpSecret(label: string): { secret: string; otpauthUrl: string } {
  const secret = new Secret({ size: SECRET_BYTES }).base32
  return { secret, otpauthUrl: totp(secret, label).toString() }
}

/** The 30-second step a TOTP code is right for at `now` (±1 step), or undefined when it is not right. */
export function totpStep(secretBase32: string, code: string, now: Date): number | undefined {
  const token = code.replace(/[\s-]/g, '')
  if (!/^\d{6}$/.test(token)) return undefined
  const delta = totp(secretBase32, ISSUER).validate({ token, timestamp: now.getTime(), window: WINDOW })
  if (delta === null) return undefined
  return Math.floor(now.getTime() / 1000 / PERIOD_SECONDS) + delta
}

/** The code a TOTP secret shows at `now`: for tests and tools, as an authenticator app would. */
export function totpCode(secretBase32: string, now: Date): string {
  return totp(secretBase32, ISSUER).generate({ timestamp: now.getTime() })
}

/**
 * Ten new recovery codes, shown as `xxxxx-xxxxx`. Each has 50 random bits, so SHA-256 is enough to store them:
 * unlike a password, nobody can guess one from a list, and a fast hash over 2^50 values is still out of reach.
 */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const chars = Array.from({ length: RECOVERY_LENGTH }, () => RECOVERY_ALPHABET[randomInt(32)] ?? '')
    return `${chars.slice(0, 5).join('')}-${chars.slice(5).join('')}`
  })
}

/**
 * A recovery code as typed, in the form it is hashed in: case, spaces and dashes ignored, and the letters people
 * read for digits (o, i, l) taken as those digits, as Crockford's base32 does. Undefined for no code of ours.
 */
function normalizedRecoveryCode(typed: string): string | undefined {
  const code = typed.toLowerCase().replace(/[\s-]/g, '').replace(/o/g, '0').replace(/[il]/g, '1')
  return RECOVERY_CODE.test(code) ? code : undefined
}

function recoveryCodeHash(normalized: string): string {
  return createHash('sha256').update(normalized).digest('hex')
}

/** Replaces a user's recovery codes by new ones (the old stop working); the new ones, to show once. */
export async function replaceRecoveryCodes(db: Db, userId: string, now: Date): Promise<string[]> {
  const codes = newRecoveryCodes()
  await db.deleteFrom('recovery_code').where('user_id', '=', userId).execute()
  await db
    .insertInto('recovery_code')
    .values(
      codes.map((code) => ({
        user_id: userId,
        code_hash: recoveryCodeHash(normalizedRecoveryCode(code) ?? code),
        date_created: formatTimestamp(now),
        date_used: null,
      })),
    )
    .execute()
  return codes
}

/** How many of a user's recovery codes are unused. */
export async function recoveryCodesLeft(db: Db, userId: string): Promise<number> {
  const row = await db
    .selectFrom('recovery_code')
    .select((eb) => eb.fn.countAll<number | string | bigint>().as('left'))
    .where('user_id', '=', userId)
    .where('date_used', 'is', null)
    .executeTakeFirstOrThrow()
  return Number(row.left)
}

/** Uses up one of the user's recovery codes; false when it is none of theirs or used. One statement: race-safe. */
async function useRecoveryCode(db: Db, userId: string, typed: string, now: Date): Promise<boolean> {
  const normalized = normalizedRecoveryCode(typed)
  if (normalized === undefined) return false
  const result = await db
    .updateTable('recovery_code')
    .set({ date_used: formatTimestamp(now) })
    .where('user_id', '=', userId)
    .where('code_hash', '=', recoveryCodeHash(normalized))
    .where('date_used', 'is', null)
    .executeTakeFirst()
  return result.numUpdatedRows === 1n
}

/**
 * Takes a TOTP step for a user if no code was accepted for it or a later one; false when one was (a replay). One
 * conditional statement, so two requests with the same code at once cannot both pass.
 */
export async function takeTotpStep(db: Db, userId: string, step: number): Promise<boolean> {
  const result = await db
    .updateTable('user')
    .set({ totp_last_step: step })
    .where('id', '=', userId)
    .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step)]))
    .executeTakeFirst()
  return result.numUpdatedRows === 1n
}

/** The user's TOTP secret, opened; `stored` is the sealed value. */
export function openTotpSecret(box: SecretBox | null, userId: string, stored: string): string {
  return openSecret(box, stored, totpSecretContext(userId), `The two-factor secret of user ${userId}`)
}

/**
 * Whether `code` is a second factor of a user with two-factor on: a TOTP code for a step not used before, or an
 * unused recovery code, which it uses up.
 */
export async function acceptSecondFactor(
  db: Db,
  box: SecretBox | null,
  user: { id: string; totp_secret: string },
  code: string,
  now: Date,
): Promise<boolean> {
  const step = totpStep(openTotpSecret(box, user.id, user.totp_secret), code, now)
  if (step !== undefined) return takeTotpStep(db, user.id, step)
  return useRecoveryCode(db, user.id, code, now)
}
