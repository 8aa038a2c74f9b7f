import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startApiProcess, stopApiProcesses, type ApiProcess } from '../../tooling/test-support/api-process.js'
import { openDatabase, type DatabaseHandle } from '../data/database.js'
import { migrateToLatest } from '../data/migrate.js'
import {
  basicAuth,
  call,
  createOrg,
  createTestContext,
  createTestDatabase,
  TestClock,
  type TestContext,
  type TestDatabase,
  type TestOrg,
} from '../../tooling/test-support/test-app.js'
import { leaseChunk, leasingRateLimiter, postgresLeaseStore, type LeaseStore } from './rate-limit.js'

let testDb: TestDatabase
let database: DatabaseHandle
let org: TestOrg

beforeAll(async () => {
  testDb = await createTestDatabase()
  database = openDatabase(testDb.url)
  await migrateToLatest(database.db)
  org = await createOrg(database, new TestClock(), 'Shared Limits Co')
})

afterAll(async () => {
  await database.close()
  await testDb.drop()
})

function store(): LeaseStore {
  if (database.pgPool === undefined) throw new Error('these tests need Postgres')
  return postgresLeaseStore(database.pgPool)
}

async function sharedCount(key: string): Promise<number | undefined> {
  const found = await sql<{ consumed: number }>`SELECT consumed FROM rate_limit_lease WHERE key = ${key}`.execute(
    database.db,
  )
  return found.rows[0]?.consumed
}

async function get(server: ApiProcess, path: string, key: string) {
  const res = await fetch(`${server.url}/api/v1${path}`, { headers: { authorization: basicAuth(key) } })
  await res.arrayBuffer()
  return { status: res.status, remaining: res.headers.get('x-rate-limit-remaining') }
}

describe('the lease statement', () => {
  it('grants what is left of the window, then nothing, and opens a new window once it ended', async () => {
    const leases = store()
    const now = 1_000_000
    expect(await leases.lease('statement', 4, 10, now, 30_000)).toEqual({
      consumed: 4,
      granted: 4,
      expiresAt: 1_030_000,
    })
    expect(await leases.lease('statement', 4, 10, now + 1, 30_000)).toMatchObject({ consumed: 8, granted: 4 })
    expect(await leases.lease('statement', 4, 10, now + 2, 30_000)).toMatchObject({ consumed: 10, granted: 2 })
    expect(await leases.lease('statement', 4, 10, now + 3, 30_000)).toEqual({
      consumed: 10,
      granted: 0,
      expiresAt: 1_030_000,
    })
    expect(await leases.lease('statement', 4, 10, 1_030_000, 30_000)).toEqual({
      consumed: 4,
      granted: 4,
      expiresAt: 1_060_000,
    })
  })

  it('deletes only the rows whose window ended before the given time', async () => {
    const leases = store()
    await leases.lease('ended-long-ago', 1, 10, 0, 30_000)
    await leases.lease('ended-lately', 1, 10, 40_000, 30_000)
    expect(await leases.deleteEnded(50_000)).toBe(1)
    expect(await sharedCount('ended-long-ago')).toBeUndefined()
    expect(await sharedCount('ended-lately')).toBe(1)
  })

  it('never lets limiters sharing the table hand out more than the limit', async () => {
    const clock = new TestClock()
    const limiters = [0, 1, 2].map(() => leasingRateLimiter(store(), { points: 400, windowSeconds: 60 }, clock))
    const outcomes = await Promise.all(
      Array.from({ length: 600 }, (_, i) => {
        const limiter = limiters[i % limiters.length]
        if (limiter === undefined) throw new Error('no limiter')
        return limiter.consume('shared')
      }),
    )
    const allowed = outcomes.filter((o) => o.allowed).length
    expect(allowed).toBeLessThanOrEqual(400)
    expect(allowed).toBeGreaterThanOrEqual(400 - limiters.length * (leaseChunk(400) - 1))
    expect(await sharedCount('shared')).toBe(400)
  })
})

describe('one api process on Postgres', () => {
  let ctx: TestContext
  beforeAll(async () => {
    ctx = await createTestContext({ env: { LEADLINE_RATE_LIMIT: '3', LEADLINE_RATE_WINDOW: '60' } })
  })
  afterAll(async () => {
    await ctx.close()
  })

  it('refuses a burst past the limit until the window ends, then counts afresh', async () => {
    const burst = await Promise.all(Array.from({ length: 10 }, () => call(ctx.app, ctx.org.admin.key, 'GET', '/me/')))
    expect(burst.filter((r) => r.statusCode === 200)).toHaveLength(3)
    const refused = burst.filter((r) => r.statusCode === 429)
    expect(refused).toHaveLength(7)
    for (const res of refused) {
      const body = res.json<{ error: { rate_reset: number } }>()
      expect(Number.isInteger(body.error.rate_reset)).toBe(true)
      expect(body.error.rate_reset).toBeGreaterThan(0)
      expect(body.error.rate_reset).toBeLessThanOrEqual(60)
    }

    ctx.clock.advance(59_000)
    expect((await call(ctx.app, ctx.org.admin.key, 'GET', '/me/')).statusCode).toBe(429)
    ctx.clock.advance(1_000)
    const next = await call(ctx.app, ctx.org.admin.key, 'GET', '/me/')
    expect(next.statusCode).toBe(200)
    expect(next.headers['x-rate-limit-remaining']).toBe('2')
    expect(Number(next.headers['x-rate-limit-reset'])).toBeGreaterThan(59)
  })
})

async function startTwo(limit: number): Promise<ApiProcess[]> {
  const env = { LEADLINE_RATE_LIMIT: String(limit), LEADLINE_RATE_WINDOW: '120' }
  return Promise.all([startApiProcess(testDb.url, env), startApiProcess(testDb.url, env)])
}

describe('two api processes on one Postgres', () => {
  let servers: ApiProcess[] = []
  beforeAll(async () => {
    servers = await startTwo(6)
  })
  afterAll(async () => {
    await stopApiProcesses(servers)
  })

  it('share one rate limit per key, endpoint group and method', async () => {
    const results: { server: number; status: number; remaining: string | null }[] = []
    for (let i = 0; i < 8; i++) {
      const server = servers[i % 2]
      if (server === undefined) throw new Error('no server')
      results.push({ server: i % 2, ...(await get(server, '/me/', org.admin.key)) })
    }
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200, 429, 429])
    expect(results.map((r) => r.remaining)).toEqual(['5', '4', '3', '2', '1', '0', '0', '0'])
  })
})

describe('two api processes on one Postgres, with a limit they lease in chunks', () => {
  let servers: ApiProcess[] = []
  beforeAll(async () => {
    servers = await startTwo(400)
  })
  afterAll(async () => {
    await stopApiProcesses(servers)
  })

  it('never let more than the limit through', async () => {
    const results = await Promise.all(
      Array.from({ length: 600 }, (_, i) => {
        const server = servers[i % 2]
        if (server === undefined) throw new Error('no server')
        return get(server, '/user/', org.member.key)
      }),
    )
    const ok = results.filter((r) => r.status === 200).length
    expect(results.filter((r) => r.status === 429)).toHaveLength(600 - ok)
    expect(ok).toBeLessThanOrEqual(400)
    expect(ok).toBeGreaterThanOrEqual(400 - 2 * (leaseChunk(400) - 1))
    expect(await sharedCount(`key:${org.member.keyId}:user:GET`)).toBe(400)
  })
})
