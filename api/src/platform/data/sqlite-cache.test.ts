import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { migrateToLatest } from './migrate.js'
import { openDatabase, type DatabaseHandle } from './database.js'
import { scratchDirectories } from '../../tooling/test-support/scratch-directories.js'

describe('SQLite page cache', () => {
  let handle: DatabaseHandle | undefined
  const scratch = scratchDirectories('cache')
  afterEach(async () => {
    await handle?.close()
    handle = undefined
    scratch.removeAll()
  })

  it('sizes the main connection as asked and the read-only one at a quarter of it', async () => {
    handle = openDatabase(`sqlite:${join(scratch.make(), 'app.db')}`, { sqliteCacheMb: 16 })
    await migrateToLatest(handle.db)
    expect(handle.sqlite?.prepare('pragma cache_size').all([])).toEqual([{ cache_size: -16 * 1024 }])
    expect(await handle.reader.all('pragma cache_size', [])).toEqual([{ cache_size: -4 * 1024 }])
  })
})
