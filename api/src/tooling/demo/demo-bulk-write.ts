import { availableParallelism, totalmem } from 'node:os'
import { sql, type RawBuilder } from 'kysely'
import type { Db } from '../../platform/data/database.js'
import { LAST_ACTIVITY_TYPE_LIST } from '../../crm/leads/lead-summary-repo.js'
import { rebuildOpportunityRollup } from '../../crm/opportunities/opportunity-list.js'
import { isSqlite, quote } from '../../platform/data/bulk-insert.js'

// Bulk loading for the demo seeder (its inserts are platform/data/bulk-insert.ts's): a SQLite page cache sized to
// the load, and the tables' secondary indexes built once at the end instead of row by row.

/** The page cache a bulk load asks SQLite for, in KiB (a negative cache_size is KiB, a positive one pages). */
const MIN_CACHE_KIB = 65_536
/** What a demo lead takes in the database (15 KiB with its rows, index entries and search row), with room to spare. */
const CACHE_KIB_PER_LEAD = 20
/** Memory Postgres may use to sort the entries of one index it builds. */
const POSTGRES_INDEX_BUILD_MEMORY = '256MB'

/** A pragma's value on this connection, when it is a number (the first column of its one row). */
async function pragmaNumber(db: Db, name: string): Promise<number | undefined> {
  const row = (await sql<Record<string, unknown>>`pragma ${sql.raw(name)}`.execute(db)).rows[0]
  const value = row === undefined ? undefined : Object.values(row)[0]
  return typeof value === 'number' ? value : undefined
}

/**
 * Runs a bulk load of `leads` leads, in the caller's transaction, with a SQLite page cache large enough for what it
 * writes (within an eighth of the machine's memory), put back after, and foreign keys checked when the transaction
 * commits rather than at every statement: a statement that might have to undo itself alone costs SQLite a copy of
 * every page it changes. A violation still fails the commit. That setting lasts until the transaction ends (SQLite
 * ends it there): turning it off sooner would forget the violations counted so far. Postgres needs nothing here:
 * its buffer cache is the server's.
 */
export async function withBulkLoadSettings<T>(db: Db, leads: number, load: () => Promise<T>): Promise<T> {
  if (!isSqlite(db)) return load()
  const cacheSize = await pragmaNumber(db, 'cache_size')
  const wanted = Math.min(Math.max(MIN_CACHE_KIB, leads * CACHE_KIB_PER_LEAD), totalmem() / 8 / 1024)
  await sql.raw(`pragma cache_size = -${String(Math.round(wanted))}`).execute(db)
  await sql`pragma defer_foreign_keys = on`.execute(db)
  try {
    return await load()
  } finally {
    if (cacheSize !== undefined) await sql.raw(`pragma cache_size = ${String(Math.trunc(cacheSize))}`).execute(db)
  }
}

/**
 * SQLite: runs `write` with a rollback journal rather than the write-ahead log, when this connection is the file's
 * only one, and puts the log back after (whether `write` succeeded or not). In WAL mode a commit writes every page
 * into the log and a checkpoint copies it into the file again: two writes of the 2 GB a seed of 100,000 leads makes,
 * 25 s of its 77. A rollback journal keeps a copy only of the pages that existed before the transaction, and a seed
 * mostly adds pages past the file's end, so the commit writes each page once, in place (9 s). Leaving WAL takes the
 * file to itself: when another connection holds it (an api serving, this process's own read connection), SQLite
 * refuses at once and the write runs in WAL as before. While it runs, another process cannot open the file: its
 * switch to WAL waits out its busy timeout and fails. Postgres: `write` as is.
 */
export async function withRollbackJournal<T>(db: Db, write: () => Promise<T>): Promise<T> {
  if (!isSqlite(db) || (await journalMode(db)) !== 'wal') return write()
  const timeout = (await pragmaNumber(db, 'busy_timeout')) ?? 0
  await sql`pragma busy_timeout = 0`.execute(db)
  let left: boolean
  try {
    left = (await setJournalMode(db, 'delete').catch(() => 'wal')) === 'delete'
  } finally {
    await sql.raw(`pragma busy_timeout = ${String(Math.trunc(timeout))}`).execute(db)
  }
  if (!left) return write()
  try {
    return await write()
  } finally {
    await setJournalMode(db, 'wal')
  }
}

