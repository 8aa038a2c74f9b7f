import { sql, SqliteAdapter, type Kysely } from 'kysely'

// Frozen: this migration imports no app code and must never change once released.
// A lead's last activity is its newest call, email, note or SMS (the leads list's column, `sort:last_activity` and
// the lead summaries). It was read from activity_org_lead_created_idx, whose entries name no type: each of a lead's
// activities was read from the table to learn its type. At a million leads (4.8 million activities) the lead index's
// first sort by last activity read them all and took 10.4 s, every search of the organization waiting. This index
// holds those four kinds only, with the lead, the time and the type (which SQLite tests again: with it the index
// alone answers), so that a lead's last activity is one step into it and every lead's a read of it alone. Its
// condition is the queries' list of types, which they write as literals: a partial index serves a query whose
// condition implies its own, which SQLite cannot tell of bound parameters. On Postgres it is written in the form
// Postgres reads it back in (`pg_get_indexdef`), so that the demo seed, which makes indexes again from that text,
// leaves it as it was; the queries' `type in (…)` implies it there too.
//
// SQLite: then `activity`, and every table whose statistics look taken from a sample, is analyzed again, whole
// (decision 0087). Until now a connection's close ran `pragma optimize` with its default mask, which analyzes a table
// whose statistics are missing or stale from a sample of about 2,000 rows an index, and so took an organization of a
// million leads for one of 2,000: after migration 0052 made the phones' lookup index anew, the lead index's build on
// the million-lead bench file read every phone of the organization once per range of leads (15 s → 68 s). A new
// index, unanalyzed, would have `activity` sampled so at the next close. A sample's mark: an index that starts with
// the organization, over more rows than a sample reads, gives an organization no more rows than a sample holds (a
// table of many small organizations shows it too, and is merely analyzed again).

const INDEX = 'activity_last_idx'
/** More rows than `pragma optimize`'s sample reads of an index (about 2,000). */
const SAMPLE_REACH = 2100

function isSqlite(db: Kysely<unknown>): boolean {
  return db.getExecutor().adapter instanceof SqliteAdapter
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex(INDEX)
    .on('activity')
    .columns(['organization_id', 'lead_id', 'date_created', 'type'])
    .where(
      isSqlite(db)
        ? sql<boolean>`type in ('Call', 'Email', 'Note', 'SMS')`
        : sql<boolean>`type::text = any (array['Call', 'Email', 'Note', 'SMS']::text[])`,
    )
    .execute()
  if (!isSqlite(db)) return
  await sql`pragma analysis_limit = 0`.execute(db)
  // A database never analyzed has no statistics table.
  const { rows: analyzed } = await sql`select 1 from sqlite_master where name = 'sqlite_stat1'`.execute(db)
  if (analyzed.length === 0) return
  const { rows } = await sql<{ tbl: string }>`select distinct s.tbl from sqlite_stat1 s
    where s.idx is not null
      and (select i.name from pragma_index_info(s.idx) i where i.seqno = 0) = 'organization_id'
      and cast(s.stat as integer) > ${SAMPLE_REACH}
      and cast(substr(s.stat, instr(s.stat, ' ') + 1) as integer) <= ${SAMPLE_REACH}`.execute(db)
  for (const table of new Set(['activity', ...rows.map((row) => row.tbl)])) {
    await sql`analyze ${sql.table(table)}`.execute(db)
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex(INDEX).execute()
}
