import type { Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// Single sign-on by OpenID Connect (decision 0045):
// - `single_sign_on`: an organization's provider: issuer, client id, the client secret sealed under
//   LEADLINE_SECRET_KEY (`v1:…`, context `single_sign_on:<organization id>`), `enabled`, and `required` (password
//   sign-in refused to every member but admins);
// - `single_sign_on_domain`: the email domains a provider covers; a domain belongs to one organization at most;
// - `single_sign_on_login`: a sign-in begun and not yet finished, by a SHA-256 of its `state`, with the nonce and the
//   PKCE verifier it was begun with; deleted when it is finished, and useless after `date_expires`.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('single_sign_on')
    .addColumn('organization_id', 'varchar(64)', (c) =>
      c.primaryKey().references('organization.id').onDelete('cascade'),
    )
    .addColumn('issuer', 'varchar(500)', (c) => c.notNull())
    .addColumn('client_id', 'varchar(500)', (c) => c.notNull())
    .addColumn('client_secret', 'text')
    .addColumn('enabled', 'boolean', (c) => c.notNull())
    .addColumn('required', 'boolean', (c) => c.notNull())
    .addColumn('date_created', 'varchar(32)', (c) => c.notNull())
    .addColumn('date_updated', 'varchar(32)', (c) => c.notNull())
    .execute()

  await db.schema
    .createTable('single_sign_on_domain')
    .addColumn('domain', 'varchar(253)', (c) => c.primaryKey())
    .addColumn('organization_id', 'varchar(64)', (c) => c.notNull().references('organization.id').onDelete('cascade'))
    .execute()
  await db.schema
    .createIndex('single_sign_on_domain_org_idx')
    .on('single_sign_on_domain')
    .column('organization_id')
    .execute()

  await db.schema
    .createTable('single_sign_on_login')
    .addColumn('state_hash', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('organization_id', 'varchar(64)', (c) => c.notNull().references('organization.id').onDelete('cascade'))
    .addColumn('nonce', 'varchar(100)', (c) => c.notNull())
    .addColumn('code_verifier', 'varchar(200)', (c) => c.notNull())
    .addColumn('invitation_token_hash', 'varchar(64)')
    .addColumn('date_created', 'varchar(32)', (c) => c.notNull())
    .addColumn('date_expires', 'varchar(32)', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('single_sign_on_login_expires_idx')
    .on('single_sign_on_login')
    .column('date_expires')
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('single_sign_on_login').execute()
  await db.schema.dropTable('single_sign_on_domain').execute()
  await db.schema.dropTable('single_sign_on').execute()
}
