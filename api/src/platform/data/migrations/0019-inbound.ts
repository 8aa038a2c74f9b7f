import type { Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// The signed inbound endpoint (`/inbound/sms/`, `/inbound/call/`, decision 0027):
// - `inbound_secret`: each organization's 32-byte signing secret (hex), made on first use and replaced on rotation.
// - `inbound_receipt`: the answer given to each Standard Webhooks `webhook-id`, so a repeated delivery is answered
//   the same and stores nothing (JSON `{activity_id, lead_id, task_id}`).
// - `inbound_ref`: the telephony side's id of each message (`kind` `sms`) or call (`call`) and the activity it made;
//   a call's row also says whether a task was made for it, whether its number matched no contact when it arrived,
//   and, while it is in progress, the user on it (`/user/availability/`). `activity_id` is null only inside the
//   transaction that claims the id. Booleans are 0/1 integers.
// - `contact_phone (organization_id, phone)`: finding the contact a call or text comes from.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('inbound_secret')
    .addColumn('organization_id', 'varchar(64)', (c) =>
      c.primaryKey().references('organization.id').onDelete('cascade'),
    )
    .addColumn('secret', 'varchar(64)', (c) => c.notNull())
    .addColumn('date_created', 'varchar(32)', (c) => c.notNull())
    .execute()

  await db.schema
    .createTable('inbound_receipt')
    .addColumn('organization_id', 'varchar(64)', (c) => c.notNull().references('organization.id').onDelete('cascade'))
    .addColumn('webhook_id', 'varchar(255)', (c) => c.notNull())
    .addColumn('answer', 'text', (c) => c.notNull())
    .addColumn('date_created', 'varchar(32)', (c) => c.notNull())
    .addPrimaryKeyConstraint('inbound_receipt_pk', ['organization_id', 'webhook_id'])
    .execute()
  await db.schema.createIndex('inbound_receipt_date_idx').on('inbound_receipt').column('date_created').execute()

  await db.schema
    .createTable('inbound_ref')
    .addColumn('organization_id', 'varchar(64)', (c) => c.notNull().references('organization.id').onDelete('cascade'))
    .addColumn('kind', 'varchar(8)', (c) => c.notNull())
    .addColumn('provider_id', 'varchar(255)', (c) => c.notNull())
    .addColumn('activity_id', 'varchar(64)', (c) => c.references('activity.id').onDelete('cascade'))
    .addColumn('task_id', 'varchar(64)')
    .addColumn('new_lead', 'integer', (c) => c.notNull())
    .addColumn('in_progress', 'integer', (c) => c.notNull())
    .addColumn('user_id', 'varchar(64)')
    .addColumn('date_created', 'varchar(32)', (c) => c.notNull())
    .addColumn('date_updated', 'varchar(32)', (c) => c.notNull())
    .addPrimaryKeyConstraint('inbound_ref_pk', ['organization_id', 'kind', 'provider_id'])
    .execute()
  await db.schema
    .createIndex('inbound_ref_active_idx')
    .on('inbound_ref')
    .columns(['organization_id', 'in_progress', 'date_updated'])
    .execute()
  await db.schema.createIndex('inbound_ref_activity_idx').on('inbound_ref').column('activity_id').execute()

  await db.schema
    .createIndex('contact_phone_number_idx')
    .on('contact_phone')
    .columns(['organization_id', 'phone'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('contact_phone_number_idx').execute()
  for (const table of ['inbound_ref', 'inbound_receipt', 'inbound_secret']) await db.schema.dropTable(table).execute()
}
