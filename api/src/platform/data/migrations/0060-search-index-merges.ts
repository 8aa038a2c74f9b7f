import { sql, SqliteAdapter, type Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// SQLite's trigram index (FTS5, migration 0051) writes what each transaction adds to it as a segment of its own, and
// merges segments of one size into the next once `automerge` of them are there: 4 by default, so that every entry is
// written again about once per fourfold growth of the index. At 16 it is written again about half as often, and a
// search still reads at most 16 segments of a size (FTS5's `crisismerge`, unchanged), as it could before. The
// setting is kept in the index's own config table, for every connection. Decision 0097. PostgreSQL: nothing (its
// trigram indexes are GIN's, which merges its pending entries in its own way).

/** FTS5's default, which `down` puts back. */
const DEFAULT_AUTOMERGE = 4
const AUTOMERGE = 16

function isSqlite(db: Kysely<unknown>): boolean {
  return db.getExecutor().adapter instanceof SqliteAdapter
}

async function setAutomerge(db: Kysely<unknown>, value: number): Promise<void> {
  await sql
    .raw(`INSERT INTO lead_search_fts (lead_search_fts, rank) VALUES ('automerge', ${String(value)})`)
    .execute(db)
}

export async function up(db: Kysely<unknown>): Promise<void> {
  if (isSqlite(db)) await setAutomerge(db, AUTOMERGE)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (isSqlite(db)) await setAutomerge(db, DEFAULT_AUTOMERGE)
}