/**
 * Seeds of fewer leads are committed synced wherever they go: their commit is short, and `npm start`'s first seed
 * (250 leads) makes the file a person goes on to use.
 */
export const UNSYNCED_SEED_FROM_LEADS = 10_000

/**
 * SQLite: runs `write`, a seed of `leads` leads, with its commits not synced (`pragma synchronous = off`) when it is
 * a large one (UNSYNCED_SEED_FROM_LEADS) and the database holds no organization yet — a file made for this seed, as
 * the bench's are — and puts the setting back after, whether `write` succeeded or not. A seed's commit hands the
 * operating system some 2 GB at 100,000 leads, and a synced commit then waits until the disk has all of it: 2–3 s of
 * a 36 s seed on the 2-core machine. Any synced commit of the file waits for all of it, so `write` covers the switch
 * back to the write-ahead log as well (withRollbackJournal), whose commit would otherwise sync what the seed left.
 * What the wait guards against is the machine itself stopping (a power cut, a kernel crash) before the system has
 * written the pages out, not the process ending: its writes are the system's by then. In a file that held nothing,
 * such a loss can damage only the seed, which is run again; a database with any organization in it is committed
 * synced, as every other write is. Postgres: `write` as is (its cluster's settings decide).
 */
export async function withUnsyncedSeedOfNewFile<T>(db: Db, leads: number, write: () => Promise<T>): Promise<T> {
  if (!isSqlite(db) || leads < UNSYNCED_SEED_FROM_LEADS) return write()
  if ((await db.selectFrom('organization').select('id').limit(1).executeTakeFirst()) !== undefined) return write()
  const synchronous = await pragmaNumber(db, 'synchronous')
  if (synchronous === undefined) return write()
  await sql`pragma synchronous = off`.execute(db)
  try {
    return await write()
  } finally {
    await sql.raw(`pragma synchronous = ${String(synchronous)}`).execute(db)
  }
}

async function journalMode(db: Db): Promise<string | undefined> {
  return (await sql<{ journal_mode: string }>`pragma journal_mode`.execute(db)).rows[0]?.journal_mode
}

async function setJournalMode(db: Db, mode: 'delete' | 'wal'): Promise<string | undefined> {
  return (await sql<{ journal_mode: string }>`pragma ${sql.raw(`journal_mode = ${mode}`)}`.execute(db)).rows[0]
    ?.journal_mode
}

/** The memory SQLite's sorter fills before it hands a run of sorted index entries to a helper thread, in KiB. */
const INDEX_SORT_RUN_KIB = 4096
/** SQLite's helper threads for one sort, at most: its default build allows eight. */
const MAX_SORT_THREADS = 4

/**
 * SQLite: runs `build` (statements that create indexes) with the sorter of each `create index` working in runs of
 * INDEX_SORT_RUN_KIB on helper threads (`pragma threads`), and puts the settings back after. SQLite sorts an index's
 * entries in memory up to the page cache's size, on the calling thread alone: with a bulk load's large cache that is
 * one sort of the whole table. Smaller runs are sorted by helper threads while the table is read, and merged on them:
 * the activity, contact and custom value tables' indexes of 100,000 demo leads were built in 6.6–7.7 s against
 * 10.0–11.9 s. The sorter's runs are sized by `cache_size`, so that is lowered for the builds, and `cache_spill` raised
 * to the cache's old size in pages, so that the load's pages, written but not yet committed, stay in memory rather
 * than being written out early. Postgres: `build` as is (it sorts an index build in parallel by itself).
 */
