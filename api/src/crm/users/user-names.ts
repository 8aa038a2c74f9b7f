import { sql, type RawBuilder } from 'kysely'
import type { Db, Tx } from '../../platform/data/database.js'
import { displayName } from './user-repo.js'

/** Display names of the given users, for `created_by_name`-style fields. */
export async function userNames(db: Db | Tx, ids: Iterable<string | null>): Promise<Map<string, string>> {
  const unique = [...new Set([...ids].filter((id): id is string => id !== null))]
  if (unique.length === 0) return new Map()
  const rows = await db
    .selectFrom('user')
    .select(['id', 'email', 'first_name', 'last_name'])
    .where('id', 'in', unique)
    .execute()
  return new Map(rows.map((u) => [u.id, displayName(u)]))
}

/**
 * `displayName` (user-repo.ts) in SQL, of the `user` row known as `alias`: first and last name where given, else the
 * email. The same on both dialects.
 */
export function displayNameSql(alias: string): RawBuilder<string> {
  const [first, last, email] = ['first_name', 'last_name', 'email'].map((c) => sql.ref(`${alias}.${c}`))
  return sql<string>`(case
    when coalesce(${first}, '') = '' and coalesce(${last}, '') = '' then ${email}
    when coalesce(${last}, '') = '' then ${first}
    when coalesce(${first}, '') = '' then ${last}
    else ${first} || ' ' || ${last} end)`
}
