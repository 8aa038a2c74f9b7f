import { sql, SqliteAdapter, type Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// `/activity/?contact_id=…` and `/activity/?task_id=…` had no index that named the contact or the task: SQLite walked
// the organization's activities newest first and read each row to test it, stopping only at the page's end, which for
// a contact of a few activities, or a task's one completion, is every activity of the organization (2.7 s and 1.9 s
// at 100,000 demo leads; a contact's 78 s at a million, from a cold cache). Each now has an index of its own that
// starts with the organization. Only the activities that name a contact or a task are in them (a quarter and a few
// of the demo's): a query's `contact_id = ?` implies the condition on both databases. Both end with the time and the
// id, the list's order, so that a contact's or a task's page is one range of its index, which both planners prefer
// even without statistics.
//
// SQLite: both are then analyzed, whole (decision 0087).

/** Each index, and the column it names first after the organization. */
const INDEXES = [
  { name: 'activity_org_contact_idx', column: 'contact_id' },
  { name: 'activity_org_task_idx', column: 'task_id' },
] as const

function isSqlite(db: Kysely<unknown>): boolean {
  return db.getExecutor().adapter instanceof SqliteAdapter
}

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const { name, column } of INDEXES) {
    await db.schema
      .createIndex(name)
      .on('activity')
      .columns(['organization_id', column, 'date_created', 'id'])
      .where(sql.ref(column), 'is not', null)
      .execute()
  }
  if (!isSqlite(db)) return
  // A database never analyzed has no statistics table, and nothing to keep whole.
  const { rows } = await sql`select 1 from sqlite_master where name = 'sqlite_stat1'`.execute(db)
  if (rows.length === 0) return
  await sql`pragma analysis_limit = 0`.execute(db)
  for (const { name } of INDEXES) await sql`analyze ${sql.table(name)}`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const { name } of INDEXES) await db.schema.dropIndex(name).execute()
}
