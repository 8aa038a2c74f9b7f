import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sql } from 'kysely'
import { buildApp } from '../../app/app.js'
import { createTestContext, createTestDatabase, type TestContext } from '../../tooling/test-support/test-app.js'
import { openDatabase } from '../data/database.js'
import { migrateToLatest } from '../data/migrate.js'
import { readinessReport, type Readiness } from './health-routes.js'

// /healthz and /readyz on both databases (LEADLINE_TEST_DB): open to anyone, never cached, and /readyz 503 for each
// of its three reasons. cli.test.ts sees a real process turn not ready on SIGTERM and still serve while it drains.

let ctx: TestContext
const readiness: Readiness = { draining: false }
let app: TestContext['app']

beforeAll(async () => {
  ctx = await createTestContext()
  app = await buildApp({ database: ctx.database, config: ctx.config, clock: ctx.clock, logger: false, readiness })
})

afterAll(async () => {
  await app.close()
  await ctx.close()
})

async function probe(path: '/healthz' | '/readyz') {
  const res = await app.inject({ method: 'GET', url: path })
  return { status: res.statusCode, body: res.json<Record<string, unknown>>(), cache: res.headers['cache-control'] }
}

describe('/healthz and /readyz', () => {
  it('answers without a key, uncached: alive, and ready with the database and its migrations current', async () => {
    expect(await probe('/healthz')).toEqual({ status: 200, body: { status: 'ok' }, cache: 'no-store' })
    expect(await probe('/readyz')).toEqual({
      status: 200,
      body: { status: 'ready', database: 'ok', migrations: 'current', draining: false, warming: false },
      cache: 'no-store',
    })
    // Not part of the documented API, and no rate limit counted against the prober's address.
    const res = await app.inject({ method: 'GET', url: '/readyz' })
    expect(res.headers['x-rate-limit-limit']).toBeUndefined()
    const docs = await app.inject({ method: 'GET', url: '/api/v1/openapi.json' })
    const paths = Object.keys(docs.json<{ paths: object }>().paths)
    expect(paths).toContain('/api/v1/lead/')
    expect(paths).not.toContain('/healthz')
    expect(paths).not.toContain('/readyz')
  })

  it('is not ready while draining, though still alive', async () => {
    readiness.draining = true
    try {
      expect(await probe('/readyz')).toMatchObject({ status: 503, body: { status: 'not ready', draining: true } })
      expect((await probe('/healthz')).status).toBe(200)
    } finally {
      readiness.draining = false
    }
    expect((await probe('/readyz')).status).toBe(200)
  })

  it('is not ready while it builds its lead indexes after a start, though still alive', async () => {
    readiness.warming = true
    try {
      expect(await probe('/readyz')).toMatchObject({
        status: 503,
        body: { status: 'not ready', draining: false, warming: true },
      })
      expect((await probe('/healthz')).status).toBe(200)
    } finally {
      readiness.warming = false
    }
    expect(await probe('/readyz')).toMatchObject({ status: 200, body: { status: 'ready', warming: false } })
  })

  it('is not ready when a migration of this build is missing, or a newer build migrated the database', async () => {
    const db = ctx.database.db
    const { rows } = await sql<{ name: string; timestamp: string }>`
      select name, timestamp from leadline_migration order by name desc limit 1`.execute(db)
    const last = rows[0]
    if (last === undefined) throw new Error('no migrations applied')
    await sql`delete from leadline_migration where name = ${last.name}`.execute(db)
    try {
      expect(await probe('/readyz')).toMatchObject({ status: 503, body: { migrations: 'pending', database: 'ok' } })
    } finally {
      await sql`insert into leadline_migration (name, timestamp) values (${last.name}, ${last.timestamp})`.execute(db)
    }
    await sql`insert into leadline_migration (name, timestamp) values ('9999-from-a-newer-build', ${last.timestamp})`.execute(
      db,
    )
    try {
      expect(await probe('/readyz')).toMatchObject({ status: 503, body: { migrations: 'newer' } })
    } finally {
      await sql`delete from leadline_migration where name = '9999-from-a-newer-build'`.execute(db)
    }
    expect((await probe('/readyz')).status).toBe(200)
  })

  it('calls a database that does not answer unreachable, and its migrations unknown', async () => {
    const testDb = await createTestDatabase()
    const closed = openDatabase(testDb.url)
    try {
      await migrateToLatest(closed.db)
      expect(await readinessReport(closed.db, { draining: false })).toMatchObject({ status: 'ready' })
    } finally {
      await closed.close()
    }
    try {
      expect(await readinessReport(closed.db, { draining: false })).toEqual({
        status: 'not ready',
        database: 'unreachable',
        migrations: 'unknown',
        draining: false,
        warming: false,
      })
    } finally {
      await testDb.drop()
    }
  })
})
