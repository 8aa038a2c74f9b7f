import type { Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// Invitations and password resets: each is a single-use link emailed by the system mailer, stored
// only as the SHA-256 of its token (`token_hash`, hex), so a copy of the database lets no one follow a link.
// - `invitation`: an admin's invitation to an address to join an organization with a role; pending until accepted
//   (`date_accepted`), revoked (`date_revoked`) or past `date_expires`. A resend replaces the token.
//   `invited_by` is null for an invitation an operator made with the CLI.
// - `password_reset`: a link that sets a user's password once (`date_used`) before `date_expires`.
// Their emails go through the outbox; `outbox_org_kind_idx` counts an organization's invitation emails of the hour.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('invitation')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('organization_id', 'varchar(64)', (c) => c.notNull().references('organization.id').onDelete('cascade'))
    .addColumn('email', 'varchar(320)', (c) => c.notNull())
    .addColumn('email_lower', 'varchar(320)', (c) => c.notNull())
    .addColumn('role', 'varchar(16)', (c) => c.notNull())
    .addColumn('token_hash', 'varchar(64)', (c) => c.notNull())
    .addColumn('invited_by', 'varchar(64)', (c) => c.references('user.id').onDelete('set null'))
    .addColumn('date_created', 'varchar(32)', (c) => c.notNull())
    .addColumn('date_expires', 'varchar(32)', (c) => c.notNull())
    .addColumn('date_last_sent', 'varchar(32)', (c) => c.notNull())
    .addColumn('date_accepted', 'varchar(32)')
    .addColumn('date_revoked', 'varchar(32)')
    .execute()
  await db.schema.createIndex('invitation_token_hash_idx').on('invitation').column('token_hash').unique().execute()
  await db.schema
    .createIndex('invitation_org_email_idx')
    .on('invitation')
    .columns(['organization_id', 'email_lower'])
    .execute()
  await db.schema
    .createIndex('invitation_org_created_idx')
    .on('invitation')
    .columns(['organization_id', 'date_created'])
    .execute()

  await db.schema
    .createTable('password_reset')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('user_id', 'varchar(64)', (c) => c.notNull().references('user.id').onDelete('cascade'))
    .addColumn('token_hash', 'varchar(64)', (c) => c.notNull())
    .addColumn('date_created', 'varchar(32)', (c) => c.notNull())
    .addColumn('date_expires', 'varchar(32)', (c) => c.notNull())
    .addColumn('date_used', 'varchar(32)')
    .execute()
  await db.schema
    .createIndex('password_reset_token_hash_idx')
    .on('password_reset')
    .column('token_hash')
    .unique()
    .execute()
  await db.schema
    .createIndex('password_reset_user_idx')
    .on('password_reset')
    .columns(['user_id', 'date_created'])
    .execute()
  // How many emails of a kind an organization sent in the last hour (invitations are limited per hour).
  await db.schema
    .createIndex('outbox_org_kind_idx')
    .on('outbox')
    .columns(['organization_id', 'kind', 'date_created'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('outbox_org_kind_idx').execute()
  await db.schema.dropTable('password_reset').execute()
  await db.schema.dropTable('invitation').execute()
}
