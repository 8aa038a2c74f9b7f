import { sql, SqliteAdapter, type Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// Email accounts (`/email_account/`, decision 0029): the address a user sends as, the SMTP server it goes through and
// the identities (`{name, email}`, JSON) the user may send as, the account's own address first.
// - `email` is lowercased; an address belongs to at most one account of an organization (unique).
// - `smtp_password` is `v1:<iv>:<ciphertext+tag>` (AES-256-GCM under LEADLINE_SECRET_KEY) or null; `smtp_use_ssl` 0/1.
// - `email_account_address`: every address each account sends as (its own and its identities'), lowercased, so
//   incoming mail finds its accounts by index, across organizations too, without reading every account's JSON.
// - /me/ shows the caller's accounts: like phone numbers (0005), a change to an account moves the organization's
//   meta_version, by trigger, in the same transaction.

function isSqlite(db: Kysely<unknown>): boolean {
  return db.getExecutor().adapter instanceof SqliteAdapter
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('email_account')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('organization_id', 'varchar(64)', (c) => c.notNull().references('organization.id').onDelete('cascade'))
    .addColumn('user_id', 'varchar(64)', (c) => c.notNull().references('user.id').onDelete('cascade'))
    .addColumn('email', 'varchar(320)', (c) => c.notNull())
    .addColumn('identities', 'text', (c) => c.notNull())
    .addColumn('smtp_host', 'varchar(255)', (c) => c.notNull())
    .addColumn('smtp_port', 'integer', (c) => c.notNull())
    .addColumn('smtp_username', 'varchar(320)')
    .addColumn('smtp_password', 'text')
    .addColumn('smtp_use_ssl', 'integer', (c) => c.notNull())
    .addColumn('date_created', 'varchar(32)', (c) => c.notNull())
    .addColumn('date_updated', 'varchar(32)', (c) => c.notNull())
    .addColumn('created_by', 'varchar(64)')
    .addColumn('updated_by', 'varchar(64)')
    .addUniqueConstraint('email_account_org_email_unique', ['organization_id', 'email'])
    .execute()
  await db.schema
    .createIndex('email_account_org_user_idx')
    .on('email_account')
    .columns(['organization_id', 'user_id'])
    .execute()

  await db.schema
    .createTable('email_account_address')
    .addColumn('email_account_id', 'varchar(64)', (c) => c.notNull().references('email_account.id').onDelete('cascade'))
    .addColumn('organization_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('address', 'varchar(320)', (c) => c.notNull())
    .addPrimaryKeyConstraint('email_account_address_pk', ['email_account_id', 'address'])
    .execute()
  await db.schema
    .createIndex('email_account_address_idx')
    .on('email_account_address')
    .columns(['address', 'organization_id'])
    .execute()

  if (isSqlite(db)) {
    const bump = (id: string) => `UPDATE organization SET meta_version = meta_version + 1 WHERE id = ${id};`
    for (const statement of [
      `CREATE TRIGGER email_account_meta_ai AFTER INSERT ON email_account BEGIN ${bump('new.organization_id')} END`,
      `CREATE TRIGGER email_account_meta_ad AFTER DELETE ON email_account BEGIN ${bump('old.organization_id')} END`,
      `CREATE TRIGGER email_account_meta_au AFTER UPDATE ON email_account BEGIN
         UPDATE organization SET meta_version = meta_version + 1 WHERE id IN (old.organization_id, new.organization_id); END`,
    ]) {
      await sql.raw(statement).execute(db)
    }
  } else {
    // leadline_part_meta_bump() is 0005's.
    await sql
      .raw(
        `CREATE TRIGGER email_account_meta_aiud AFTER INSERT OR UPDATE OR DELETE ON email_account
           FOR EACH ROW EXECUTE FUNCTION leadline_part_meta_bump()`,
      )
      .execute(db)
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('email_account_address').execute()
  // Dropping the table drops its triggers in both dialects.
  await db.schema.dropTable('email_account').execute()
}
