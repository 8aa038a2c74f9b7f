import { sql, SqliteAdapter, type Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// Deleted leads' tombstones (migration 0045) are pruned once old (decision 0061); each organization keeps its newest,
// so that the SQLite clock, the largest value among its leads and tombstones, never goes back. What was pruned is
// recorded per organization as a watermark, the largest value (SQLite) or transaction (Postgres) pruned: a reader
// whose position is older than that may have missed a deletion, and builds its index anew instead of catching up.

function isSqlite(db: Kysely<unknown>): boolean {
  return db.getExecutor().adapter instanceof SqliteAdapter
}

export async function up(db: Kysely<unknown>): Promise<void> {
  const watermark = isSqlite(db) ? sql`change_seq integer NOT NULL` : sql`change_xid xid8 NOT NULL`
  await sql`CREATE TABLE lead_tombstone_pruned (
    organization_id varchar(64) PRIMARY KEY,
    ${watermark})`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE lead_tombstone_pruned`.execute(db)
}
