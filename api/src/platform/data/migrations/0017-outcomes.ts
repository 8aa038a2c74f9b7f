import type { Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// Outcomes (`/outcome/`): what came of a call (or, later, a meeting), named per organization. `name_key` is the name
// case-folded: unique per organization, so two concurrent creates cannot both take a name, and the list's order.
// `applies_to` is a JSON list of `calls` / `meetings`. Calls keep an outcome's id after it is deleted (Close does), so
// nothing references this table by foreign key.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('outcome')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('organization_id', 'varchar(64)', (c) => c.notNull().references('organization.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_key', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('type', 'varchar(16)', (c) => c.notNull())
    .addColumn('applies_to', 'text', (c) => c.notNull())
    .addColumn('created_by', 'varchar(64)')
    .addColumn('updated_by', 'varchar(64)')
    .addColumn('date_created', 'varchar(32)', (c) => c.notNull())
    .addColumn('date_updated', 'varchar(32)', (c) => c.notNull())
    .addUniqueConstraint('outcome_org_name_unique', ['organization_id', 'name_key'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('outcome').execute()
}
