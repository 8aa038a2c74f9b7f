import { execFile } from 'node:child_process'
import { setTimeout as delay } from 'node:timers/promises'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cliPath, startApiProcess, stopApiProcesses, type ApiProcess } from '../../tooling/test-support/api-process.js'
import { openDatabase, type DatabaseHandle } from './database.js'
import { migrateToLatest } from './migrate.js'
import { provisionMember } from '../../crm/organizations/provision.js'
import {
  basicAuth,
  createOrg,
  createTestDatabase,
  TestClock,
  type TestDatabase,
  type TestOrg,
} from '../../tooling/test-support/test-app.js'

// Two real `leadline serve` processes on one Postgres database, each with its own caches: what one process
// changes, the other serves at once (metadata, lead views), and a key revoked anywhere is refused by both within
// the auth cache window.

const run = promisify(execFile)

let testDb: TestDatabase
let database: DatabaseHandle
let servers: ApiProcess[] = []
let org: TestOrg

beforeAll(async () => {
  testDb = await createTestDatabase()
  database = openDatabase(testDb.url)
  await migrateToLatest(database.db)
  org = await createOrg(database, new TestClock(), 'Two Processes Co')
  servers = await Promise.all([startApiProcess(testDb.url), startApiProcess(testDb.url)])
})

afterAll(async () => {
  await stopApiProcesses(servers)
  await database.close()
  await testDb.drop()
})

function server(n: 1 | 2): string {
  const found = servers[n - 1]
  if (found === undefined) throw new Error(`api process ${String(n)} did not start`)
  return found.url
}

async function request(n: 1 | 2, key: string, method: string, path: string, body?: Record<string, unknown>) {
  const res = await fetch(`${server(n)}/api/v1${path}`, {
    method,
    headers: {
      authorization: basicAuth(key),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const text = await res.text()
  return { status: res.status, text, json: () => JSON.parse(text) }
}

/** A request that must answer 200; its parsed body. */
async function ok(n: 1 | 2, key: string, method: string, path: string, body?: Record<string, unknown>) {
  const res = await request(n, key, method, path, body)
  expect(res.status, `process ${String(n)}: ${method} ${path}: ${res.text}`).toBe(200)
  return res.json()
}

function idOf(value: { id?: unknown } | undefined): string {
  expect(value?.id).toEqual(expect.any(String))
  return String(value?.id)
}

describe('two leadline serve processes on one Postgres database', () => {
  it('a lead status renamed through process 1 is seen renamed on a lead process 2 had already served', async () => {
    const lead = idOf(await ok(1, org.member.key, 'POST', '/lead/', { name: 'Initech', status: 'Qualified' }))
    const search = `/lead/?query=${encodeURIComponent(`id:${lead}`)}`
    for (let i = 0; i < 2; i++) {
      expect(await ok(2, org.member.key, 'GET', `/lead/${lead}/`)).toMatchObject({ status_label: 'Qualified' })
      expect(await ok(2, org.member.key, 'GET', search)).toMatchObject({
        data: [{ id: lead, status_label: 'Qualified' }],
      })
    }
    const statuses = await ok(1, org.admin.key, 'GET', '/status/lead/')
    const qualified = statuses.data.find((s: { label: unknown }) => s.label === 'Qualified')
    await ok(1, org.admin.key, 'PUT', `/status/lead/${idOf(qualified)}/`, { label: 'Sales qualified' })
    expect(await ok(2, org.member.key, 'GET', `/lead/${lead}/`)).toMatchObject({
      status_id: idOf(qualified),
      status_label: 'Sales qualified',
    })
    expect(await ok(2, org.member.key, 'GET', search)).toMatchObject({
      data: [{ id: lead, status_label: 'Sales qualified' }],
    })
  })

  it('a custom field added through process 1 takes a value in a lead write through process 2 at once', async () => {
    const lead = idOf(await ok(1, org.member.key, 'POST', '/lead/', { name: 'Initrode' }))
    // Process 2 has the organization's metadata cached from before the field existed.
    await ok(2, org.member.key, 'GET', `/lead/${lead}/`)
    await ok(2, org.member.key, 'GET', `/lead/${lead}/`)
    const field = idOf(await ok(1, org.admin.key, 'POST', '/custom_field/lead/', { name: 'Region', type: 'text' }))
    const written = await ok(2, org.member.key, 'PUT', `/lead/${lead}/`, { [`custom.${field}`]: 'EMEA' })
    expect(written).toMatchObject({ [`custom.${field}`]: 'EMEA', custom: { Region: 'EMEA' } })
    expect(await ok(1, org.member.key, 'GET', `/lead/${lead}/`)).toMatchObject({ [`custom.${field}`]: 'EMEA' })
    expect(await ok(2, org.member.key, 'GET', `/lead/${lead}/`)).toMatchObject({ [`custom.${field}`]: 'EMEA' })

    // A choice added through process 1 is a valid value in process 2 at once, by the field's name too.
    const tier = idOf(
      await ok(1, org.admin.key, 'POST', '/custom_field/lead/', { name: 'Tier', type: 'choices', choices: ['Gold'] }),
    )
    await ok(2, org.member.key, 'PUT', `/lead/${lead}/`, { [`custom.${tier}`]: 'Gold' })
    await ok(1, org.admin.key, 'PUT', `/custom_field/lead/${tier}/`, { choices: ['Gold', 'Platinum'] })
    const upgraded = await ok(2, org.member.key, 'PUT', `/lead/${lead}/`, { 'custom.Tier': 'Platinum' })
    expect(upgraded).toMatchObject({ [`custom.${tier}`]: 'Platinum', custom: { Region: 'EMEA', Tier: 'Platinum' } })
  })

  it('a key revoked with `leadline key revoke` is refused by both processes within the auth cache window', async () => {
    const rep = await provisionMember(database.db, new TestClock(), {
      organizationId: org.id,
      email: 'revoked-rep@example.com',
      role: 'user',
    })
    const keyId = rep.api_key.split('.')[0] ?? ''
    for (const n of [1, 2] as const) expect((await request(n, rep.api_key, 'GET', '/me/')).status).toBe(200)
    await run(process.execPath, [cliPath, 'key', 'revoke', keyId, '--db', testDb.url, '--json'])

    // Bounded: the window is 5 s; 8 s leaves room for a busy machine.
    const deadline = Date.now() + 8000
    const refused = new Set<1 | 2>()
    while (refused.size < 2 && Date.now() < deadline) {
      for (const n of [1, 2] as const) {
        const status = (await request(n, rep.api_key, 'GET', '/me/')).status
        if (refused.has(n)) expect(status, `process ${String(n)} accepted the key again`).toBe(401)
        else if (status === 401) refused.add(n)
        else expect(status).toBe(200)
      }
      if (refused.size < 2) await delay(100)
    }
    expect([...refused].sort()).toEqual([1, 2])
    for (let i = 0; i < 3; i++) {
      for (const n of [1, 2] as const) {
        const res = await request(n, rep.api_key, 'GET', '/me/')
        expect(res.status).toBe(401)
        expect(res.json()).toEqual({ error: expect.any(String) })
      }
    }
    for (const n of [1, 2] as const) expect((await request(n, org.member.key, 'GET', '/me/')).status).toBe(200)
  })
})
