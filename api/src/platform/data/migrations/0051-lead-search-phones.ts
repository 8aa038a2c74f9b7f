import { sql, SqliteAdapter, type Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// `phone:` searches through the trigram index, like the other text fields (decision 0080): each lead's search row
// also holds its contacts' stored phone numbers, one per line (by contact id, then position, as the app writes the
// row), in a column `phone`. The numbers are E.164 text, which folding leaves as it is; `lower` is folding for ASCII.
// The column is filled here from `contact_phone`, so no document has to be rebuilt.
//
// SQLite: FTS5 cannot add a column to an index, so the trigram index is made again with `phone` as its last column
// and rebuilt from the search rows once (its triggers set aside while the rows are filled). Postgres: the column is
// filled in one statement, then a pg_trgm index is made on it and the table's statistics are read again.

const COLUMNS = ['body', 'name', 'description', 'url', 'contact_name', 'city', 'state', 'zipcode', 'address', 'custom']
const TRIGGERS = ['lead_search_ai', 'lead_search_ad', 'lead_search_au']

function isSqlite(db: Kysely<unknown>): boolean {
  return db.getExecutor().adapter instanceof SqliteAdapter
}

/** The trigram index over `columns` and the triggers that keep it in step with `lead_search`, filled from it. */
async function createSqliteIndex(db: Kysely<unknown>, columns: string[]): Promise<void> {
  const list = columns.join(', ')
  await sql
    .raw(
      `CREATE VIRTUAL TABLE lead_search_fts USING fts5(${list}, content='lead_search', content_rowid='rowid', tokenize='trigram case_sensitive 1')`,
    )
    .execute(db)
  await sql`INSERT INTO lead_search_fts (lead_search_fts) VALUES ('rebuild')`.execute(db)
  const values = (row: 'new' | 'old') => columns.map((c) => `${row}.${c}`).join(', ')
  await sql
    .raw(
      `CREATE TRIGGER lead_search_ai AFTER INSERT ON lead_search BEGIN
      INSERT INTO lead_search_fts(rowid, ${list}) VALUES (new.rowid, ${values('new')}); END`,
    )
    .execute(db)
  await sql
    .raw(
      `CREATE TRIGGER lead_search_ad AFTER DELETE ON lead_search BEGIN
      INSERT INTO lead_search_fts(lead_search_fts, rowid, ${list}) VALUES ('delete', old.rowid, ${values('old')}); END`,
    )
    .execute(db)
  await sql
    .raw(
      `CREATE TRIGGER lead_search_au AFTER UPDATE OF ${list} ON lead_search BEGIN
      INSERT INTO lead_search_fts(lead_search_fts, rowid, ${list}) VALUES ('delete', old.rowid, ${values('old')});
      INSERT INTO lead_search_fts(rowid, ${list}) VALUES (new.rowid, ${values('new')}); END`,
    )
    .execute(db)
}

async function dropSqliteIndex(db: Kysely<unknown>): Promise<void> {
  for (const trigger of TRIGGERS) await sql.raw(`DROP TRIGGER IF EXISTS ${trigger}`).execute(db)
  await sql`DROP TABLE IF EXISTS lead_search_fts`.execute(db)
}

export async function up(db: Kysely<unknown>): Promise<void> {
  const sqlite = isSqlite(db)
  if (sqlite) await dropSqliteIndex(db)
  await db.schema
    .alterTable('lead_search')
    .addColumn('phone', 'text', (c) => c.notNull().defaultTo(''))
    .execute()
  if (sqlite) {
    await sql`UPDATE lead_search SET phone = (
        SELECT group_concat(lower(p.phone), char(10) ORDER BY p.contact_id, p.position) FROM contact_phone p
        WHERE p.lead_id = lead_search.lead_id)
      WHERE EXISTS (SELECT 1 FROM contact_phone p WHERE p.lead_id = lead_search.lead_id)`.execute(db)
    await createSqliteIndex(db, [...COLUMNS, 'phone'])
    return
  }
  await sql`UPDATE lead_search s SET phone = p.phones
    FROM (SELECT lead_id, string_agg(lower(phone), E'\n' ORDER BY contact_id COLLATE "C", position) AS phones
      FROM contact_phone GROUP BY lead_id) p
    WHERE p.lead_id = s.lead_id`.execute(db)
  await sql`CREATE INDEX lead_search_phone_trgm ON lead_search USING gin (phone gin_trgm_ops)`.execute(db)
  // Every row was written again: without fresh statistics for the new column the planner guessed a `phone:` lookup
  // 400 times too large and compiled it (JIT), 100 ms for a number that matched nothing among a million leads.
  await sql`ANALYZE lead_search`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (isSqlite(db)) {
    await dropSqliteIndex(db)
    await db.schema.alterTable('lead_search').dropColumn('phone').execute()
    await createSqliteIndex(db, COLUMNS)
    return
  }
  await sql`DROP INDEX lead_search_phone_trgm`.execute(db)
  await db.schema.alterTable('lead_search').dropColumn('phone').execute()
}