export async function withThreadedIndexSorts<T>(db: Db, build: () => Promise<T>): Promise<T> {
  if (!isSqlite(db)) return build()
  const cacheSize = await pragmaNumber(db, 'cache_size')
  const pageSize = await pragmaNumber(db, 'page_size')
  const threads = await pragmaNumber(db, 'threads')
  if (cacheSize === undefined || pageSize === undefined || threads === undefined) return build()
  const cacheKib = cacheSize < 0 ? -cacheSize : Math.ceil((cacheSize * pageSize) / 1024)
  // 0 when spilling is off; otherwise the threshold, which is never below the cache's size.
  const spill = await pragmaNumber(db, 'cache_spill')
  if (spill === 0) return build()
  // In KiB, as a negative number: SQLite also reads the value as on or off, and a count of pages that is a multiple
  // of 256 reads as off.
  await sql.raw(`pragma cache_spill = -${String(cacheKib)}`).execute(db)
  await sql.raw(`pragma cache_size = -${String(INDEX_SORT_RUN_KIB)}`).execute(db)
  await sql.raw(`pragma threads = ${String(Math.min(availableParallelism(), MAX_SORT_THREADS))}`).execute(db)
  try {
    return await build()
  } finally {
    await sql.raw(`pragma threads = ${String(threads)}`).execute(db)
    await sql.raw(`pragma cache_size = ${String(cacheSize)}`).execute(db)
    // 1 is SQLite's own threshold: spill once the cache is full, whatever its size.
    await sql`pragma cache_spill = 1`.execute(db)
  }
}

/** An index or trigger, and the statement that creates it again. */
interface SchemaObject {
  name: string
  table: string
  definition: string
}

/** The schema objects the database's own catalog lists, read by the query for its dialect. */
async function fromCatalog(
  db: Db,
  queries: { sqlite: RawBuilder<SchemaObject>; postgres: RawBuilder<SchemaObject> },
): Promise<SchemaObject[]> {
  const rows = await (isSqlite(db) ? queries.sqlite : queries.postgres).execute(db)
  return rows.rows
}

/**
 * The indexes of `tables` that nothing but speed depends on: not primary keys, not unique constraints (they check
 * the rows as they arrive).
 */
async function secondaryIndexes(db: Db, tables: readonly string[]): Promise<SchemaObject[]> {
  return fromCatalog(db, {
    // Indexes SQLite makes for a constraint have no creating statement (`sql` is null).
    sqlite: sql<SchemaObject>`select name, tbl_name as "table", sql as definition from sqlite_master
      where type = 'index' and sql is not null and tbl_name in (${sql.join(tables)})
        and sql not like 'create unique %'
      order by name`,
    postgres: sql<SchemaObject>`select c.relname as name, t.relname as "table",
      pg_get_indexdef(c.oid) as definition
    from pg_index x
    join pg_class c on c.oid = x.indexrelid
    join pg_class t on t.oid = x.indrelid
    join pg_namespace n on n.oid = t.relnamespace
    where n.nspname = current_schema() and t.relname in (${sql.join(tables)}) and not x.indisunique
    order by c.relname`,
  })
}

const ESCAPE = '\\'
const REVISION_TRIGGER = `%${ESCAPE}_revision${ESCAPE}_%`
const LEAD_COUNT = 'lead_count_'
const LEAD_COUNT_TRIGGER = `${LEAD_COUNT.replaceAll('_', `${ESCAPE}_`)}%`
const LEAD_CHANGE_TRIGGER = `lead${ESCAPE}_change${ESCAPE}_%`
const OPPORTUNITY_ROLLUP = 'opportunity_rollup_'
const OPPORTUNITY_ROLLUP_TRIGGER = `${OPPORTUNITY_ROLLUP.replaceAll('_', `${ESCAPE}_`)}%`
const ACTIVITY_CHANGE = 'activity_change_'
const ACTIVITY_CHANGE_TRIGGER = `${ACTIVITY_CHANGE.replaceAll('_', `${ESCAPE}_`)}%`

