import { sql, SqliteAdapter, type Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// The opportunity list sorts by value, confidence, the dates and more (`_order_by`), ties by id, with no value last
// either way. Only its default order (newest first) had an index that gives it: every other order read all of the
// organization's opportunities and sorted them, about 2 s a page at a million. Value, confidence, the last update and
// the date won now have one each, starting with the organization and ending with the id; the date won's replaces
// the index of migration 0009, a prefix of it, which its other uses (a period's range) still have.
//
// SQLite walks an index either way and puts nulls last in either direction from the same index (it reads the
// non-null range, then the null one). Postgres keeps nulls at one end of an index, and a list puts them last either
// way, so each of the two columns that may be null has two indexes there, one a direction (`desc nulls last` and
// the default, `asc nulls last`). Postgres's ids are ordered byte-wise (`collate "C"`), so its indexes' ids are too,
// and its index of the default order (migration 0009's, by creation) is made again with them: its ids in the
// database's collation left Postgres sorting each page's ties.
//
// SQLite: the indexes are then analyzed, whole (decision 0087).

/** Each index, its column, and whether that column may be null. */
const INDEXES = [
  { name: 'opportunity_org_value_idx', column: 'value', nullable: true },
  { name: 'opportunity_org_confidence_idx', column: 'confidence', nullable: false },
  { name: 'opportunity_org_updated_idx', column: 'date_updated', nullable: false },
  { name: 'opportunity_org_won_idx', column: 'date_won', nullable: true },
] as const
/** Postgres: the ascending indexes of the columns that may be null (the names above give the descending ones). */
const ASCENDING = [
  { name: 'opportunity_org_value_asc_idx', column: 'value' },
  { name: 'opportunity_org_won_asc_idx', column: 'date_won' },
] as const

/** The index migration 0009 made, which the date won's replaces. */
const OLD_WON_INDEX = 'opportunity_org_won_idx'
/** Migration 0009's index of the default order, made again on Postgres with its ids byte-wise. */
const CREATED_INDEX = 'opportunity_org_created_idx'
const CREATED_COLUMNS = ['organization_id', 'date_created', 'id']

function isSqlite(db: Kysely<unknown>): boolean {
  return db.getExecutor().adapter instanceof SqliteAdapter
}

/** Makes index `name` of the organization, `column` and the id, as the comment above says for each database. */
async function makeIndex(db: Kysely<unknown>, name: string, column: string, nullable: boolean): Promise<void> {
  const [organization, ref, id] = [sql.ref('organization_id'), sql.ref(column), sql.ref('id')]
  const columns = isSqlite(db)
    ? sql`${organization}, ${ref}, ${id}`
    : nullable
      ? sql`${organization}, ${ref} desc nulls last, ${id} collate "C" desc`
      : sql`${organization}, ${ref}, ${id} collate "C"`
  await sql`create index ${sql.id(name)} on ${sql.table('opportunity')} (${columns})`.execute(db)
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex(OLD_WON_INDEX).execute()
  for (const { name, column, nullable } of INDEXES) await makeIndex(db, name, column, nullable)
  if (!isSqlite(db)) {
    for (const { name, column } of ASCENDING) await makeIndex(db, name, column, false)
    await db.schema.dropIndex(CREATED_INDEX).execute()
    await makeIndex(db, CREATED_INDEX, 'date_created', false)
    return
  }
  // A database never analyzed has no statistics table, and nothing to keep whole.
  const { rows } = await sql`select 1 from sqlite_master where name = 'sqlite_stat1'`.execute(db)
  if (rows.length === 0) return
  await sql`pragma analysis_limit = 0`.execute(db)
  for (const { name } of INDEXES) await sql`analyze ${sql.table(name)}`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const { name } of INDEXES) await db.schema.dropIndex(name).execute()
  await db.schema.createIndex(OLD_WON_INDEX).on('opportunity').columns(['organization_id', 'date_won']).execute()
  if (isSqlite(db)) return
  for (const { name } of ASCENDING) await db.schema.dropIndex(name).execute()
  await db.schema.dropIndex(CREATED_INDEX).execute()
  await db.schema.createIndex(CREATED_INDEX).on('opportunity').columns(CREATED_COLUMNS).execute()
}
