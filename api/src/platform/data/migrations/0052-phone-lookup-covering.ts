import { SqliteAdapter, type Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// SQLite only. The likely duplicates' clusters (decision 0058) count, for each number an organization's contacts
// share, the leads that hold it. Migration 0043 gave the emails' lookup index the lead, so that count comes from the
// index; the phones' was left without it, and each of the organization's numbers was read from the table to learn its
// lead: at a million leads the phones' part of `GET /lead/duplicates/` took 7.7 s (the emails' 0.5 s), and on SQLite,
// whose driver answers on the api's one thread, every other request of the process waited that long. The phones'
// lookup index there now ends with the lead, as the emails' does; its first two columns are as before, so the lookups
// of a number are served as they were. Postgres keeps the index as it is: its query does not hold the api's thread,
// and with the lead in the index its planner moved the lookups of an incoming number off their own index (0043).

const COLUMNS = ['organization_id', 'value_lower']

function isSqlite(db: Kysely<unknown>): boolean {
  return db.getExecutor().adapter instanceof SqliteAdapter
}

async function lookupIndex(db: Kysely<unknown>, columns: string[]): Promise<void> {
  if (!isSqlite(db)) return
  await db.schema.dropIndex('contact_phone_lookup_idx').execute()
  await db.schema.createIndex('contact_phone_lookup_idx').on('contact_phone').columns(columns).execute()
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await lookupIndex(db, [...COLUMNS, 'lead_id'])
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await lookupIndex(db, COLUMNS)
}
