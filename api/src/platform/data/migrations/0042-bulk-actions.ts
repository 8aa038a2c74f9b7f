import type { Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// Bulk actions (`/bulk_action/edit/` and `/bulk_action/delete/`, decision 0057): `bulk_action` is one job and its
// state, with the lease of the worker running it. `bulk_action_lead` is the job's leads, fixed when it starts
// (numbered by `seq`, so a resumed job goes on after the last batch it committed, `cursor`). `bulk_action_change`
// keeps what an edit replaced on each lead it changed, and what it wrote there, for undo.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('bulk_action')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('organization_id', 'varchar(64)', (c) => c.notNull().references('organization.id').onDelete('cascade'))
    .addColumn('kind', 'varchar(16)', (c) => c.notNull())
    .addColumn('type', 'varchar(32)')
    .addColumn('created_by', 'varchar(64)', (c) => c.notNull())
    .addColumn('updated_by', 'varchar(64)', (c) => c.notNull())
    .addColumn('query', 'text')
    .addColumn('s_query', 'text')
    .addColumn('lead_ids', 'text')
    .addColumn('results_limit', 'integer')
    .addColumn('params', 'text', (c) => c.notNull())
    .addColumn('tz_offset', 'integer', (c) => c.notNull())
    .addColumn('send_done_email', 'integer', (c) => c.notNull())
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('n_leads', 'integer')
    .addColumn('n_leads_processed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('n_leads_changed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('n_leads_undone', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('cursor', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('undo_cursor', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .addColumn('error', 'text')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('lease_owner', 'varchar(64)')
    .addColumn('lease_until', 'varchar(32)')
    .addColumn('date_created', 'varchar(32)', (c) => c.notNull())
    .addColumn('date_updated', 'varchar(32)', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('bulk_action_org_kind_idx')
    .on('bulk_action')
    .columns(['organization_id', 'kind', 'date_created'])
    .execute()
  await db.schema.createIndex('bulk_action_status_idx').on('bulk_action').columns(['status', 'lease_until']).execute()
  await db.schema
    .createTable('bulk_action_lead')
    .addColumn('action_id', 'varchar(64)', (c) => c.notNull().references('bulk_action.id').onDelete('cascade'))
    .addColumn('organization_id', 'varchar(64)', (c) => c.notNull().references('organization.id').onDelete('cascade'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('lead_id', 'varchar(64)', (c) => c.notNull())
    .addPrimaryKeyConstraint('bulk_action_lead_pk', ['action_id', 'seq'])
    .execute()
  await db.schema
    .createTable('bulk_action_change')
    .addColumn('action_id', 'varchar(64)', (c) => c.notNull().references('bulk_action.id').onDelete('cascade'))
    .addColumn('organization_id', 'varchar(64)', (c) => c.notNull().references('organization.id').onDelete('cascade'))
    .addColumn('lead_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('previous', 'text', (c) => c.notNull())
    .addColumn('next', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('bulk_action_change_pk', ['action_id', 'lead_id'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('bulk_action_change').execute()
  await db.schema.dropTable('bulk_action_lead').execute()
  await db.schema.dropTable('bulk_action').execute()
}
