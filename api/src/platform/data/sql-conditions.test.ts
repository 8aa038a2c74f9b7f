import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openDatabase, type DatabaseHandle } from './database.js'
import { isAmong, textArrayParameter } from './sql-conditions.js'
import { createTestDatabase, type TestDatabase } from '../../tooling/test-support/test-app.js'

describe('textArrayParameter', () => {
  it("writes ids as the array's text form, and leaves anything needing quotes to pg", () => {
    expect(textArrayParameter(['lead_abc', 'lead_DEF9'])).toBe('{lead_abc,lead_DEF9}')
    expect(textArrayParameter([])).toBe('{}')
    for (const odd of ['a,b', 'a b', 'a"b', 'a\\b', '{a}', '', 'NULL', 'null', 'é']) {
      const values = ['lead_abc', odd]
      expect(textArrayParameter(values), odd).toBe(values)
    }
  })
})

describe('isAmong, on the test database', () => {
  let testDb: TestDatabase
  let database: DatabaseHandle
  beforeAll(async () => {
    testDb = await createTestDatabase()
    database = openDatabase(testDb.url)
  })
  afterAll(async () => {
    await database.close()
    await testDb.drop()
  })

  const stored = ['lead_a', 'lead_b', 'a,b', 'a"b', 'a\\b', '{a}', 'NULL', 'x y', 'é']
  const among = async (values: string[]) => {
    const rows = stored.map((v) => sql`select ${v} as v`)
    const { rows: found } = await sql<{ v: string }>`select v from (${sql.join(rows, sql` union all `)}) as t
      where ${isAmong(sql`v`, values, database.dialect)}`.execute(database.db)
    return found.map((r) => r.v).sort()
  }

  it('finds exactly the values given, plain or odd', async () => {
    expect(await among(['lead_a', 'lead_c'])).toEqual(['lead_a'])
    for (const odd of stored) expect(await among([odd, 'lead_b']), odd).toEqual([...new Set([odd, 'lead_b'])].sort())
    expect(await among([])).toEqual([])
  })
})
