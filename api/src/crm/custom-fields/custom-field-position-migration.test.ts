import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openDatabase, type DatabaseHandle } from '../../platform/data/database.js'
import { migrateToLatest, migrateUpTo } from '../../platform/data/migrate.js'
import { createOrg, createTestDatabase, TestClock, type TestDatabase } from '../../tooling/test-support/test-app.js'

// Migration 0034 on fields stored before they had an order: each organization's fields of each object type get
// places from 0 in creation order, ties by id, as the list showed them.

let testDb: TestDatabase
let database: DatabaseHandle
const clock = new TestClock()
const orgs: Record<string, string> = {}

async function oldField(org: string, id: string, objectType: string, created: string) {
  await sql`insert into custom_field (id, organization_id, object_type, name, type, accepts_multiple_values,
      date_created, date_updated)
    values (${id}, ${org}, ${objectType}, ${id}, 'text', ${0}, ${created}, ${created})`.execute(database.db)
}

beforeAll(async () => {
  testDb = await createTestDatabase()
  database = openDatabase(testDb.url)
  expect(await migrateUpTo(database.db, '0032-user-time-zone')).toContain('0032-user-time-zone')
  const a = await createOrg(database, clock, 'Older')
  const b = await createOrg(database, clock, 'Other')
  Object.assign(orgs, { a: a.id, b: b.id })
  await oldField(a.id, 'cf_late', 'lead', '2026-03-01T00:00:00.000000+00:00')
  await oldField(a.id, 'cf_early', 'lead', '2026-01-01T00:00:00.000000+00:00')
  await oldField(a.id, 'cf_tie_b', 'lead', '2026-02-01T00:00:00.000000+00:00')
  await oldField(a.id, 'cf_tie_a', 'lead', '2026-02-01T00:00:00.000000+00:00')
  await oldField(a.id, 'cf_contact', 'contact', '2026-05-01T00:00:00.000000+00:00')
  await oldField(b.id, 'cf_theirs', 'lead', '2025-01-01T00:00:00.000000+00:00')
  expect(await migrateToLatest(database.db)).toContain('0034-custom-field-positions')
})
afterAll(async () => {
  await database.close()
  await testDb.drop()
})

describe('migration 0034', () => {
  it('numbers each organization’s fields of each object type from 0, oldest first, ties by id', async () => {
    const rows = await database.db
      .selectFrom('custom_field')
      .select(['id', 'position'])
      .orderBy('organization_id')
      .orderBy('object_type')
      .orderBy('position')
      .execute()
    const of = (id: string) => rows.find((row) => row.id === id)?.position
    expect(['cf_early', 'cf_tie_a', 'cf_tie_b', 'cf_late'].map(of)).toEqual([0, 1, 2, 3])
    expect(of('cf_contact')).toBe(0)
    expect(of('cf_theirs')).toBe(0)
  })
})
