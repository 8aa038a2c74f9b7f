import type { Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// CSV imports (decision 0053): `data_import` is one import and its state, with the lease of the worker running its
// job; `data_import_chunk` holds its file, transcoded to UTF-8 and gzip-compressed, in base64 pieces as exports keep
// theirs. `data_import_failure` holds the rows a dry run or a run could not take, with why. `data_import_lead` is
// the record of what a run did: one row per company key with the lead it became (created or matched), which groups
// rows across batches and makes resuming safe; `data_import_change` keeps an updated lead's fields and custom values
// as they were, and `data_import_added` the contacts, addresses and opportunities a run added to existing leads,
// for undo. An index of leads by URL serves the duplicate rule `url`.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('data_import')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('organization_id', 'varchar(64)', (c) => c.notNull().references('organization.id').onDelete('cascade'))
    .addColumn('created_by', 'varchar(64)', (c) => c.notNull())
    .addColumn('filename', 'varchar(255)', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('encoding', 'varchar(16)', (c) => c.notNull())
    .addColumn('delimiter', 'varchar(4)', (c) => c.notNull())
    .addColumn('columns', 'text', (c) => c.notNull())
    .addColumn('preview', 'text', (c) => c.notNull())
    .addColumn('n_rows', 'integer', (c) => c.notNull())
    .addColumn('mapping', 'text', (c) => c.notNull())
    .addColumn('duplicate_rule', 'text', (c) => c.notNull())
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('rows_done', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('check_result', 'text')
    .addColumn('counts', 'text', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('lease_owner', 'varchar(64)')
    .addColumn('lease_until', 'varchar(32)')
    .addColumn('date_created', 'varchar(32)', (c) => c.notNull())
    .addColumn('date_updated', 'varchar(32)', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('data_import_org_created_idx')
    .on('data_import')
    .columns(['organization_id', 'date_created'])
    .execute()
  await db.schema.createIndex('data_import_status_idx').on('data_import').columns(['status', 'lease_until']).execute()
  await db.schema
    .createTable('data_import_chunk')
    .addColumn('import_id', 'varchar(64)', (c) => c.notNull().references('data_import.id').onDelete('cascade'))
    .addColumn('organization_id', 'varchar(64)', (c) => c.notNull().references('organization.id').onDelete('cascade'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('data_import_chunk_pk', ['import_id', 'seq'])
    .execute()
  await db.schema
    .createTable('data_import_failure')
    .addColumn('import_id', 'varchar(64)', (c) => c.notNull().references('data_import.id').onDelete('cascade'))
    .addColumn('organization_id', 'varchar(64)', (c) => c.notNull().references('organization.id').onDelete('cascade'))
    .addColumn('pass', 'varchar(8)', (c) => c.notNull())
    .addColumn('row', 'integer', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('cells', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('data_import_failure_pk', ['import_id', 'pass', 'row'])
    .execute()
  await db.schema
    .createTable('data_import_lead')
    .addColumn('import_id', 'varchar(64)', (c) => c.notNull().references('data_import.id').onDelete('cascade'))
    .addColumn('organization_id', 'varchar(64)', (c) => c.notNull().references('organization.id').onDelete('cascade'))
    .addColumn('key', 'varchar(512)', (c) => c.notNull())
    .addColumn('lead_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('created', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('data_import_lead_pk', ['import_id', 'key'])
    .execute()
  await db.schema
    .createIndex('data_import_lead_lead_idx')
    .on('data_import_lead')
    .columns(['import_id', 'lead_id'])
    .execute()
  await db.schema
    .createTable('data_import_change')
    .addColumn('import_id', 'varchar(64)', (c) => c.notNull().references('data_import.id').onDelete('cascade'))
    .addColumn('organization_id', 'varchar(64)', (c) => c.notNull().references('organization.id').onDelete('cascade'))
    .addColumn('lead_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('previous', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('data_import_change_pk', ['import_id', 'lead_id'])
    .execute()
  await db.schema
    .createTable('data_import_added')
    .addColumn('import_id', 'varchar(64)', (c) => c.notNull().references('data_import.id').onDelete('cascade'))
    .addColumn('organization_id', 'varchar(64)', (c) => c.notNull().references('organization.id').onDelete('cascade'))
    .addColumn('lead_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('kind', 'varchar(16)', (c) => c.notNull())
    .addColumn('object_id', 'varchar(64)', (c) => c.notNull())
    .addPrimaryKeyConstraint('data_import_added_pk', ['import_id', 'kind', 'object_id'])
    .execute()
  // The duplicate rule `url` looks a batch's sites up by the spellings a lead's URL has for them.
  await db.schema.createIndex('lead_org_url_idx').on('lead').columns(['organization_id', 'url']).execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('lead_org_url_idx').execute()
  for (const table of ['data_import_added', 'data_import_change', 'data_import_lead', 'data_import_failure']) {
    await db.schema.dropTable(table).execute()
  }
  await db.schema.dropTable('data_import_chunk').execute()
  await db.schema.dropTable('data_import').execute()
}
