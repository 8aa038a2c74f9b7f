import type { Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// People and sign-in (decision 0043):
// - `user.password_hash`: an argon2id PHC string, or null for someone who has never set a password;
// - `membership.status`: `active` or `inactive` (a deactivated member keeps their rows and their name);
// - `api_key.kind`: `api` for a key someone made, `session` for the key the api mints at each sign-in, which
//   expires at `date_expires` and after `idle_seconds` without use (`date_last_used`, written at most once a minute);
// - `sign_in_throttle`: failed sign-ins counted per address and per account, shared by every api process.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('user').addColumn('password_hash', 'text').execute()
  await db.schema.alterTable('user').addColumn('password_changed_at', 'varchar(32)').execute()
  await db.schema
    .alterTable('membership')
    .addColumn('status', 'varchar(16)', (c) => c.notNull().defaultTo('active'))
    .execute()
  await db.schema.alterTable('membership').addColumn('date_deactivated', 'varchar(32)').execute()
  await db.schema
    .alterTable('api_key')
    .addColumn('kind', 'varchar(16)', (c) => c.notNull().defaultTo('api'))
    .execute()
  await db.schema.alterTable('api_key').addColumn('description', 'text').execute()
  await db.schema.alterTable('api_key').addColumn('date_expires', 'varchar(32)').execute()
  await db.schema.alterTable('api_key').addColumn('idle_seconds', 'integer').execute()
  await db.schema.alterTable('api_key').addColumn('date_last_used', 'varchar(32)').execute()
  await db.schema
    .createIndex('api_key_user_kind_idx')
    .on('api_key')
    .columns(['user_id', 'kind', 'date_revoked'])
    .execute()

  await db.schema
    .createTable('sign_in_throttle')
    .addColumn('key', 'varchar(320)', (c) => c.primaryKey())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('window_ends', 'varchar(32)', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('sign_in_throttle_window_idx').on('sign_in_throttle').column('window_ends').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('sign_in_throttle').execute()
  await db.schema.dropIndex('api_key_user_kind_idx').execute()
  for (const column of ['date_last_used', 'idle_seconds', 'date_expires', 'description', 'kind']) {
    await db.schema.alterTable('api_key').dropColumn(column).execute()
  }
  await db.schema.alterTable('membership').dropColumn('date_deactivated').execute()
  await db.schema.alterTable('membership').dropColumn('status').execute()
  await db.schema.alterTable('user').dropColumn('password_changed_at').execute()
  await db.schema.alterTable('user').dropColumn('password_hash').execute()
}
