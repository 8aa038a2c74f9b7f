import { randomBytes } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { Webhook } from 'standardwebhooks'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openDatabase, type DatabaseHandle } from '../../platform/data/database.js'
import { migrateToLatest } from '../../platform/data/migrate.js'
import { systemClock } from '../../platform/data/time.js'
import { startApiProcess, stopApiProcesses, type ApiProcess } from '../../tooling/test-support/api-process.js'
import { apiCall, killHard, waitFor } from '../../tooling/test-support/delivery-check.js'
import { CONTACT_PHONE, INTERNAL_PHONE } from '../../tooling/test-support/sms-scene.js'
import { createOrg, createTestDatabase, type TestDatabase, type TestOrg } from '../../tooling/test-support/test-app.js'
import { startReceiver, type Receiver } from '../../tooling/test-support/webhook-receiver.js'

// A cancelled send never goes out, across a restart: a real api process sends through the http provider to a real
// gateway (a node:http server); a text put in the outbox with a few seconds of send_in is taken back to draft within
// them, the process is killed and started again, and once the window has passed the gateway has not heard of it,
// while a second text, left alone in the same run, did arrive (so a broken cancel would show).

const SECRET = `whsec_${randomBytes(32).toString('base64')}`
const SEND_IN = 4

let testDb: TestDatabase
let database: DatabaseHandle
let org: TestOrg
let receiver: Receiver
const servers: ApiProcess[] = []
const texts: string[] = []
const badSignatures: string[] = []

beforeAll(async () => {
  testDb = await createTestDatabase()
  database = openDatabase(testDb.url)
  await migrateToLatest(database.db)
  org = await createOrg(database, systemClock, 'Restart Texting Co')
  const webhook = new Webhook(SECRET)
  receiver = await startReceiver((request) => {
    try {
      const body = webhook.verify(request.body, {
        'webhook-id': String(request.headers['webhook-id']),
        'webhook-timestamp': String(request.headers['webhook-timestamp']),
        'webhook-signature': String(request.headers['webhook-signature']),
      }) as { text: string }
      texts.push(body.text)
      return { status: 200 }
    } catch (error) {
      badSignatures.push(error instanceof Error ? error.message : String(error))
      return { status: 400 }
    }
  })
}, 60_000)

afterAll(async () => {
  await stopApiProcesses(servers)
  await receiver.close()
  await database.close()
  await testDb.drop()
})

async function start(): Promise<ApiProcess> {
  const server = await startApiProcess(testDb.url, {
    LEADLINE_OUTBOUND_ALLOW_PRIVATE: '1',
    LEADLINE_SMS_PROVIDER: 'http',
    LEADLINE_SMS_PROVIDER_URL: `${receiver.origin}/sms`,
    LEADLINE_SMS_PROVIDER_SECRET: SECRET,
  })
  servers.push(server)
  return server
}

describe('a cancelled send across a restart', () => {
  it('never reaches the provider, while the send left alone does', async () => {
    const first = await start()
    const key = org.member.key
    await apiCall(first, org.admin.key, 'POST', '/phone_number/', { number: INTERNAL_PHONE })
    const lead = await apiCall(first, key, 'POST', '/lead/', { name: 'Restart Co' })
    const message = (text: string) => ({
      lead_id: lead.id,
      status: 'outbox',
      send_in: SEND_IN,
      text,
      local_phone: INTERNAL_PHONE,
      remote_phone: CONTACT_PHONE,
    })
    const cancelled = await apiCall(first, key, 'POST', '/activity/sms/', message('Cancelled within the window'))
    const kept = await apiCall(first, key, 'POST', '/activity/sms/', message('Left alone'))
    const undo = await apiCall(first, key, 'PUT', `/activity/sms/${String(cancelled.id)}/`, { status: 'draft' })
    expect(undo.status).toBe('draft')
    await killHard(first)
    // Both were due SEND_IN seconds after they were written: the process was gone before then.
    expect(Date.now()).toBeLessThan(Date.parse(String(kept.date_created)) + SEND_IN * 1000)

    const second = await start()
    expect(await waitFor(() => texts.length > 0, 30_000)).toBe(true)
    // The gateway heard of the one left alone; give the cancelled one, due at the same moment, more polls to show.
    await sleep(2_500)
    expect(texts).toEqual(['Left alone'])
    expect(badSignatures).toEqual([])
    const sent = await apiCall(second, key, 'GET', `/activity/sms/${String(kept.id)}/`)
    expect(sent.status).toBe('sent')
    const draft = await apiCall(second, key, 'GET', `/activity/sms/${String(cancelled.id)}/`)
    expect(draft.status).toBe('draft')
    // The restarted process made the send: it was still waiting in the database when the first one died.
    const send = await database.db
      .selectFrom('outbox')
      .select(['status', 'lease_owner'])
      .where('ordering_key', '=', `sms:${String(kept.id)}`)
      .executeTakeFirstOrThrow()
    expect(send.status).toBe('delivered')
    expect(send.lease_owner).toContain(`:${String(second.child.pid)}:`)
  }, 120_000)
})
