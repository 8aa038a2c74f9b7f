import { mkdtempSync, rmSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { inTransaction, openDatabase, type DatabaseHandle, type Db } from '../../platform/data/database.js'
import { migrateToLatest } from '../../platform/data/migrate.js'
import { provisionOrganization } from '../../crm/organizations/provision.js'
import { systemClock } from '../../platform/data/time.js'
import {
  UNSYNCED_SEED_FROM_LEADS,
  withRollbackJournal,
  withThreadedIndexSorts,
  withUnsyncedSeedOfNewFile,
} from './demo-bulk-write.js'

// The demo seed writes a SQLite file through a rollback journal when it has the file to itself, and leaves it in
// WAL mode as it found it, whatever happens. A SQLite file whichever database the suite runs on: this is about files.

const journalMode = async (db: Db) =>
  (await sql<{ journal_mode: string }>`pragma journal_mode`.execute(db)).rows[0]?.journal_mode

describe('withRollbackJournal', () => {
  let dir: string
  let url: string
  let handle: DatabaseHandle
  const others: DatabaseHandle[] = []

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'leadline-journal-'))
    url = `sqlite:${join(dir, 'seed.db')}`
    handle = openDatabase(url, { oneConnection: true })
    await migrateToLatest(handle.db)
  })
  afterEach(async () => {
    for (const other of others.splice(0)) await other.close()
    await handle.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('writes through a rollback journal when it has the file to itself, and puts the log back', async () => {
    expect(await journalMode(handle.db)).toBe('wal')
    const inside = await withRollbackJournal(handle.db, async () => {
      await handle.db.insertInto('app_state').values({ key: 'seeded', value: 'yes' }).execute()
      return journalMode(handle.db)
    })
    expect(inside).toBe('delete')
    expect(await journalMode(handle.db)).toBe('wal')
    // The write is there for another connection to read, in WAL mode.
    const reader = openDatabase(url)
    others.push(reader)
    expect(await journalMode(reader.db)).toBe('wal')
    const rows = await reader.db.selectFrom('app_state').select('key').where('key', '=', 'seeded').execute()
    expect(rows).toEqual([{ key: 'seeded' }])
  })

  it('puts the log back when the write fails, and the failure reaches the caller', async () => {
    await expect(withRollbackJournal(handle.db, () => Promise.reject(new Error('the seed broke')))).rejects.toThrow(
      'the seed broke',
    )
    expect(await journalMode(handle.db)).toBe('wal')
  })

  it('stays in WAL mode, and keeps the busy timeout, when another connection holds the file', async () => {
    const other = openDatabase(url)
    others.push(other)
    await other.db.selectFrom('app_state').select('key').execute()
    const inside = await withRollbackJournal(handle.db, () => journalMode(handle.db))
    expect(inside).toBe('wal')
    expect((await sql<{ timeout: number }>`pragma busy_timeout`.execute(handle.db)).rows[0]?.timeout).toBe(5000)
  })

  it('stays in WAL mode through a default handle alone: its own read connection holds the file', async () => {
    // The one-connection handle closed first: only the default handle's two connections hold the file.
    await handle.close()
    handle = openDatabase(url)
    await handle.reader.all('select 1', [])
    expect(await withRollbackJournal(handle.db, () => journalMode(handle.db))).toBe('wal')
  })
})

