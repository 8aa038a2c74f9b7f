import type { User, UserPhoneNumber } from '@leadline/shared/user-schema'
import type { Db, UserTable } from '../../platform/data/database.js'
import { groupBy } from '../../platform/data/collections.js'
import { displayName } from './user-repo.js'

/**
 * The public user object; `organizations` names only the caller's organization, never the user's others, and
 * `phone_numbers` are the user's numbers in that organization.
 */
export function userView(user: UserTable, organizationId: string, phoneNumbers: UserPhoneNumber[]): User {
  return {
    id: user.id,
    email: user.email,
    first_name: user.first_name,
    last_name: user.last_name,
    display_name: displayName(user),
    image: user.image,
    last_used_timezone: user.last_used_timezone,
    organizations: [organizationId],
    phone_numbers: phoneNumbers,
    date_created: user.date_created,
    date_updated: user.date_updated,
  }
}

/** The organization's phone numbers of each of `userIds`, oldest first, in one query for all of them. */
export async function userPhoneNumbers(
  db: Db,
  organizationId: string,
  userIds: readonly string[],
): Promise<Map<string, UserPhoneNumber[]>> {
  if (userIds.length === 0) return new Map()
  const rows = await db
    .selectFrom('phone_number')
    .select(['id', 'number', 'label', 'type', 'user_id'])
    .where('organization_id', '=', organizationId)
    .where('user_id', 'in', [...new Set(userIds)])
    .orderBy('date_created')
    .orderBy('id')
    .execute()
  const byUser = groupBy(rows, (row) => row.user_id ?? '')
  return new Map(
    [...byUser].map(([userId, numbers]) => [
      userId,
      numbers.map(({ id, number, label, type }) => ({ id, number, label, type })),
    ]),
  )
}

/** The users as the API lists them, with their phone numbers in the organization. */
export async function userViews(db: Db, organizationId: string, users: UserTable[]): Promise<User[]> {
  const phones = await userPhoneNumbers(
    db,
    organizationId,
    users.map((u) => u.id),
  )
  return users.map((u) => userView(u, organizationId, phones.get(u.id) ?? []))
}
