import { SqliteAdapter, type Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// The audit log (decision 0073) is kept on the event log: an audit entry is an event of `object_type` `audit`.
// - `event.client_address`: the address the request came from, as the api's trust rules read it (null for events
//   that are not audit entries), a column so that the audit log can be filtered by it.
// - `event.action` was 16 characters on Postgres; audit actions such as `member_deactivated` are longer (SQLite does
//   not enforce a varchar's length).

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('event').addColumn('client_address', 'varchar(64)').execute()
  if (db.getExecutor().adapter instanceof SqliteAdapter) return
  await db.schema
    .alterTable('event')
    .alterColumn('action', (c) => c.setDataType('varchar(32)'))
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('event').dropColumn('client_address').execute()
}
