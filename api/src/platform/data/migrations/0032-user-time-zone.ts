import type { Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// - `user.time_zone`: the IANA zone a person chose on their Profile for the app to show times and "today" in; null
//   while they keep their browser's.
// - an index on `api_key.membership_id`: deactivating a member and the Users screen read keys by membership.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('user').addColumn('time_zone', 'varchar(64)').execute()
  await db.schema.createIndex('api_key_membership_idx').on('api_key').column('membership_id').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('api_key_membership_idx').execute()
  await db.schema.alterTable('user').dropColumn('time_zone').execute()
}
