import type { Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// Files received with emails (decision 0032), served by `GET /email_attachment/{id}/`:
// - `email_attachment`: one file of one Email activity (deleted with it). `content` is the file's bytes in base64 text,
//   the same column type on both databases; `size` is the decoded size in bytes. `content_id` is the part's
//   Content-ID (without angle brackets), for images an HTML body shows inline, else null.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('email_attachment')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('organization_id', 'varchar(64)', (c) => c.notNull().references('organization.id').onDelete('cascade'))
    .addColumn('activity_id', 'varchar(64)', (c) => c.notNull().references('activity.id').onDelete('cascade'))
    .addColumn('filename', 'text', (c) => c.notNull())
    .addColumn('content_type', 'varchar(255)', (c) => c.notNull())
    .addColumn('content_id', 'varchar(998)')
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('date_created', 'varchar(32)', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('email_attachment_activity_idx')
    .on('email_attachment')
    .columns(['organization_id', 'activity_id'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('email_attachment').execute()
}
