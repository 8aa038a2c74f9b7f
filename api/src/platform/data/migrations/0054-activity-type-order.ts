import { sql, SqliteAdapter, type Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// A list of one activity type (`/activity/note/`, `_type=TaskCompleted`) is newest first, ties broken by id. The
// type index (migration 0002) held the organization, the type and the time but not the id, so it could not give
// that order: SQLite walked the organization's activities by time instead (activity_org_created_idx) and read each
// row to test its type, stopping only at the page's end. For a rare type that is nearly every activity of the
// organization: the 12 completed tasks of 100,000 demo leads took 16 s (476,011 rows read), the newest notes 2.3 s
// from a cold cache. The index now ends with the id, so that a type's page is the first entries of one range of it,
// and a list of several types takes each type's newest from it. What used it before uses a prefix of it, as before.
//
// SQLite: the index is then analyzed, whole (decision 0087), so that the next close has no missing statistics to
// take from a sample.

const INDEX = 'activity_org_idx'

function isSqlite(db: Kysely<unknown>): boolean {
  return db.getExecutor().adapter instanceof SqliteAdapter
}

async function makeIndex(db: Kysely<unknown>, columns: string[]): Promise<void> {
  await db.schema.dropIndex(INDEX).execute()
  await db.schema.createIndex(INDEX).on('activity').columns(columns).execute()
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await makeIndex(db, ['organization_id', 'type', 'date_created', 'id'])
  if (!isSqlite(db)) return
  // A database never analyzed has no statistics table, and nothing to keep whole.
  const { rows } = await sql`select 1 from sqlite_master where name = 'sqlite_stat1'`.execute(db)
  if (rows.length === 0) return
  await sql`pragma analysis_limit = 0`.execute(db)
  await sql`analyze ${sql.table(INDEX)}`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await makeIndex(db, ['organization_id', 'type', 'date_created'])
}
