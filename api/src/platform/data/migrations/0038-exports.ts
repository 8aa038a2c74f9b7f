import type { Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// Exports of leads and opportunities (decision 0052): `data_export` is one export and its state, with the lease of
// the worker making it; `data_export_chunk` holds its gzip-compressed file in pieces of at most 1 MiB, in base64, so
// any api process (they may share one Postgres) can serve it. Deleting an export deletes its chunks.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('data_export')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('organization_id', 'varchar(64)', (c) => c.notNull().references('organization.id').onDelete('cascade'))
    .addColumn('created_by', 'varchar(64)', (c) => c.notNull())
    .addColumn('object_type', 'varchar(16)', (c) => c.notNull())
    .addColumn('format', 'varchar(8)', (c) => c.notNull())
    .addColumn('type', 'varchar(16)', (c) => c.notNull())
    .addColumn('date_format', 'varchar(16)', (c) => c.notNull())
    .addColumn('fields', 'text')
    .addColumn('query', 'text')
    .addColumn('params', 'text')
    .addColumn('tz_offset', 'double precision', (c) => c.notNull().defaultTo(0))
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('n_rows', 'integer')
    .addColumn('size', 'bigint')
    .addColumn('error', 'text')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('lease_owner', 'varchar(64)')
    .addColumn('lease_until', 'varchar(32)')
    .addColumn('date_created', 'varchar(32)', (c) => c.notNull())
    .addColumn('date_updated', 'varchar(32)', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('data_export_org_created_idx')
    .on('data_export')
    .columns(['organization_id', 'date_created'])
    .execute()
  await db.schema.createIndex('data_export_status_idx').on('data_export').columns(['status', 'lease_until']).execute()
  await db.schema
    .createTable('data_export_chunk')
    .addColumn('export_id', 'varchar(64)', (c) => c.notNull().references('data_export.id').onDelete('cascade'))
    .addColumn('organization_id', 'varchar(64)', (c) => c.notNull().references('organization.id').onDelete('cascade'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('data_export_chunk_pk', ['export_id', 'seq'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('data_export_chunk').execute()
  await db.schema.dropTable('data_export').execute()
}
