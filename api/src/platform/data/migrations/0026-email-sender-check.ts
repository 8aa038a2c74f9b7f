import type { Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// What the receiver found of a received email's sender (decision 0039): `sender_check` is `pass`, `fail` or `none`
// (SPF, DKIM and DMARC checked), with `sender_check_reason` saying why; both null for every other activity, and for
// mail received before the check existed. Columns of the activity, like `thread_id`, so that no request can write
// them and every view reads them with the row.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('activity').addColumn('sender_check', 'varchar(8)').execute()
  await db.schema.alterTable('activity').addColumn('sender_check_reason', 'text').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('activity').dropColumn('sender_check_reason').execute()
  await db.schema.alterTable('activity').dropColumn('sender_check').execute()
}
