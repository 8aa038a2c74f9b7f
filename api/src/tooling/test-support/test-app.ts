import { rmSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyBaseLogger, FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import pg from 'pg'
import { buildApp } from '../../app/app.js'
import { loadConfig, type Config } from '../../platform/config.js'
import { openDatabase, type DatabaseHandle } from '../../platform/data/database.js'
import { migrateToLatest } from '../../platform/data/migrate.js'
import { provisionMember, provisionOrganization } from '../../crm/organizations/provision.js'
import { randomBase62 } from '../../platform/security/ids.js'
import type { RateLimiter } from '../../platform/http/rate-limit.js'
import type { Clock } from '../../platform/data/time.js'
import { isIP } from 'node:net'
import type { Resolver } from '../../platform/security/host-check.js'
import type { EventView } from '../../integrations/events/event-view.js'

/**
 * `LEADLINE_TEST_DB` picks the database the API suite runs on: `sqlite` (default; a fresh file per test file)
 * or a Postgres admin URL (a fresh database per test file, created and dropped here).
 */
export const testDatabaseKind = (process.env.LEADLINE_TEST_DB ?? 'sqlite').startsWith('postgres')
  ? 'postgres'
  : 'sqlite'

export interface TestDatabase {
  url: string
  drop(): Promise<void>
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const setting = process.env.LEADLINE_TEST_DB ?? 'sqlite'
  if (!setting.startsWith('postgres')) {
    const dir = mkdtempSync(join(tmpdir(), 'leadline-test-'))
    return {
      url: `sqlite:${join(dir, 'test.db')}`,
      drop: async () => {
        rmSync(dir, { recursive: true, force: true })
      },
    }
  }
  const name = `leadline_test_${randomBase62(12).toLowerCase()}`
  const admin = new pg.Client({ connectionString: setting })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}`)
  await admin.end()
  const url = new URL(setting)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: setting })
      await client.connect()
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await client.end()
    },
  }
}

/** `LEADLINE_STREAM_SECRET` of the test apps and api processes, as `npm start` and the journeys set one. */
export const TEST_STREAM_SECRET = 'test-stream-secret-0123456789abcdef0123456789'

/** `LEADLINE_SECRET_KEY` of the test apps and api processes (32 bytes, hex), as `npm start` generates one. */
export const TEST_SECRET_KEY = '00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff'

/** A controllable clock that still moves forward 1 ms per reading, so creation order is observable. */
export class TestClock implements Clock {
  constructor(private current = new Date('2026-03-01T12:00:00.000Z')) {}
  now(): Date {
    this.current = new Date(this.current.getTime() + 1)
    return new Date(this.current)
  }
  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms)
  }
  set(at: Date): void {
    this.current = new Date(at)
  }
}

export interface TestOrg {
  id: string
  admin: { id: string; key: string; keyId: string; membershipId: string }
  member: { id: string; key: string; keyId: string; membershipId: string }
}

export interface TestContext {
  app: FastifyInstance
  database: DatabaseHandle
  clock: TestClock
  config: Config
  /** An organization with an admin and a plain user. */
  org: TestOrg
  /** A second organization, for cross-organization checks. */
  other: TestOrg
  createOrg(name: string): Promise<TestOrg>
  close(): Promise<void>
}

export async function createOrg(database: DatabaseHandle, clock: Clock, name: string): Promise<TestOrg> {
  const slug = randomBase62(8).toLowerCase()
  const admin = await provisionOrganization(database.db, clock, {
    name,
    email: `admin-${slug}@example.com`,
    firstName: 'Ada',
    lastName: 'Admin',
  })
  const member = await provisionMember(database.db, clock, {
    organizationId: admin.organization_id,
    email: `rep-${slug}@example.com`,
    role: 'user',
    firstName: 'Rey',
    lastName: 'Rep',
  })
  return {
    id: admin.organization_id,
    admin: { id: admin.user_id, key: admin.api_key, keyId: admin.api_key_id, membershipId: admin.membership_id },
    member: { id: member.user_id, key: member.api_key, keyId: member.api_key_id, membershipId: member.membership_id },
  }
}

export async function createTestContext(
  options: { env?: NodeJS.ProcessEnv; rateLimiter?: RateLimiter; logger?: FastifyBaseLogger } = {},
): Promise<TestContext> {
  const testDb = await createTestDatabase()
  const database = openDatabase(testDb.url)
  await migrateToLatest(database.db)
  const clock = new TestClock()
  const config = loadConfig({
    DATABASE_URL: testDb.url,
    LEADLINE_STREAM_SECRET: TEST_STREAM_SECRET,
    LEADLINE_SECRET_KEY: TEST_SECRET_KEY,
    ...options.env,
  })
  const app = await buildApp({
    database,
    config,
    clock,
    logger: options.logger ?? false,
    resolve: testResolver,
    ...(options.rateLimiter === undefined ? {} : { rateLimiter: options.rateLimiter }),
  })
  const org = await createOrg(database, clock, 'Acme Inc')
  const other = await createOrg(database, clock, 'Globex')
  return {
    app,
    database,
    clock,
    config,
    org,
    other,
    createOrg: (name) => createOrg(database, clock, name),
    close: async () => {
      await app.close()
      await database.close()
      await testDb.drop()
    },
  }
}

/**
 * A second api instance on its own connection to the test context's database, as another process would be; close it
 * before the context.
 */
export async function openSecondApi(
  ctx: TestContext,
): Promise<{ database: DatabaseHandle; app: FastifyInstance; close(): Promise<void> }> {
  const database = openDatabase(ctx.config.databaseUrl)
  const app = await buildApp({
    database,
    config: ctx.config,
    clock: new TestClock(),
    logger: false,
    resolve: testResolver,
  })
  return {
    database,
    app,
    close: async () => {
      await app.close()
      await database.close()
    },
  }
}

export function basicAuth(key: string): string {
  return `Basic ${Buffer.from(`${key}:`).toString('base64')}`
}

/** `inject` as a given API key; `path` is below `/api/v1`. */
export async function call(
  app: FastifyInstance,
  key: string | undefined,
  method: InjectOptions['method'],
  path: string,
  options: { body?: unknown; headers?: Record<string, string>; query?: Record<string, string> } = {},
): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = { ...options.headers }
  if (key !== undefined) headers.authorization = basicAuth(key)
  return app.inject({
    method,
    url: `/api/v1${path}`,
    headers,
    ...(options.query === undefined ? {} : { query: options.query }),
    ...(options.body === undefined
      ? {}
      : { payload: JSON.stringify(options.body), headers: { 'content-type': 'application/json', ...headers } }),
  })
}

/** An event as `/event/` answers it, with its JSON parts typed as tests read them (`data` is null when deleted). */
export type TestEvent = Omit<EventView, 'data' | 'previous_data' | 'changed_fields' | 'meta'> & {
  data: Record<string, unknown> | null
  previous_data: Record<string, unknown>
  changed_fields: string[]
  meta: Record<string, unknown>
}

/**
 * How the test apps resolve the hosts of URLs people save (webhooks, providers): as this machine does without a network,
 * but at once. The system's resolver depends on the machine's DNS, which may stall a lookup for seconds and make a
 * timed test fail for no fault of the code; tests of resolution itself give their own resolver.
 */
export const testResolver: Resolver = (hostname) => {
  const name = hostname.toLowerCase().replace(/\.$/, '')
  if (isIP(name) !== 0) return Promise.resolve([{ address: name, family: isIP(name) }])
  if (name === 'localhost' || name.endsWith('.localhost')) return Promise.resolve([{ address: '127.0.0.1', family: 4 }])
  return Promise.reject(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }))
}
