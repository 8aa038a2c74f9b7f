import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../../app/app.js'
import { loadConfig } from '../config.js'
import { openDatabase, type DatabaseHandle } from '../data/database.js'
import { migrateToLatest } from '../data/migrate.js'
import { leadWebhookSigningKey } from '../../integrations/outbox/lead-webhook.js'
import { cliPath } from '../../tooling/test-support/api-process.js'
import { addEmailAccount } from '../../tooling/test-support/email-scene.js'
import { inboundSecretOf, signedPost } from '../../tooling/test-support/inbound-client.js'
import {
  call,
  createOrg,
  createTestDatabase,
  TEST_SECRET_KEY,
  TestClock,
  type TestDatabase,
  type TestOrg,
} from '../../tooling/test-support/test-app.js'
import { SecretOpenError, secretBoxFrom, type SecretBox } from './secret-box.js'
import { resealSecrets } from './stored-secrets.js'

// `leadline secret-key rotate` as an operator runs it: the built CLI in its own process, on the database an api
// serves. Every secret the api stores sealed is sealed again under the new key, and an api given the new key works on.

const NEW_KEY = 'ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100'
const oldBox = secretBoxFrom({ LEADLINE_SECRET_KEY: TEST_SECRET_KEY }) as SecretBox
const newBox = secretBoxFrom({ LEADLINE_SECRET_KEY: NEW_KEY }) as SecretBox

let testDb: TestDatabase
let database: DatabaseHandle
let org: TestOrg
let dir: string
const clock = new TestClock(new Date())
const apps: FastifyInstance[] = []

async function appWith(key: string | undefined): Promise<FastifyInstance> {
  const env = { DATABASE_URL: testDb.url, ...(key === undefined ? {} : { LEADLINE_SECRET_KEY: key }) }
  const app = await buildApp({ database, config: loadConfig(env), clock, logger: false })
  apps.push(app)
  return app
}

beforeAll(async () => {
  testDb = await createTestDatabase()
  database = openDatabase(testDb.url)
  await migrateToLatest(database.db)
  org = await createOrg(database, clock, 'Key holders')
  dir = mkdtempSync(join(tmpdir(), 'leadline-key-'))
})

afterAll(async () => {
  for (const app of apps) await app.close()
  await database.close()
  await testDb.drop()
  rmSync(dir, { recursive: true, force: true })
})

function leadline(args: string[], key: string | undefined) {
  const env: NodeJS.ProcessEnv = { ...process.env }
  delete env.LEADLINE_SECRET_KEY
  if (key !== undefined) env.LEADLINE_SECRET_KEY = key
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, [cliPath, ...args, '--db', testDb.url], { env }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : Number(error.code), stdout, stderr })
    })
  })
}

/** Every stored secret, as stored. */
async function stored() {
  const db = database.db
  return {
    webhook: await db.selectFrom('webhook_subscription').select(['id', 'signature_key']).executeTakeFirstOrThrow(),
    inbound: (await db.selectFrom('inbound_secret').selectAll().executeTakeFirstOrThrow()).secret,
    lead: (
      await db
        .selectFrom('app_state')
        .select('value')
        .where('key', '=', 'lead_webhook_signature_key')
        .executeTakeFirstOrThrow()
    ).value,
    smtp: await db.selectFrom('email_account').select(['id', 'smtp_password']).executeTakeFirstOrThrow(),
  }
}

function opened(box: SecretBox, values: Awaited<ReturnType<typeof stored>>) {
  return {
    webhook: box.open(values.webhook.signature_key, `webhook_subscription:${values.webhook.id}`),
    inbound: box.open(values.inbound, `inbound_secret:${org.id}`),
    lead: box.open(values.lead, 'app_state:lead_webhook_signature_key'),
    smtp: box.open(values.smtp.smtp_password ?? '', values.smtp.id),
  }
}

function sms(app: FastifyInstance, secret: string, id: string) {
  return signedPost(app, clock, 'sms', {
    organizationId: org.id,
    secret,
    body: { id, remote_phone: '+16175550100', local_phone: '+16175550199', text: 'Signed' },
  })
}

