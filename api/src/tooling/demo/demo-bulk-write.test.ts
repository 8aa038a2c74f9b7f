import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openDatabase, type DatabaseHandle, type Db } from '../../platform/data/database.js'
import { migrateToLatest } from '../../platform/data/migrate.js'
import { withRollbackJournal } from './demo-bulk-write.js'

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
