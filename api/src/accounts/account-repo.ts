import type { Db, Dialect } from '../platform/data/database.js'
import { formatTimestamp, type Clock } from '../platform/data/time.js'
import { hashPassword, passwordProblem } from './passwords.js'

/** A password refused as too weak, with the reason to show. */
export class WeakPasswordError extends Error {
  override name = 'WeakPasswordError'
}

/** What a person's password is checked against as known words: their address and name. */
export async function personalWords(db: Db, userId: string): Promise<string[]> {
  const user = await db
    .selectFrom('user')
    .select(['email_lower', 'first_name', 'last_name'])
    .where('id', '=', userId)
    .executeTakeFirstOrThrow()
  return [user.email_lower, user.first_name ?? '', user.last_name ?? '']
}

/** Sets a user's password after the strength check (throws WeakPasswordError with the reason). */
export async function setPassword(db: Db, clock: Clock, userId: string, password: string): Promise<void> {
  const problem = await passwordProblem(password, await personalWords(db, userId))
  if (problem !== undefined) throw new WeakPasswordError(problem)
  await storePassword(db, clock, userId, password)
}

/**
 * Sets a user's password without the strength check: for a password made at random by Leadline itself (the demo
 * users'), which no dictionary or pattern can hold. Everything a person chooses goes through setPassword.
 */
export async function storePassword(db: Db, clock: Clock, userId: string, password: string): Promise<void> {
  const passwordHash = await hashPassword(password)
  await db
    .updateTable('user')
    .set({ password_hash: passwordHash, password_changed_at: formatTimestamp(clock.now()) })
    .where('id', '=', userId)
    .execute()
}

/**
 * Serializes the changes to an organization's members and invitations, so that two at once cannot both pass a check
 * the other would fail (two admins demoting each other, two invitations of one address). SQLite needs nothing:
 * Kysely runs its transactions one at a time.
 */
export async function lockMemberships(tx: Db, dialect: Dialect, organizationId: string): Promise<void> {
  if (dialect !== 'postgres') return
  await tx.selectFrom('organization').select('id').where('id', '=', organizationId).forUpdate().executeTakeFirst()
}
