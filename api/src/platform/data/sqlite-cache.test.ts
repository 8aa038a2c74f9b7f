import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { migrateToLatest } from './migrate.js'
import { openDatabase, type DatabaseHandle } from './database.js'

describe('SQLite page cache', () => {
  let handle: DatabaseHandle | undefined
  const dirs: string[] = []
  afterEach(async () => {
    await handle?.close()
    handle = undefined
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
  })

  it('sizes the main connection as asked and the read-only one at a quarter of it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'leadline-cache-'))
    dirs.push(dir)
    handle = openDatabase(`sqlite:${join(dir, 'app.db')}`, { sqliteCacheMb: 16 })
    await migrateToLatest(handle.db)
    expect(handle.sqlite?.prepare('pragma cache_size').all([])).toEqual([{ cache_size: -16 * 1024 }])
    expect(await handle.reader.all('pragma cache_size', [])).toEqual([{ cache_size: -4 * 1024 }])
  })
})
