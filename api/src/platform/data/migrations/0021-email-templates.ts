import type { Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// Email templates (`/email_template/`, decision 0030): a name, a subject and an HTML body written in Liquid, per
// organization. A shared template is the organization's (admins change it); an unshared one belongs to `created_by`
// alone. `attachments` is a JSON list of `{url, filename, content_type, size}`; booleans are 0/1 integers.
// `(organization_id, name)` serves the list, which is in name order.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('email_template')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('organization_id', 'varchar(64)', (c) => c.notNull().references('organization.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('is_shared', 'integer', (c) => c.notNull())
    .addColumn('is_archived', 'integer', (c) => c.notNull())
    .addColumn('attachments', 'text', (c) => c.notNull())
    .addColumn('created_by', 'varchar(64)')
    .addColumn('updated_by', 'varchar(64)')
    .addColumn('date_created', 'varchar(32)', (c) => c.notNull())
    .addColumn('date_updated', 'varchar(32)', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('email_template_org_name_idx')
    .on('email_template')
    .columns(['organization_id', 'name'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('email_template').execute()
}
