import { sql, SqliteAdapter, type Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// The board asks for each status's opportunities newest first, 20 at a time (`status_id=…`). With one status named,
// SQLite read every opportunity of the status through migration 0009's `(organization_id, status_id)` index and
// sorted them all for the page (20–25 ms a column at 100,000 opportunities, six columns a board), where walking an
// index in the page's order finds it in 21 rows. That index now ends with the list's default order, the creation
// date and the id, and still serves everything it served (a status's opportunities, counted or checked). Postgres's
// ids are ordered byte-wise (`collate "C"`), as its lists compare them (decision 0088).
//
// SQLite: the index is then analyzed, whole (decision 0087).

const INDEX = 'opportunity_org_status_idx'

function isSqlite(db: Kysely<unknown>): boolean {
  return db.getExecutor().adapter instanceof SqliteAdapter
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex(INDEX).execute()
  const id = isSqlite(db) ? sql.ref('id') : sql`${sql.ref('id')} collate "C"`
  await sql`create index ${sql.id(INDEX)} on ${sql.table('opportunity')}
    (${sql.ref('organization_id')}, ${sql.ref('status_id')}, ${sql.ref('date_created')}, ${id})`.execute(db)
  if (!isSqlite(db)) return
  // A database never analyzed has no statistics table, and nothing to keep whole.
  const { rows } = await sql`select 1 from sqlite_master where name = 'sqlite_stat1'`.execute(db)
  if (rows.length === 0) return
  await sql`pragma analysis_limit = 0`.execute(db)
  await sql`analyze ${sql.table(INDEX)}`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex(INDEX).execute()
  await db.schema.createIndex(INDEX).on('opportunity').columns(['organization_id', 'status_id']).execute()
}
