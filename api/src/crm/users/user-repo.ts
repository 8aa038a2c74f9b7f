import type { Db, Tx } from '../../platform/data/database.js'
import { isEmail } from '../../platform/text/text.js'
import { ValidationError } from '../../platform/http/errors.js'
import { newId, randomBase62 } from '../../platform/security/ids.js'
import { formatTimestamp, type Clock } from '../../platform/data/time.js'

export interface NewUser {
  email: string
  firstName?: string | null
  lastName?: string | null
}

export async function findUserByEmail(db: Db | Tx, email: string) {
  return db.selectFrom('user').selectAll().where('email_lower', '=', email.toLowerCase()).executeTakeFirst()
}

/** Finds the user with this email, or creates one. */
export async function ensureUser(db: Db | Tx, clock: Clock, input: NewUser): Promise<string> {
  if (!isEmail(input.email)) throw ValidationError.field('email', 'Enter a valid email address.')
  const existing = await findUserByEmail(db, input.email)
  if (existing !== undefined) return existing.id
  const now = formatTimestamp(clock.now())
  const id = newId('user')
  await db
    .insertInto('user')
    .values({
      id,
      email: input.email,
      email_lower: input.email.toLowerCase(),
      first_name: input.firstName ?? null,
      last_name: input.lastName ?? null,
      image: null,
      last_used_timezone: null,
      sip_username: `sip_${randomBase62(16)}`,
      sip_password: randomBase62(32),
      date_created: now,
      date_updated: now,
    })
    .execute()
  return id
}

export async function addMembership(
  db: Db | Tx,
  clock: Clock,
  input: { organizationId: string; userId: string; role: 'admin' | 'user' },
): Promise<string> {
  const existing = await db
    .selectFrom('membership')
    .select('id')
    .where('organization_id', '=', input.organizationId)
    .where('user_id', '=', input.userId)
    .executeTakeFirst()
  if (existing !== undefined) throw ValidationError.field('email', 'This user is already a member of the organization.')
  const now = formatTimestamp(clock.now())
  const id = newId('membership')
  await db
    .insertInto('membership')
    .values({
      id,
      organization_id: input.organizationId,
      user_id: input.userId,
      role: input.role,
      date_created: now,
      date_updated: now,
    })
    .execute()
  return id
}

export function displayName(user: { first_name: string | null; last_name: string | null; email: string }): string {
  const name = [user.first_name, user.last_name].filter((p) => p !== null && p !== '').join(' ')
  return name === '' ? user.email : name
}

/** The user's membership in the organization, if they are a member. */
export async function membershipOf(db: Db | Tx, organizationId: string, userId: string) {
  return db
    .selectFrom('membership')
    .select('id')
    .where('organization_id', '=', organizationId)
    .where('user_id', '=', userId)
    .executeTakeFirst()
}

export async function isMemberOf(db: Db | Tx, organizationId: string, userId: string): Promise<boolean> {
  return (await membershipOf(db, organizationId, userId)) !== undefined
}
