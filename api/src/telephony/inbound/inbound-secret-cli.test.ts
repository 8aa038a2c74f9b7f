import { execFile } from 'node:child_process'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../../app/app.js'
import { loadConfig } from '../../platform/config.js'
import { openDatabase, type DatabaseHandle } from '../../platform/data/database.js'
import { migrateToLatest } from '../../platform/data/migrate.js'
import { cliPath } from '../../tooling/test-support/api-process.js'
import { signedPost } from '../../tooling/test-support/inbound-client.js'
import {
  call,
  createOrg,
  createTestDatabase,
  TestClock,
  type TestDatabase,
  type TestOrg,
} from '../../tooling/test-support/test-app.js'

// `leadline inbound-secret show|rotate` as an operator runs it: the built CLI in its own process, on the database an
// api serves, which takes requests signed with what the CLI printed.

let testDb: TestDatabase
let database: DatabaseHandle
let app: FastifyInstance
let org: TestOrg
const clock = new TestClock(new Date())

beforeAll(async () => {
  testDb = await createTestDatabase()
  database = openDatabase(testDb.url)
  await migrateToLatest(database.db)
  app = await buildApp({ database, config: loadConfig({ DATABASE_URL: testDb.url }), clock, logger: false })
  org = await createOrg(database, clock, 'Operators')
})

afterAll(async () => {
  await app.close()
  await database.close()
  await testDb.drop()
})

function leadline(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [cliPath, ...args, '--db', testDb.url], (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : Number(error.code), stdout, stderr })
    })
  })
}

async function json(args: string[]): Promise<{ organization_id: string; secret: string; date_created: string }> {
  const result = await leadline([...args, '--json'])
  expect(result.code, result.stderr).toBe(0)
  return JSON.parse(result.stdout) as { organization_id: string; secret: string; date_created: string }
}

function sms(secret: string, id: string) {
  return signedPost(app, clock, 'sms', {
    organizationId: org.id,
    secret,
    body: { id, remote_phone: '+16175550100', local_phone: '+16175550199', text: 'From the CLI’s secret' },
  })
}

// Each run starts a process that loads the whole api: seconds apiece on a busy machine.
describe('leadline inbound-secret', { timeout: 120_000 }, () => {
  it('shows the secret admins see, rotates it, and the api takes only the current one', async () => {
    const number = await call(app, org.admin.key, 'POST', '/phone_number/', { body: { number: '+16175550199' } })
    expect(number.statusCode).toBe(200)

    const shown = await json(['inbound-secret', 'show', '--org', org.id])
    expect(shown).toEqual({
      organization_id: org.id,
      secret: expect.stringMatching(/^whsec_/),
      date_created: expect.any(String),
    })
    expect(await json(['inbound-secret', 'show', '--org', org.id])).toEqual(shown)
    const admin = await call(app, org.admin.key, 'GET', '/inbound/secret/')
    expect(admin.json()).toEqual(shown)
    expect((await sms(shown.secret, 'SM-cli-1')).statusCode).toBe(200)

    const rotated = await json(['inbound-secret', 'rotate', '--org', org.id])
    expect(rotated.secret).not.toBe(shown.secret)
    expect((await call(app, org.admin.key, 'GET', '/inbound/secret/')).json()).toEqual(rotated)
    expect((await sms(shown.secret, 'SM-cli-2')).statusCode).toBe(401)
    expect((await sms(rotated.secret, 'SM-cli-2')).statusCode).toBe(200)

    const text = await leadline(['inbound-secret', 'show', '--org', org.id])
    expect(text.code).toBe(0)
    expect(text.stdout).toContain(rotated.secret)
  })

  it('refuses an unknown organization and a missing --org', async () => {
    const unknown = await leadline(['inbound-secret', 'rotate', '--org', 'orga_nobody'])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain('unknown organization "orga_nobody"')
    const missing = await leadline(['inbound-secret', 'show'])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('missing required option --org ORG_ID')
    const nothing = await leadline(['inbound-secret'])
    expect(nothing.code).toBe(2)
    expect(nothing.stderr).toContain('leadline inbound-secret show')
  })
})
