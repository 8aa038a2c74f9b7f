import { SqliteAdapter, type Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// The transactional outbox (ARCHITECTURE.md §7): one row per delivery owed, written in the transaction of the change
// that owes it, claimed by a dispatcher with a lease (`lease_owner`, `lease_until`), retried on a schedule
// (`next_attempt_at`) and never deleted when it fails. `kind` is `webhook` (a subscription's event) or
// `lead_webhook` (the operator's lead webhook). `payload` is the JSON body, fixed when the row is written so every
// attempt sends the same bytes. Rows with one `ordering_key` (a subscription and an object) are delivered in `seq`
// order. `status`: `pending`, `delivered`, `failed` (given up) or `cancelled` (its subscription was deleted).
// `outbox_attempt` records every attempt: the answer's status code, how long it took, the error.

function isSqlite(db: Kysely<unknown>): boolean {
  return db.getExecutor().adapter instanceof SqliteAdapter
}

export async function up(db: Kysely<unknown>): Promise<void> {
  const sqlite = isSqlite(db)
  await db.schema
    .createTable('outbox')
    .addColumn('seq', sqlite ? 'integer' : 'serial', (c) => (sqlite ? c.primaryKey().autoIncrement() : c.primaryKey()))
    .addColumn('id', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('organization_id', 'varchar(64)', (c) => c.notNull().references('organization.id').onDelete('cascade'))
    .addColumn('kind', 'varchar(16)', (c) => c.notNull())
    .addColumn('subscription_id', 'varchar(64)')
    .addColumn('event_id', 'varchar(64)')
    .addColumn('ordering_key', 'varchar(160)', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('lease_owner', 'varchar(64)')
    .addColumn('lease_until', 'varchar(32)')
    .addColumn('last_status_code', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('date_created', 'varchar(32)', (c) => c.notNull())
    .addColumn('date_updated', 'varchar(32)', (c) => c.notNull())
    .execute()
  const indexes: [string, string[]][] = [
    ['outbox_due_idx', ['status', 'next_attempt_at']],
    ['outbox_order_idx', ['ordering_key', 'status', 'seq']],
    ['outbox_subscription_idx', ['organization_id', 'subscription_id', 'seq']],
    ['outbox_done_idx', ['status', 'date_updated']],
  ]
  for (const [name, columns] of indexes) {
    await db.schema.createIndex(name).on('outbox').columns(columns).execute()
  }

  await db.schema
    .createTable('outbox_attempt')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('organization_id', 'varchar(64)', (c) => c.notNull().references('organization.id').onDelete('cascade'))
    .addColumn('outbox_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('subscription_id', 'varchar(64)')
    .addColumn('event_id', 'varchar(64)')
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('date_created', 'varchar(32)', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('outbox_attempt_subscription_idx')
    .on('outbox_attempt')
    .columns(['organization_id', 'subscription_id', 'date_created'])
    .execute()
  await db.schema.createIndex('outbox_attempt_outbox_idx').on('outbox_attempt').columns(['outbox_id']).execute()
}
