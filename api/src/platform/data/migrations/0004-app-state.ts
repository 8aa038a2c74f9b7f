import type { Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// A few facts the app keeps about the database as a whole, by key (e.g. the format its lead search documents are
// in). They belong to no organization, so unlike business tables this one has no organization_id.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('app_state')
    .addColumn('key', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute()
  // Rebuilding the search documents walks each organization's leads in id order, a batch at a time.
  await db.schema.createIndex('lead_org_id_idx').on('lead').columns(['organization_id', 'id']).execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('lead_org_id_idx').execute()
  await db.schema.dropTable('app_state').execute()
}
