import { sql, SqliteAdapter, type Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// Postgres only: the rate-limit counters several api processes share, one row per API key (or address), endpoint
// group and method. Each process leases points from its row in chunks (platform/http/rate-limit.ts). A row is reused when
// its key's next window opens; rows idle for a window are deleted. Unlogged: counters need no crash safety (a crash
// empties the table, and every key starts a fresh window), and their writes skip the write-ahead log. A SQLite
// deployment is one process and counts in memory; it gets no table.

function isSqlite(db: Kysely<unknown>): boolean {
  return db.getExecutor().adapter instanceof SqliteAdapter
}

export async function up(db: Kysely<unknown>): Promise<void> {
  if (isSqlite(db)) return
  await sql`CREATE UNLOGGED TABLE rate_limit_lease (
    key text PRIMARY KEY,
    consumed integer NOT NULL,
    granted integer NOT NULL,
    expires_at bigint NOT NULL
  )`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (isSqlite(db)) return
  await sql`DROP TABLE rate_limit_lease`.execute(db)
}
