import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CompiledQuery, sql } from 'kysely'
import { buildApp } from '../app.js'
import { loadConfig } from '../config.js'
import {
  createOrg,
  call,
  createTestDatabase,
  TestClock,
  type TestDatabase,
  type TestOrg,
} from '../test-support/test-app.js'
import { openDatabase, type DatabaseHandle } from './database.js'
import { migrateToLatest } from './migrate.js'

// The SQL the API runs for a request, explained: per-organization reads must reach their rows through an index
// that starts with organization_id, never by scanning every organization's rows. Postgres is told to avoid
// sequential scans so its plans show which indexes can serve a query even on these small tables.

const captured: CompiledQuery[] = []
let testDb: TestDatabase
let database: DatabaseHandle
let app: Awaited<ReturnType<typeof buildApp>>
let org: TestOrg

beforeAll(async () => {
  testDb = await createTestDatabase()
  database = openDatabase(testDb.url, {
    log: (event) => {
      if (event.level === 'query') captured.push(event.query)
    },
  })
  await migrateToLatest(database.db)
  const clock = new TestClock()
  app = await buildApp({ database, config: loadConfig({ DATABASE_URL: testDb.url }), clock, logger: false })
  org = await createOrg(database, clock, 'Planned Inc')
  const other = await createOrg(database, clock, 'Other Inc')
  for (const who of [org, other]) {
    const res = await call(app, who.member.key, 'POST', '/lead/', {
      body: { name: 'Planned Co', addresses: [{ label: 'business', city: 'Paris' }], contacts: [{ name: 'Pat' }] },
    })
    expect(res.statusCode, res.body).toBe(200)
  }
})

afterAll(async () => {
  await app.close()
  await database.close()
  await testDb.drop()
})

async function explain(query: CompiledQuery): Promise<string[]> {
  if (database.dialect === 'sqlite') {
    const plan = await database.db.executeQuery<{ detail: string }>(
      CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]),
    )
    return plan.rows.map((r) => r.detail)
  }
  return database.db.transaction().execute(async (tx) => {
    await sql`set local enable_seqscan = off`.execute(tx)
    const plan = await tx.executeQuery<{ 'QUERY PLAN': string }>(
      CompiledQuery.raw(`explain ${query.sql}`, [...query.parameters]),
    )
    return plan.rows.map((r) => r['QUERY PLAN'])
  })
}

/** The plans of the queries a request ran that read `table`. */
async function plansFor(path: string, table: string): Promise<string[][]> {
  captured.length = 0
  const res = await call(app, org.member.key, 'GET', path)
  expect(res.statusCode, res.body).toBe(200)
  const reads = captured.filter((q) => q.sql.startsWith('select') && new RegExp(`\\b"?${table}"?\\b`).test(q.sql))
  expect(reads.length, `${path} reads ${table}`).toBeGreaterThan(0)
  return Promise.all(reads.map(explain))
}

/**
 * The plan nodes that read every row of `table`. SQLite says SCAN (of the table or of a whole index) where an index
 * narrows the read to SEARCH. In Postgres a scan node without an Index Cond or Recheck Cond reads everything.
 */
function fullScans(plan: string[], table: string): string[] {
  if (database.dialect === 'sqlite') return plan.filter((line) => new RegExp(`^SCAN ${table}( |$)`).test(line.trim()))
  const node = new RegExp(`Scan(?: Backward)?(?: using \\S+)? on ${table}( |$)`)
  const indent = (line: string) => line.length - line.trimStart().replace(/^->\s*/, '').length
  return plan.filter((line, i) => {
    if (!node.test(line)) return false
    const below = plan.slice(i + 1)
    const end = below.findIndex((next) => indent(next) <= indent(line))
    const block = end === -1 ? below : below.slice(0, end)
    return !block.some((next) => /^\s*(Index Cond|Recheck Cond):/.test(next))
  })
}

describe('query plans', () => {
  it.each([
    ['/lead/?query=city:paris', 'lead_address'],
    ['/lead/?query=zipcode:75 state:x', 'lead_address'],
    ['/lead/?query=country:fr', 'lead_address'],
    ['/lead/?query=zz', 'lead_search'],
    ['/lead/?query=contact_name:pat', 'contact'],
    ['/lead/?query=status:potential', 'lead_status'],
    ['/lead/', 'lead'],
    ['/contact/', 'contact'],
  ])('%s reads %s through an organization index', async (path, table) => {
    for (const plan of await plansFor(path, table)) expect(fullScans(plan, table), plan.join('\n')).toEqual([])
  })

  it.each(['/activity/', '/activity/?user_id=USER'])('%s walks an index in order: no scan, no sort', async (path) => {
    for (const plan of await plansFor(path.replace('USER', org.admin.id), 'activity')) {
      expect(fullScans(plan, 'activity'), plan.join('\n')).toEqual([])
      const sorts = plan.filter((line) => /TEMP B-TREE FOR ORDER BY|^\s*(->\s*)?Sort\b/.test(line))
      expect(sorts, plan.join('\n')).toEqual([])
    }
  })
})