/**
 * The triggers of `tables` a bulk load sets aside: those that count a lead's revisions for the caches (migration
 * 0005, `<table>_revision_…`, and migration 0009's for opportunities, named alike) and those that count an
 * organization's leads (migration 0007, `lead_count_…`).
 * A seed writes new leads only: no cache can hold an older revision of them, so their counts may start at 0; the
 * leads are counted again after the load. Row by row, each of these rewrites one row once per row loaded: on
 * Postgres, every rewrite of the organization's count adds a version of that row its transaction cannot prune, and
 * the next one walks past all of them, which made a 100 000-lead seed quadratic.
 * SQLite: also those of the change clock (migration 0045), which read the clock's index at every lead (an index set
 * aside too); the loaded leads then take one tick of their organization's clock (tickLoadedLeads). Postgres's
 * clock is the writing transaction, set for each row at no cost, and stays. Likewise SQLite's feed of leads whose
 * activities changed (migration 0048, `activity_change_…`: an upsert and a read of the clock per note), marked after
 * the load in one statement (markLoadedActivities).
 * Both: the opportunity rollup's (migration 0010, `opportunity_rollup_…`: an upsert per opportunity, 32 µs of each
 * opportunity's 35 on SQLite), added up again afterwards from the opportunities (rebuildOpportunityRollup).
 */
async function setAsideTriggers(db: Db, tables: readonly string[]): Promise<SchemaObject[]> {
  return fromCatalog(db, {
    sqlite: sql<SchemaObject>`select name, tbl_name as "table", sql as definition from sqlite_master
      where type = 'trigger' and tbl_name in (${sql.join(tables)})
        and (name like ${REVISION_TRIGGER} escape ${ESCAPE} or name like ${LEAD_COUNT_TRIGGER} escape ${ESCAPE}
          or name like ${LEAD_CHANGE_TRIGGER} escape ${ESCAPE}
          or name like ${OPPORTUNITY_ROLLUP_TRIGGER} escape ${ESCAPE}
          or name like ${ACTIVITY_CHANGE_TRIGGER} escape ${ESCAPE})
      order by name`,
    postgres: sql<SchemaObject>`select g.tgname as name, t.relname as "table",
      pg_get_triggerdef(g.oid) as definition
    from pg_trigger g
    join pg_class t on t.oid = g.tgrelid
    join pg_namespace n on n.oid = t.relnamespace
    where n.nspname = current_schema() and t.relname in (${sql.join(tables)}) and not g.tgisinternal
      and (g.tgname like ${REVISION_TRIGGER} escape ${ESCAPE} or g.tgname like ${LEAD_COUNT_TRIGGER} escape ${ESCAPE}
        or g.tgname like ${OPPORTUNITY_ROLLUP_TRIGGER} escape ${ESCAPE})
    order by g.tgname`,
  })
}

/**
 * Postgres: the foreign keys of `tables`. Row by row, each is a query that locks the row it refers to; added again
 * after a load, each is one join over the whole table (SQLite checks its keys at commit: withBulkLoadSettings).
 */
async function foreignKeys(db: Db, tables: readonly string[]): Promise<SchemaObject[]> {
  if (isSqlite(db)) return []
  const rows = await sql<{ name: string; table: string; constraint: string }>`select c.conname as name,
      t.relname as "table", pg_get_constraintdef(c.oid) as "constraint"
    from pg_constraint c
    join pg_class t on t.oid = c.conrelid
    join pg_namespace n on n.oid = t.relnamespace
    where n.nspname = current_schema() and t.relname in (${sql.join(tables)}) and c.contype = 'f'
    order by t.relname, c.conname`.execute(db)
  return rows.rows.map(({ name, table, constraint }) => ({
    name,
    table,
    definition: `alter table ${quote(table)} add constraint ${quote(name)} ${constraint}`,
  }))
}

/** SQLite: the leads loaded without the clock's triggers (at 0) take one tick of their organization's clock. */
async function tickLoadedLeads(db: Db): Promise<void> {
  const { rows } = await sql<{ organization_id: string }>`select distinct organization_id from lead
    where change_seq = 0`.execute(db)
  for (const { organization_id: org } of rows) {
    await sql`update lead set change_seq = max(
        coalesce((select max(change_seq) from lead where organization_id = ${org}), 0),
        coalesce((select max(change_seq) from lead_tombstone where organization_id = ${org}), 0)) + 1
      where organization_id = ${org} and change_seq = 0`.execute(db)
  }
}

