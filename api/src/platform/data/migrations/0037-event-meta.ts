import { sql, type Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// - `event.meta`: Close's `meta` of an event as JSON (the API request that caused it, a lead merge's two leads).
//   Events recorded before it have none to tell: `{}`.
// - `deleted` events recorded before it held the object in `data` and `{}` in `previous_data`; from now on, as
//   Close's, `data` is null and `previous_data` the object: the stored ones are turned so, and the log reads alike.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('event')
    .addColumn('meta', 'text', (c) => c.notNull().defaultTo('{}'))
    .execute()
  await sql`update event set previous_data = data, data = 'null' where action = 'deleted' and data <> 'null'`.execute(
    db,
  )
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`update event set data = previous_data, previous_data = '{}' where action = 'deleted' and data = 'null'`.execute(
    db,
  )
  await db.schema.alterTable('event').dropColumn('meta').execute()
}
