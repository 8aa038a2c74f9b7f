import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { SessionStore } from './session.js'
import { KEY, SECRET } from './test-support/harness.js'
import { DAY_MS, profile, sessionStoreContract, t0, type StoreTerms } from './test-support/session-store-contract.js'

// Sessions in Postgres (LEADLINE_BFF_SESSION_URL): the same promises as the SQLite file, on a fresh database.

const admin = process.env.LEADLINE_TEST_DB ?? ''
const name = `leadline_bff_test_${randomBytes(6).toString('hex')}`
let url = ''
const opened: SessionStore[] = []

async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: admin })
  await client.connect()
  try {
    await client.query(sql)
  } finally {
    await client.end()
  }
}

beforeAll(async () => {
  if (!admin.startsWith('postgres')) throw new Error('LEADLINE_TEST_DB must name a Postgres server for this file')
  await adminQuery(`CREATE DATABASE ${name}`)
  const target = new URL(admin)
  target.pathname = `/${name}`
  url = target.toString()
})

afterEach(async () => {
  for (const store of opened.splice(0)) await store.close()
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  await client.query('DROP SCHEMA IF EXISTS leadline_bff CASCADE')
  await client.end()
})

afterAll(async () => {
  await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
})

async function open({ idleMinutes = 30, maxAgeMs = 30 * DAY_MS }: StoreTerms = {}): Promise<SessionStore> {
  const store = await SessionStore.open({
    file: undefined,
    postgresUrl: url,
    secret: SECRET,
    idleMs: idleMinutes * 60_000,
    maxAgeMs,
  })
  opened.push(store)
  return store
}

describe('on Postgres', () => {
  sessionStoreContract(open)
})

test('stores that start together make the tables once; neither the key nor the cookie is stored', async () => {
  const stores = await Promise.all(Array.from({ length: 6 }, () => open()))
  const id = await stores[0]?.create(profile, KEY, t0)
  if (id === undefined) throw new Error('no store')
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const { rows } = await client.query<{ text: string }>(
      "SELECT concat_ws(' ', s.*) AS text FROM leadline_bff.session s",
    )
    expect(rows).toHaveLength(1)
    expect(rows[0]?.text.includes(KEY)).toBe(false)
    expect(rows[0]?.text.includes(id)).toBe(false)
    const versions = await client.query('SELECT version FROM leadline_bff.schema_version')
    expect(versions.rows).toEqual([{ version: 1 }])
  } finally {
    await client.end()
  }
  for (const store of stores) expect((await store.get(id, t0))?.email).toBe(profile.email)
})

test('a session database from a newer BFF stops the start with a clear message', async () => {
  await open()
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  await client.query('UPDATE leadline_bff.schema_version SET version = 9')
  await client.end()
  await expect(open()).rejects.toThrow(/LEADLINE_BFF_SESSION_URL.*session schema 9; this BFF knows 1/)
})

test('a server that does not answer is a clear error at the start, and a lost one makes the store unreachable', async () => {
  const dead = new URL(url)
  dead.port = '9'
  await expect(
    SessionStore.open({ file: undefined, postgresUrl: dead.toString(), secret: SECRET, idleMs: 1, maxAgeMs: 1 }),
  ).rejects.toThrow(/the session database \(LEADLINE_BFF_SESSION_URL\) cannot be used/)

  const store = await open()
  expect(await store.reachable()).toBe(true)
  await store.close()
  expect(await store.reachable()).toBe(false)
})