/**
 * SQLite: the loaded leads (at 0 on the change clock, before tickLoadedLeads) that have a call, email, note or text
 * marked in the feed of leads whose activities changed, each organization's at one tick of its clock, as the
 * triggers would have marked them one by one.
 */
async function markLoadedActivities(db: Db): Promise<void> {
  const { rows } = await sql<{ organization_id: string }>`select distinct organization_id from lead
    where change_seq = 0`.execute(db)
  for (const { organization_id: org } of rows) {
    const { rows: clock } = await sql<{ next: number }>`select coalesce(max(change_seq), 0) + 1 as next
      from lead_activity_change where organization_id = ${org}`.execute(db)
    await sql`insert into lead_activity_change (organization_id, lead_id, change_seq)
      select distinct a.organization_id, a.lead_id, ${clock[0]?.next ?? 1}
      from lead l join activity a on a.lead_id = l.id
      where l.organization_id = ${org} and l.change_seq = 0 and a.type in (${LAST_ACTIVITY_TYPE_LIST})
      on conflict (organization_id, lead_id) do update set change_seq = excluded.change_seq`.execute(db)
  }
}

/** Each organization's leads counted again, as migration 0007 first counted them. */
async function countLeads(db: Db): Promise<void> {
  await sql`insert into organization_lead_count (organization_id, leads)
    select organization_id, count(*) from lead group by organization_id
    on conflict (organization_id) do update set leads = excluded.leads`.execute(db)
}

/**
 * Runs `load`, a load of new leads into `tables`, without their secondary indexes, the triggers that count
 * revisions and leads and (Postgres) their foreign keys, and then creates those again (and counts the leads, and
 * checks every key): an index built by one sort is several times cheaper than one updated row by row in random id
 * order, the triggers would rewrite a row once per row loaded, and a key checked row by row is a query that locks
 * the row it refers to. Inside the caller's transaction, so a failed load leaves all of them in place. Postgres
 * locks the tables, and against writes the tables their keys refer to (organization, lead_status, custom_field,
 * opportunity_status, user), until the transaction ends: this is for loads that dwarf what the tables hold. `onRebuild` hears when the load is
 * done and the builds begin.
 */
export async function withBulkLoadSchema<T>(
  tx: Db,
  tables: readonly string[],
  load: () => Promise<T>,
  onRebuild?: () => void,
): Promise<T> {
  const sqlite = isSqlite(tx)
  const indexes = await secondaryIndexes(tx, tables)
  const triggers = await setAsideTriggers(tx, tables)
  const keys = await foreignKeys(tx, tables)
  for (const key of keys) await sql`alter table ${sql.id(key.table)} drop constraint ${sql.id(key.name)}`.execute(tx)
  for (const index of indexes) await sql`drop index ${sql.id(index.name)}`.execute(tx)
  for (const trigger of triggers) {
    await (
      sqlite
        ? sql`drop trigger ${sql.id(trigger.name)}`
        : sql`drop trigger ${sql.id(trigger.name)} on ${sql.id(trigger.table)}`
    ).execute(tx)
  }
  const result = await load()
  onRebuild?.()
  if (!sqlite) await sql.raw(`set local maintenance_work_mem = '${POSTGRES_INDEX_BUILD_MEMORY}'`).execute(tx)
  await withThreadedIndexSorts(tx, async () => {
    for (const { definition } of indexes) await sql.raw(definition).execute(tx)
  })
  for (const { definition } of [...triggers, ...keys]) await sql.raw(definition).execute(tx)
  const setAside = (prefix: string) => triggers.some((trigger) => trigger.name.startsWith(prefix))
  if (setAside(LEAD_COUNT)) await countLeads(tx)
  if (setAside(OPPORTUNITY_ROLLUP)) await rebuildOpportunityRollup(tx)
  // Before the tick: the loaded leads are those still at 0.
  if (sqlite && setAside(ACTIVITY_CHANGE)) await markLoadedActivities(tx)
  if (sqlite && setAside('lead_change_')) await tickLoadedLeads(tx)
  return result
}
