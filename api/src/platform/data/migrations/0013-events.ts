import { SqliteAdapter, type Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// The event log: one row per change of a lead, contact, opportunity, task, activity, status, pipeline or custom
// field, written in the transaction of the change. `seq` orders them (newest first in `/event/`, the cursor's key);
// `id` is the wire id (`ev_…`). `data`, `previous_data` and `changed_fields` are JSON text.

function isSqlite(db: Kysely<unknown>): boolean {
  return db.getExecutor().adapter instanceof SqliteAdapter
}

export async function up(db: Kysely<unknown>): Promise<void> {
  const sqlite = isSqlite(db)
  await db.schema
    .createTable('event')
    .addColumn('seq', sqlite ? 'integer' : 'serial', (c) => (sqlite ? c.primaryKey().autoIncrement() : c.primaryKey()))
    .addColumn('id', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('organization_id', 'varchar(64)', (c) => c.notNull().references('organization.id').onDelete('cascade'))
    .addColumn('object_type', 'varchar(32)', (c) => c.notNull())
    .addColumn('object_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('action', 'varchar(16)', (c) => c.notNull())
    .addColumn('lead_id', 'varchar(64)')
    .addColumn('user_id', 'varchar(64)')
    .addColumn('request_id', 'varchar(64)')
    .addColumn('api_key_id', 'varchar(64)')
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('previous_data', 'text', (c) => c.notNull())
    .addColumn('changed_fields', 'text', (c) => c.notNull())
    .addColumn('date_created', 'varchar(32)', (c) => c.notNull())
    .addColumn('date_updated', 'varchar(32)', (c) => c.notNull())
    .execute()
  const indexes: [string, string[]][] = [
    ['event_org_seq_idx', ['organization_id', 'seq']],
    ['event_org_object_idx', ['organization_id', 'object_id', 'seq']],
    ['event_org_type_idx', ['organization_id', 'object_type', 'seq']],
    ['event_org_lead_idx', ['organization_id', 'lead_id', 'seq']],
    ['event_org_user_idx', ['organization_id', 'user_id', 'seq']],
    ['event_org_request_idx', ['organization_id', 'request_id']],
    ['event_date_idx', ['date_created']],
  ]
  for (const [name, columns] of indexes) {
    await db.schema.createIndex(name).on('event').columns(columns).execute()
  }
}
