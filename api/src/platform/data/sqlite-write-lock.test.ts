import { join } from 'node:path'
import { sql } from 'kysely'
import { afterEach, describe, expect, it } from 'vitest'
import { openDatabase, type DatabaseHandle } from './database.js'
import { createWriteLockBuffer, writeLock } from './sqlite-write-lock.js'
import { scratchDirectories } from '../../tooling/test-support/scratch-directories.js'

// The write lock the api's SQLite connection shares with the import thread's (decision 0053). Both sides are in one
// thread here: the lock lives in shared memory, and each side only ever waits asynchronously.

const tick = () => new Promise((resolve) => setTimeout(resolve, 5))

describe('the shared write lock', () => {
  it('lets one side hold it at a time', async () => {
    const buffer = createWriteLockBuffer()
    const api = writeLock(buffer, 'api')
    const imports = writeLock(buffer, 'import')
    await imports.acquire()
    let apiHas = false
    const waiting = api.acquire().then(() => {
      apiHas = true
    })
    await tick()
    expect(apiHas).toBe(false)
    // Only its holder frees it.
    api.release()
    await tick()
    expect(apiHas).toBe(false)
    imports.release()
    await waiting
    expect(apiHas).toBe(true)
    api.release()
  })

  it('goes to a waiting api before the import thread takes it again', async () => {
    const buffer = createWriteLockBuffer()
    const api = writeLock(buffer, 'api')
    const imports = writeLock(buffer, 'import')
    const order: string[] = []
    await imports.acquire()
    const apiTurn = api.acquire().then(() => {
      order.push('api')
      api.release()
    })
    await tick()
    // The import thread's next batch asks at once, as its loop does; the api, waiting already, goes first.
    imports.release()
    const nextBatch = imports.acquire().then(() => {
      order.push('import')
      imports.release()
    })
    await Promise.all([apiTurn, nextBatch])
    expect(order).toEqual(['api', 'import'])
  })

  it('is freed for the api when the import thread died holding it', async () => {
    const buffer = createWriteLockBuffer()
    const api = writeLock(buffer, 'api')
    await writeLock(buffer, 'import').acquire()
    api.releaseIfHeldBy('api')
    let apiHas = false
    const waiting = api.acquire().then(() => {
      apiHas = true
    })
    await tick()
    expect(apiHas).toBe(false)
    api.releaseIfHeldBy('import')
    await waiting
    expect(apiHas).toBe(true)
  })
})

describe('two connections that share the lock', () => {
  const handles: DatabaseHandle[] = []
  const scratch = scratchDirectories('lock')
  afterEach(async () => {
    for (const handle of handles.splice(0)) await handle.close()
    scratch.removeAll()
  })

  function open(file: string, lock: { buffer: SharedArrayBuffer; party: 'api' | 'import' } | undefined) {
    const handle = openDatabase(`sqlite:${file}`, lock === undefined ? {} : { writeLock: lock })
    handles.push(handle)
    return handle.db
  }

  /**
   * One side's transaction reads, lets the other side run a transaction that writes, then writes itself: without
   * a shared lock the first one's snapshot is stale by then and SQLite refuses its write at once (SQLITE_BUSY, which
   * no busy timeout waits out); with it, the second transaction waits for the first to commit.
   */
  async function interleave(shared: boolean, autocommit = false) {
    const file = join(scratch.make(), 'app.db')
    const buffer = createWriteLockBuffer()
    const api = open(file, shared ? { buffer, party: 'api' } : undefined)
    await sql`create table counter (n integer not null)`.execute(api)
    await sql`insert into counter (n) values (0)`.execute(api)
    const imports = open(file, shared ? { buffer, party: 'import' } : undefined)
    let other: Promise<unknown> = Promise.resolve()
    await api.transaction().execute(async (tx) => {
      await sql`select n from counter`.execute(tx)
      // A write outside a transaction takes the lock too, also one that returns rows.
      other = autocommit
        ? sql`update counter set n = n + 10 returning n`.execute(imports)
        : imports.transaction().execute(async (itx) => {
            await sql`update counter set n = n + 10`.execute(itx)
          })
      await tick()
      await sql`update counter set n = n + 1`.execute(tx)
    })
    await other
    return Number((await sql<{ n: number }>`select n from counter`.execute(api)).rows[0]?.n)
  }

  it('keeps both writes, where unshared connections fail one', async () => {
    await expect(interleave(false)).rejects.toThrow(/SQLITE_BUSY|database is locked/)
    expect(await interleave(true)).toBe(11)
    expect(await interleave(true, true)).toBe(11)
  })
})
