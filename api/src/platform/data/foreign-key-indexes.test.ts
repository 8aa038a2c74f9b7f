import { sql } from 'kysely'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { createTestDatabase, type TestDatabase } from '../../tooling/test-support/test-app.js'
import { openDatabase, type DatabaseHandle } from './database.js'
import { migrateToLatest } from './migrate.js'

// Every foreign key has an index that starts with its column, on the database LEADLINE_TEST_DB names (migration
// 0059): deleting a row its key points at makes the database look for the rows that point at it, and without such
// an index it reads their whole table, for every row deleted. The only keys left without one point at rows the app
// never deletes (organizations, users) or at a pipeline, whose statuses are a handful an organization.

/** Parents whose rows the app never deletes, or whose children are few: their keys may go without an index. */
const UNINDEXED_PARENTS = new Set(['organization', 'user', 'pipeline'])

let testDb: TestDatabase
let database: DatabaseHandle

beforeAll(async () => {
  testDb = await createTestDatabase()
  database = openDatabase(testDb.url)
  await migrateToLatest(database.db)
})
afterAll(async () => {
  await database.close()
  await testDb.drop()
})

interface ForeignKey {
  table: string
  column: string
  parent: string
  indexed: boolean
}

async function foreignKeys(): Promise<ForeignKey[]> {
  if (database.dialect === 'postgres') {
    const { rows } = await sql<ForeignKey>`select c.conrelid::regclass::text as "table", a.attname as "column",
        c.confrelid::regclass::text as parent,
        exists (select 1 from pg_index i where i.indrelid = c.conrelid and i.indkey[0] = c.conkey[1]) as indexed
      from pg_constraint c
      join pg_attribute a on a.attrelid = c.conrelid and a.attnum = c.conkey[1]
      where c.contype = 'f' and c.connamespace = current_schema()::regnamespace`.execute(database.db)
    return rows.map((row) => ({ ...row, table: row.table.replaceAll('"', ''), parent: row.parent.replaceAll('"', '') }))
  }
  const tables = await sql<{ name: string }>`select name from sqlite_master where type = 'table'
    and name not like 'sqlite_%'`.execute(database.db)
  const keys: ForeignKey[] = []
  for (const { name } of tables.rows) {
    const list = await sql<{ id: number; seq: number; table: string; from: string }>`select * from
      pragma_foreign_key_list(${name})`.execute(database.db)
    const firsts = await sql<{ first: string }>`select (select ii.name from pragma_index_info(il.name) ii
      where ii.seqno = 0) as first from pragma_index_list(${name}) il`.execute(database.db)
    const leading = new Set(firsts.rows.map((row) => row.first))
    for (const key of list.rows.filter((row) => row.seq === 0)) {
      keys.push({ table: name, column: key.from, parent: key.table, indexed: leading.has(key.from) })
    }
  }
  return keys
}

it('has an index starting with the column of every foreign key whose parent rows are deleted', async () => {
  const keys = await foreignKeys()
  // The survey found the keys (the schema has some ninety).
  expect(keys.length).toBeGreaterThan(80)
  expect(keys).toContainEqual({ table: 'email_thread', column: 'lead_id', parent: 'lead', indexed: true })
  expect(keys).toContainEqual({ table: 'email_attachment', column: 'activity_id', parent: 'activity', indexed: true })
  const missing = keys.filter((key) => !key.indexed && !UNINDEXED_PARENTS.has(key.parent))
  expect(missing).toEqual([])
})
