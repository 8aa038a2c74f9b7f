import { sql, SqliteAdapter, type Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// Webhook subscriptions (`/webhook/`): where an organization's events are POSTed. `events` is the JSON list of
// `{object_type, action, extra_filter}` the subscription asks for; `signature_key` (64 hex characters) signs every
// request and is shown only when the subscription is made. `status` is `active` or `paused`; `status_reason` says
// why a subscription was paused (by an admin, or after 72 hours of failed deliveries since `failing_since`).
// Booleans are 0/1 integers.
// `webhook_subscription_version` holds, per organization, a stamp that triggers replace with a new random one whenever
// a subscription is created or deleted or its `events` or `status` change, in the transaction of the change: a
// process caches the organization's active subscriptions under the stamp it read first (decision 0023). A random
// stamp, not a counter, so a change rolled back can never leave a cache entry under a stamp that comes back.
// No row: the organization never had a subscription.

function isSqlite(db: Kysely<unknown>): boolean {
  return db.getExecutor().adapter instanceof SqliteAdapter
}

const SQLITE_TRIGGERS = [
  `CREATE TRIGGER webhook_subscription_version_ai AFTER INSERT ON webhook_subscription BEGIN
     INSERT INTO webhook_subscription_version (organization_id, version)
       VALUES (new.organization_id, lower(hex(randomblob(16))))
       ON CONFLICT (organization_id) DO UPDATE SET version = excluded.version; END`,
  `CREATE TRIGGER webhook_subscription_version_ad AFTER DELETE ON webhook_subscription BEGIN
     UPDATE webhook_subscription_version SET version = lower(hex(randomblob(16)))
       WHERE organization_id = old.organization_id; END`,
  `CREATE TRIGGER webhook_subscription_version_au AFTER UPDATE OF events, status, organization_id
     ON webhook_subscription BEGIN
     UPDATE webhook_subscription_version SET version = lower(hex(randomblob(16)))
       WHERE organization_id IN (old.organization_id, new.organization_id); END`,
]

const POSTGRES_TRIGGERS = [
  `CREATE FUNCTION leadline_webhook_subscription_version_bump() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF TG_OP <> 'INSERT' THEN
       UPDATE webhook_subscription_version SET version = replace(gen_random_uuid()::text, '-', '')
         WHERE organization_id = OLD.organization_id;
     END IF;
     IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.organization_id IS DISTINCT FROM OLD.organization_id) THEN
       INSERT INTO webhook_subscription_version (organization_id, version)
         VALUES (NEW.organization_id, replace(gen_random_uuid()::text, '-', ''))
         ON CONFLICT (organization_id) DO UPDATE SET version = EXCLUDED.version;
     END IF;
     RETURN NULL;
   END $$`,
  `CREATE TRIGGER webhook_subscription_version_aid AFTER INSERT OR DELETE ON webhook_subscription
     FOR EACH ROW EXECUTE FUNCTION leadline_webhook_subscription_version_bump()`,
  `CREATE TRIGGER webhook_subscription_version_au AFTER UPDATE OF events, status, organization_id
     ON webhook_subscription FOR EACH ROW EXECUTE FUNCTION leadline_webhook_subscription_version_bump()`,
]

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('webhook_subscription')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('organization_id', 'varchar(64)', (c) => c.notNull().references('organization.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('verify_ssl', 'integer', (c) => c.notNull())
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('status_reason', 'text')
    .addColumn('signature_key', 'varchar(64)', (c) => c.notNull())
    .addColumn('failing_since', 'varchar(32)')
    .addColumn('created_by', 'varchar(64)')
    .addColumn('updated_by', 'varchar(64)')
    .addColumn('date_created', 'varchar(32)', (c) => c.notNull())
    .addColumn('date_updated', 'varchar(32)', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('webhook_subscription_org_idx')
    .on('webhook_subscription')
    .columns(['organization_id', 'date_created'])
    .execute()
  await db.schema
    .createTable('webhook_subscription_version')
    .addColumn('organization_id', 'varchar(64)', (c) =>
      c.primaryKey().references('organization.id').onDelete('cascade'),
    )
    .addColumn('version', 'varchar(40)', (c) => c.notNull())
    .execute()
  for (const statement of isSqlite(db) ? SQLITE_TRIGGERS : POSTGRES_TRIGGERS) await sql.raw(statement).execute(db)
}
