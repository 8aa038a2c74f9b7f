import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startApiProcess, stopApiProcesses, type ApiProcess } from '../test-support/api-process.js'
import { openDatabase, type DatabaseHandle } from '../db/database.js'
import { migrateToLatest } from '../db/migrate.js'
import {
  basicAuth,
  createOrg,
  createTestDatabase,
  TestClock,
  type TestDatabase,
  type TestOrg,
} from '../test-support/test-app.js'

let testDb: TestDatabase
let database: DatabaseHandle
let servers: ApiProcess[] = []
let org: TestOrg

beforeAll(async () => {
  testDb = await createTestDatabase()
  database = openDatabase(testDb.url)
  await migrateToLatest(database.db)
  org = await createOrg(database, new TestClock(), 'Shared Limits Co')
  servers = await Promise.all([
    startApiProcess(testDb.url, { LEADLINE_RATE_LIMIT: '6', LEADLINE_RATE_WINDOW: '120' }),
    startApiProcess(testDb.url, { LEADLINE_RATE_LIMIT: '6', LEADLINE_RATE_WINDOW: '120' }),
  ])
})

afterAll(async () => {
  await stopApiProcesses(servers)
  await database.close()
  await testDb.drop()
})

describe('two api processes on one Postgres', () => {
  it('share one rate limit per key, endpoint group and method', async () => {
    const results: { server: number; status: number; remaining: string | null }[] = []
    for (let i = 0; i < 8; i++) {
      const server = i % 2
      const res = await fetch(`${servers[server]?.url ?? ''}/api/v1/me/`, {
        headers: { authorization: basicAuth(org.admin.key) },
      })
      results.push({ server, status: res.status, remaining: res.headers.get('x-rate-limit-remaining') })
    }
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200, 429, 429])
    expect(results.map((r) => r.remaining)).toEqual(['5', '4', '3', '2', '1', '0', '0', '0'])
  })
})
