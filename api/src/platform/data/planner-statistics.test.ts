import { join } from 'node:path'
import SqliteDatabase from 'better-sqlite3'
import { sql } from 'kysely'
import { afterEach, describe, expect, it } from 'vitest'
import { openDatabase, refreshPlannerStatistics, type DatabaseHandle } from './database.js'
import { scratchDirectories } from '../../tooling/test-support/scratch-directories.js'

// SQLite's planner statistics, as the api's connections take them (decision 0087): a table is analyzed whole, so an
// index that starts with the organization says how many rows one organization has, however many that is. A sample
// (the default mask of `pragma optimize`) says at most as many as it read, about 2,000.

const ROWS = 20_000

describe('SQLite planner statistics', () => {
  let handle: DatabaseHandle | undefined
  const scratch = scratchDirectories('stats')
  afterEach(async () => {
    await handle?.close()
    handle = undefined
    scratch.removeAll()
  })

  /** A database file with a table of one organization's ROWS rows, indexed by organization first; not analyzed. */
  async function oneBigOrganization(): Promise<{ file: string; handle: DatabaseHandle }> {
    const file = join(scratch.make(), 'app.db')
    const opened = openDatabase(`sqlite:${file}`)
    await sql`create table item (organization_id text not null, value integer not null)`.execute(opened.db)
    await sql`create index item_org_idx on item (organization_id, value)`.execute(opened.db)
    await sql`with recursive n(i) as (select 1 union all select i + 1 from n where i < ${ROWS})
      insert into item select 'orga_one', i from n`.execute(opened.db)
    return { file, handle: opened }
  }

  /** The rows one organization has, as the statistics of item_org_idx tell the planner. */
  function rowsPerOrganization(file: string): number {
    const raw = new SqliteDatabase(file, { readonly: true })
    try {
      const row = raw.prepare(`select stat from sqlite_stat1 where idx = 'item_org_idx'`).get() as
        { stat: string } | undefined
      return Number(row?.stat.split(' ')[1])
    } finally {
      raw.close()
    }
  }

  it('a connection’s close analyzes a table it grew from every row, not from a sample', async () => {
    const { file, handle: opened } = await oneBigOrganization()
    await opened.close()
    expect(rowsPerOrganization(file)).toBe(ROWS)
  })

  it('refreshing the statistics (as an import does between its batches) reads every row too', async () => {
    const made = await oneBigOrganization()
    handle = made.handle
    await refreshPlannerStatistics(handle.db, handle.dialect)
    expect(rowsPerOrganization(made.file)).toBe(ROWS)
  })
})