describe('withThreadedIndexSorts', () => {
  let dir: string
  let handle: DatabaseHandle

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'leadline-index-sorts-'))
    handle = openDatabase(`sqlite:${join(dir, 'sorts.db')}`, { oneConnection: true })
  })
  afterEach(async () => {
    await handle.close()
    rmSync(dir, { recursive: true, force: true })
  })

  const pragma = async (name: string) => {
    const row = (await sql<Record<string, unknown>>`pragma ${sql.raw(name)}`.execute(handle.db)).rows[0]
    return row === undefined ? undefined : Object.values(row)[0]
  }

  it('sorts on helper threads in small runs while the cache keeps its pages, and puts every setting back', async () => {
    const db = handle.db
    await sql`pragma cache_size = -65536`.execute(db)
    const before = { threads: await pragma('threads'), cacheSize: await pragma('cache_size') }
    const spillBefore = await pragma('cache_spill')
    const inside = await withThreadedIndexSorts(db, async () => ({
      threads: await pragma('threads'),
      cacheSize: await pragma('cache_size'),
      spill: await pragma('cache_spill'),
    }))
    expect(inside.threads).toBe(Math.min(availableParallelism(), 4))
    expect(inside.cacheSize).toBe(-4096)
    // The load's pages may stay in memory up to the cache it had (SQLite counts its pages with their headers).
    expect(spillBefore).toBeGreaterThan(15_000)
    expect(inside.spill).toBe(spillBefore)
    expect({ threads: await pragma('threads'), cacheSize: await pragma('cache_size') }).toEqual(before)
    expect(await pragma('cache_spill')).toBe(spillBefore)
  })

  it('builds an index larger than a run, inside a transaction, the same as a sort in memory would', async () => {
    const db = handle.db
    const rows = 120_000
    await inTransaction(db, async (tx) => {
      await sql`create table t (id integer primary key, v text not null)`.execute(tx)
      // Text keys of 40 bytes in a scrambled order: 4.8 MB of entries, more than one sorter run of 4 MiB.
      await sql`with recursive n(i) as (select 1 union all select i + 1 from n where i < ${rows})
        insert into t (id, v) select i, printf('%020d-%019d', (i * 7919) % ${rows}, i) from n`.execute(tx)
      await withThreadedIndexSorts(tx, async () => {
        await sql`create index t_v_idx on t (v)`.execute(tx)
      })
    })
    expect(await pragma('integrity_check')).toBe('ok')
    const ordered = await sql<{ v: string }>`select v from t indexed by t_v_idx order by v`.execute(db)
    const values = ordered.rows.map((row) => row.v)
    expect(values).toHaveLength(rows)
    expect(values).toEqual([...values].sort())
    expect(new Set(values).size).toBe(rows)
  })

  it('leaves a connection that never spills as it is', async () => {
    await sql`pragma cache_spill = off`.execute(handle.db)
    const threads = await pragma('threads')
    const inside = await withThreadedIndexSorts(handle.db, () => pragma('threads'))
    expect(inside).toBe(threads)
    expect(await pragma('cache_spill')).toBe(0)
  })
})

describe('withUnsyncedSeedOfNewFile', () => {
  let dir: string
  let handle: DatabaseHandle

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'leadline-unsynced-'))
    handle = openDatabase(`sqlite:${join(dir, 'seed.db')}`, { oneConnection: true })
    await migrateToLatest(handle.db)
  })
  afterEach(async () => {
    await handle.close()
    rmSync(dir, { recursive: true, force: true })
  })

  // 0 is off, 2 full: what every connection of the api syncs with.
  const synchronous = async (db: Db = handle.db) =>
    (await sql<{ synchronous: number }>`pragma synchronous`.execute(db)).rows[0]?.synchronous

  const large = UNSYNCED_SEED_FROM_LEADS

  it('commits a large seed of a file that holds no organization unsynced, and syncs again after', async () => {
    expect(await synchronous()).toBe(2)
    const inside = await withUnsyncedSeedOfNewFile(handle.db, large, () =>
      inTransaction(handle.db, async (tx) => {
        await tx.insertInto('app_state').values({ key: 'seeded', value: 'yes' }).execute()
        return synchronous(tx)
      }),
    )
    expect(inside).toBe(0)
    expect(await synchronous()).toBe(2)
    const rows = await handle.db.selectFrom('app_state').select('key').where('key', '=', 'seeded').execute()
    expect(rows).toEqual([{ key: 'seeded' }])
  })

  it('syncs as always once the file holds an organization', async () => {
    await provisionOrganization(handle.db, systemClock, {
      name: 'Acme',
      email: 'owner@acme.test',
    })
    expect(await withUnsyncedSeedOfNewFile(handle.db, large, () => synchronous())).toBe(2)
    expect(await synchronous()).toBe(2)
  })

  it('syncs a smaller seed, as the first start seeds the file a person goes on to use', async () => {
    expect(await withUnsyncedSeedOfNewFile(handle.db, large - 1, () => synchronous())).toBe(2)
  })

  it('syncs again when the seed fails, and the failure reaches the caller', async () => {
    await expect(
      withUnsyncedSeedOfNewFile(handle.db, large, () => Promise.reject(new Error('the seed broke'))),
    ).rejects.toThrow('the seed broke')
    expect(await synchronous()).toBe(2)
  })
})
