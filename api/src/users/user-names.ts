import type { Db } from '../db/database.js'
import { displayName } from './user-repo.js'

/** Display names of the given users, for `created_by_name`-style fields. */
export async function userNames(db: Db, ids: Iterable<string | null>): Promise<Map<string, string>> {
  const unique = [...new Set([...ids].filter((id): id is string => id !== null))]
  if (unique.length === 0) return new Map()
  const rows = await db
    .selectFrom('user')
    .select(['id', 'email', 'first_name', 'last_name'])
    .where('id', 'in', unique)
    .execute()
  return new Map(rows.map((u) => [u.id, displayName(u)]))
}