// Each run starts a process that loads the whole api: seconds apiece on a busy machine.
describe('leadline secret-key rotate', { timeout: 120_000 }, () => {
  it('seals every secret under the new key in one go; the old key opens none of them, the api runs on the new', async () => {
    const app = await appWith(TEST_SECRET_KEY)
    expect(
      (await call(app, org.admin.key, 'POST', '/phone_number/', { body: { number: '+16175550199' } })).statusCode,
    ).toBe(200)
    const hook = await call(app, org.admin.key, 'POST', '/webhook/', {
      body: { url: 'https://hooks.example.com/in', events: [{ object_type: 'lead', action: 'created' }] },
    })
    expect(hook.statusCode, hook.body).toBe(201)
    const inbound = await inboundSecretOf(app, org)
    const leadKey = await leadWebhookSigningKey(database.db, oldBox)
    await addEmailAccount(database.db, {
      organizationId: org.id,
      userId: org.member.id,
      email: 'rey@keys.example',
      smtp: { host: 'smtp.keys.example', port: 465, password: 'smtp-password-1' },
    })
    const at = new Date().toISOString()
    await database.db
      .insertInto('single_sign_on')
      .values({
        organization_id: org.id,
        issuer: 'https://idp.keys.example',
        client_id: 'leadline',
        client_secret: oldBox.seal('sso-client-secret-1', `single_sign_on:${org.id}`),
        enabled: 1,
        required: 0,
        date_created: at,
        date_updated: at,
      })
      .execute()
    const before = await stored()
    const clear = {
      webhook: hook.json<{ signature_key: string }>().signature_key,
      inbound: Buffer.from(inbound.replace(/^whsec_/, ''), 'base64').toString('hex'),
      lead: leadKey,
      smtp: 'smtp-password-1',
    }
    // Stored sealed: none of the stored values is or holds its secret.
    for (const [name, value] of Object.entries(clear)) expect(JSON.stringify(before), name).not.toContain(value)
    expect(opened(oldBox, before)).toEqual(clear)

    // A wrong current key, or a bad new one: refused, nothing changes.
    const file = join(dir, 'new-key')
    writeFileSync(file, `${NEW_KEY}\n`)
    const wrong = await leadline(['secret-key', 'rotate', '--new-key-file', file, '--json'], NEW_KEY)
    expect(wrong.code).toBe(1)
    expect(wrong.stderr).toMatch(/does not open with this server's LEADLINE_SECRET_KEY/)
    const bad = join(dir, 'bad-key')
    writeFileSync(bad, 'not a key')
    expect((await leadline(['secret-key', 'rotate', '--new-key-file', bad], TEST_SECRET_KEY)).code).toBe(2)
    expect((await leadline(['secret-key', 'rotate'], TEST_SECRET_KEY)).code).toBe(2)
    expect(await stored()).toEqual(before)

    const rotated = await leadline(['secret-key', 'rotate', '--new-key-file', file, '--json'], TEST_SECRET_KEY)
    expect(rotated.code, rotated.stderr).toBe(0)
    expect(JSON.parse(rotated.stdout)).toEqual({
      resealed: {
        webhook_signature_keys: 1,
        inbound_secrets: 1,
        lead_webhook_signature_key: 1,
        smtp_passwords: 1,
        totp_secrets: 0,
        single_sign_on_client_secrets: 1,
      },
    })
    expect(rotated.stdout + rotated.stderr).not.toContain(NEW_KEY)
    expect(rotated.stdout + rotated.stderr).not.toContain(TEST_SECRET_KEY)

    const after = await stored()
    expect(opened(newBox, after)).toEqual(clear)
    expect(() => oldBox.open(after.webhook.signature_key, `webhook_subscription:${after.webhook.id}`)).toThrow(
      SecretOpenError,
    )
    expect(() => oldBox.open(after.inbound, `inbound_secret:${org.id}`)).toThrow(SecretOpenError)
    expect(() => oldBox.open(after.lead, 'app_state:lead_webhook_signature_key')).toThrow(SecretOpenError)
    expect(() => oldBox.open(after.smtp.smtp_password ?? '', after.smtp.id)).toThrow(SecretOpenError)
    const sso = await database.db
      .selectFrom('single_sign_on')
      .select('client_secret')
      .where('organization_id', '=', org.id)
      .executeTakeFirstOrThrow()
    expect(newBox.open(sso.client_secret ?? '', `single_sign_on:${org.id}`)).toBe('sso-client-secret-1')
    expect(() => oldBox.open(sso.client_secret ?? '', `single_sign_on:${org.id}`)).toThrow(SecretOpenError)

    // An api given the new key shows the same inbound secret and takes requests signed with it.
    const renewed = await appWith(NEW_KEY)
    expect(await inboundSecretOf(renewed, org)).toBe(inbound)
    expect((await sms(renewed, inbound, 'SM-rotated-1')).statusCode).toBe(200)
    expect(await leadWebhookSigningKey(database.db, newBox)).toBe(leadKey)
  })

  it('seals what a server without a key stored in the clear, and prints a generated key only with --generate', async () => {
    const keyless = await createOrg(database, clock, 'No key yet')
    const app = await appWith(undefined)
    const secret = await inboundSecretOf(app, keyless)
    const clearRow = await database.db
      .selectFrom('inbound_secret')
      .select('secret')
      .where('organization_id', '=', keyless.id)
      .executeTakeFirstOrThrow()
    expect(clearRow.secret).toMatch(/^[0-9a-f]{64}$/)

    const made = await leadline(['secret-key', 'rotate', '--generate', '--json'], NEW_KEY)
    expect(made.code, made.stderr).toBe(0)
    const output = JSON.parse(made.stdout) as { resealed: Record<string, number>; new_key: string }
    expect(output.new_key).toMatch(/^[0-9a-f]{64}$/)
    expect(output.resealed.inbound_secrets).toBe(2)
    const generated = await appWith(output.new_key)
    expect(await inboundSecretOf(generated, keyless)).toBe(secret)
    const sealedRow = await database.db
      .selectFrom('inbound_secret')
      .select('secret')
      .where('organization_id', '=', keyless.id)
      .executeTakeFirstOrThrow()
    expect(sealedRow.secret).toMatch(/^v1:/)
  })

  it('at start, seals only what is in the clear and leaves what is sealed as it is', async () => {
    await inboundSecretOf(await appWith(TEST_SECRET_KEY), await createOrg(database, clock, 'Sealed at start'))
    const keyless = await createOrg(database, clock, 'Clear at start')
    await inboundSecretOf(await appWith(undefined), keyless)
    const rowsBefore = await database.db.selectFrom('inbound_secret').select(['organization_id', 'secret']).execute()
    const sealedBefore = rowsBefore.filter((row) => row.secret.startsWith('v1:'))
    expect(sealedBefore.length).toBeGreaterThan(0)
    const clear = rowsBefore.find((row) => row.organization_id === keyless.id)?.secret
    expect(clear).toMatch(/^[0-9a-f]{64}$/)

    const box = secretBoxFrom({ LEADLINE_SECRET_KEY: NEW_KEY }) as SecretBox
    const counts = await database.db.transaction().execute((tx) => resealSecrets(tx, null, box, true))
    expect(counts.inbound_secrets).toBe(1)
    const rowsAfter = await database.db.selectFrom('inbound_secret').select(['organization_id', 'secret']).execute()
    for (const row of sealedBefore) expect(rowsAfter).toContainEqual(row)
    const sealedNow = rowsAfter.find((row) => row.organization_id === keyless.id)
    expect(sealedNow?.secret).toMatch(/^v1:/)
    expect(box.open(sealedNow?.secret ?? '', `inbound_secret:${keyless.id}`)).toBe(clear)
  })
})
