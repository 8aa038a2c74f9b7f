import { sql } from 'kysely'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { createTestDatabase, type TestDatabase } from '../../tooling/test-support/test-app.js'
import { openDatabase, type DatabaseHandle } from './database.js'

// Each session prices an index probe as a read from memory (database.ts, postgresSessionOptions); the operator's
// PGOPTIONS still have the last word.

let testDb: TestDatabase
let handle: DatabaseHandle | undefined
const pgOptions = process.env.PGOPTIONS

beforeEach(async () => {
  testDb = await createTestDatabase()
})
afterEach(async () => {
  await handle?.close()
  handle = undefined
  await testDb.drop()
  if (pgOptions === undefined) delete process.env.PGOPTIONS
  else process.env.PGOPTIONS = pgOptions
})

async function randomPageCost(): Promise<string | undefined> {
  handle = openDatabase(testDb.url)
  const { rows } = await sql<{ random_page_cost: string }>`show random_page_cost`.execute(handle.db)
  return rows[0]?.random_page_cost
}

it('plans with random_page_cost 1.1', async () => {
  delete process.env.PGOPTIONS
  expect(await randomPageCost()).toBe('1.1')
})

it("lets the operator's PGOPTIONS set it otherwise", async () => {
  process.env.PGOPTIONS = '-c random_page_cost=2.5'
  expect(await randomPageCost()).toBe('2.5')
})
