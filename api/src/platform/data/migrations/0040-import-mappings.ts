import type { Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// What `leadline import close` copied (decision 0054): for each object read from a source (a Close-compatible API,
// named by its base URL), the Leadline object it became in which organization, so a second run updates or skips it
// instead of creating it again.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('import_mapping')
    .addColumn('organization_id', 'varchar(64)', (c) => c.notNull().references('organization.id').onDelete('cascade'))
    .addColumn('source', 'varchar(500)', (c) => c.notNull())
    .addColumn('source_id', 'varchar(128)', (c) => c.notNull())
    .addColumn('kind', 'varchar(32)', (c) => c.notNull())
    .addColumn('target_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('date_created', 'varchar(32)', (c) => c.notNull())
    .addColumn('date_updated', 'varchar(32)', (c) => c.notNull())
    .addPrimaryKeyConstraint('import_mapping_pk', ['organization_id', 'source', 'source_id'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('import_mapping').execute()
}
