import type { Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// Emails (`/activity/email/`, `/activity/emailthread/`):
// - `email_thread`: a conversation on one lead. Its id is an activity id (`acti_…`, as Close's EmailThread), but it
//   is not an activity row: the thread's fields are read from its emails. `subject_key` is the latest subject without
//   its `Re:`/`Fwd:` prefixes, case-folded, for joining a reply that carries no references; `subject` is that subject
//   as written (`latest_normalized_subject`).
// - `activity.thread_id`: the thread of an Email activity (null for the other types).
// - `email_message`: each Message-ID an email was sent or received with, so a reply's `In-Reply-To` / `References`
//   find its thread. One id names one email per organization.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('email_thread')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('organization_id', 'varchar(64)', (c) => c.notNull().references('organization.id').onDelete('cascade'))
    .addColumn('lead_id', 'varchar(64)', (c) => c.notNull().references('lead.id').onDelete('cascade'))
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('subject_key', 'text', (c) => c.notNull())
    .addColumn('date_created', 'varchar(32)', (c) => c.notNull())
    .addColumn('date_updated', 'varchar(32)', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('email_thread_subject_idx')
    .on('email_thread')
    .columns(['organization_id', 'lead_id', 'subject_key'])
    .execute()

  await db.schema.alterTable('activity').addColumn('thread_id', 'varchar(64)').execute()
  await db.schema.createIndex('activity_thread_idx').on('activity').columns(['organization_id', 'thread_id']).execute()

  await db.schema
    .createTable('email_message')
    .addColumn('organization_id', 'varchar(64)', (c) => c.notNull().references('organization.id').onDelete('cascade'))
    .addColumn('message_id', 'varchar(998)', (c) => c.notNull())
    .addColumn('activity_id', 'varchar(64)', (c) => c.notNull().references('activity.id').onDelete('cascade'))
    .addColumn('thread_id', 'varchar(64)', (c) => c.notNull())
    .addPrimaryKeyConstraint('email_message_pk', ['organization_id', 'message_id'])
    .execute()
  await db.schema.createIndex('email_message_activity_idx').on('email_message').column('activity_id').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('email_message').execute()
  await db.schema.dropIndex('activity_thread_idx').execute()
  await db.schema.alterTable('activity').dropColumn('thread_id').execute()
  await db.schema.dropTable('email_thread').execute()
}
