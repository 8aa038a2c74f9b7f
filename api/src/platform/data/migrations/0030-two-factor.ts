import type { Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// Two-factor sign-in (decision 0044):
// - `user.totp_secret`: the TOTP secret of someone who has two-factor on, sealed under LEADLINE_SECRET_KEY;
//   `totp_pending_secret` one being set up, not yet confirmed by a code; `totp_enabled_at` when it was turned on;
//   `totp_last_step`: the last 30-second step a code was accepted for, so no step is accepted twice;
// - `recovery_code`: ten single-use codes per user, stored as SHA-256;
// - `organization.require_two_factor`: 1 when the organization requires two-factor of its members.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('user').addColumn('totp_secret', 'text').execute()
  await db.schema.alterTable('user').addColumn('totp_pending_secret', 'text').execute()
  await db.schema.alterTable('user').addColumn('totp_enabled_at', 'varchar(32)').execute()
  await db.schema.alterTable('user').addColumn('totp_last_step', 'integer').execute()
  await db.schema
    .alterTable('organization')
    .addColumn('require_two_factor', 'integer', (c) => c.notNull().defaultTo(0))
    .execute()

  await db.schema
    .createTable('recovery_code')
    .addColumn('user_id', 'varchar(64)', (c) => c.notNull().references('user.id').onDelete('cascade'))
    .addColumn('code_hash', 'varchar(64)', (c) => c.notNull())
    .addColumn('date_created', 'varchar(32)', (c) => c.notNull())
    .addColumn('date_used', 'varchar(32)')
    .addPrimaryKeyConstraint('recovery_code_pk', ['user_id', 'code_hash'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('recovery_code').execute()
  await db.schema.alterTable('organization').dropColumn('require_two_factor').execute()
  for (const column of ['totp_last_step', 'totp_enabled_at', 'totp_pending_secret', 'totp_secret']) {
    await db.schema.alterTable('user').dropColumn(column).execute()
  }
}
