import type { Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// Webhook subscriptions (`/webhook/`): where an organization's events are POSTed. `events` is the JSON list of
// `{object_type, action, extra_filter}` the subscription asks for; `signature_key` (64 hex characters) signs every
// request and is shown only when the subscription is made. `status` is `active` or `paused`; `status_reason` says
// why a subscription was paused (by an admin, or after 72 hours of failed deliveries since `failing_since`).
// Booleans are 0/1 integers.

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
}
