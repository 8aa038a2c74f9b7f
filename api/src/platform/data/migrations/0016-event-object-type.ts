import { SqliteAdapter, type Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// Event object types such as `activity.opportunity_status_change` run past 32 characters: widen the column (SQLite
// does not enforce a varchar's length, so only Postgres needs it).

export async function up(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return
  await db.schema
    .alterTable('event')
    .alterColumn('object_type', (c) => c.setDataType('varchar(64)'))
    .execute()
}
