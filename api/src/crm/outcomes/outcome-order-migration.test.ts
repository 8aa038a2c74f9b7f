import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openDatabase, type DatabaseHandle } from '../../platform/data/database.js'
import { migrateToLatest, migrateUpTo } from '../../platform/data/migrate.js'
import { createOrg, createTestDatabase, TestClock, type TestDatabase } from '../../tooling/test-support/test-app.js'

// Migration 0033 on outcomes stored before they had an order: each organization's keep the order the list showed
// them in, by case-folded name compared as code points, from 0.

let testDb: TestDatabase
let database: DatabaseHandle
const clock = new TestClock()
const orgs: Record<string, string> = {}

async function oldOutcome(org: string, id: string, name: string) {
  const now = '2026-01-01T00:00:00.000000+00:00'
  await sql`insert into outcome (id, organization_id, name, name_key, description, type, applies_to, date_created,
      date_updated)
    values (${id}, ${org}, ${name}, ${name.toLowerCase()}, null, 'custom', '["calls"]', ${now}, ${now})`.execute(
    database.db,
  )
}

beforeAll(async () => {
  testDb = await createTestDatabase()
  database = openDatabase(testDb.url)
  expect(await migrateUpTo(database.db, '0032-user-time-zone')).toContain('0032-user-time-zone')
  const a = await createOrg(database, clock, 'Alpha')
  const b = await createOrg(database, clock, 'Beta')
  Object.assign(orgs, { a: a.id, b: b.id })
  // Stored in another order than their names', one name capitalized and one beyond ASCII.
  await oldOutcome(a.id, 'outcome_a1', 'Voicemail')
  await oldOutcome(a.id, 'outcome_a2', 'apple')
  await oldOutcome(a.id, 'outcome_a3', 'Zebra')
  await oldOutcome(a.id, 'outcome_a4', 'Ärger')
  await oldOutcome(b.id, 'outcome_b1', 'No answer')
  await oldOutcome(b.id, 'outcome_b2', 'Interested')
  expect(await migrateToLatest(database.db)).toContain('0033-outcome-order')
})
afterAll(async () => {
  await database.close()
  await testDb.drop()
})

async function order(org: string): Promise<[string, number][]> {
  const rows = await database.db
    .selectFrom('outcome')
    .select(['name', 'position'])
    .where('organization_id', '=', orgs[org] ?? '')
    .orderBy('position')
    .execute()
  return rows.map((row) => [row.name, row.position])
}

describe('migration 0033: the order of outcomes', () => {
  it('numbers each organization’s outcomes from 0 by case-folded name, as the list showed them', async () => {
    expect(await order('a')).toEqual([
      ['apple', 0],
      ['Voicemail', 1],
      ['Zebra', 2],
      ['Ärger', 3],
    ])
    expect(await order('b')).toEqual([
      ['Interested', 0],
      ['No answer', 1],
    ])
  })
})
