import { sql, type Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// A row deleted from a table others point at by a foreign key makes the database find the rows pointing at it, by
// their key column: with no index that starts with that column, by reading the whole table (SQLite and PostgreSQL
// alike). Two keys had none, and their parents are deleted every day: an email thread's lead (each lead deleted,
// merged away, bulk-deleted or taken away by an import's undo) and an email attachment's activity (each activity
// deleted, and those of each lead deleted). Their indexes began with the organization. With 200,000 threads and
// 200,000 attachments in a SQLite file, a lead of five activities took 387 ms to delete, against 3.4 ms with these.
// The attachments' index leaves out those no email has taken yet (no activity): the purge of those reads its own
// index (migration 0024), and a key lookup (`activity_id = ?`) implies the condition on both databases.

const INDEXES = ['email_thread_lead_key_idx', 'email_attachment_activity_key_idx'] as const

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('email_thread_lead_key_idx').on('email_thread').column('lead_id').execute()
  await db.schema
    .createIndex('email_attachment_activity_key_idx')
    .on('email_attachment')
    .column('activity_id')
    .where(sql.ref('activity_id'), 'is not', null)
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const name of INDEXES) await db.schema.dropIndex(name).execute()
}
