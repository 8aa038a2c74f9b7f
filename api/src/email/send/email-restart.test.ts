import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openDatabase, type DatabaseHandle } from '../../platform/data/database.js'
import { migrateToLatest } from '../../platform/data/migrate.js'
import { systemClock } from '../../platform/data/time.js'
import { startApiProcess, stopApiProcesses, type ApiProcess } from '../../tooling/test-support/api-process.js'
import { apiCall, killHard, waitFor } from '../../tooling/test-support/delivery-check.js'
import { addEmailAccount, CONTACT_ADDRESS, REP_ADDRESS } from '../../tooling/test-support/email-scene.js'
import { startSmtpSink, type SmtpSink } from '../../tooling/test-support/smtp-sink.js'
import { createOrg, createTestDatabase, type TestDatabase, type TestOrg } from '../../tooling/test-support/test-app.js'

// A cancelled email never goes out, across a restart: a real api process sends through a real SMTP server; an email
// put in the outbox with a few seconds of send_in is taken back to draft within them, the process is killed and
// started again, and once the window has passed the server has not seen it, while a second email, left alone in the
// same run, did arrive (so a broken cancel would show).

const SEND_IN = 4

let testDb: TestDatabase
let database: DatabaseHandle
let org: TestOrg
let sink: SmtpSink
const servers: ApiProcess[] = []

beforeAll(async () => {
  testDb = await createTestDatabase()
  database = openDatabase(testDb.url)
  await migrateToLatest(database.db)
  org = await createOrg(database, systemClock, 'Restart Mailing Co')
  sink = await startSmtpSink()
  await addEmailAccount(database.db, {
    organizationId: org.id,
    userId: org.member.id,
    email: REP_ADDRESS,
    smtp: { host: sink.host, port: sink.port },
  })
}, 60_000)

afterAll(async () => {
  await stopApiProcesses(servers)
  await sink.close()
  await database.close()
  await testDb.drop()
})

async function start(): Promise<ApiProcess> {
  const server = await startApiProcess(testDb.url, { LEADLINE_OUTBOUND_ALLOW_PRIVATE: '1' })
  servers.push(server)
  return server
}

describe('a cancelled email across a restart', () => {
  it('never reaches the SMTP server, while the email left alone does', async () => {
    const first = await start()
    const key = org.member.key
    const lead = await apiCall(first, key, 'POST', '/lead/', { name: 'Restart Co' })
    const email = (subject: string) => ({
      lead_id: lead.id,
      status: 'outbox',
      send_in: SEND_IN,
      subject,
      body_text: subject,
      sender: REP_ADDRESS,
      to: [CONTACT_ADDRESS],
    })
    const cancelled = await apiCall(first, key, 'POST', '/activity/email/', email('Cancelled within the window'))
    const kept = await apiCall(first, key, 'POST', '/activity/email/', email('Left alone'))
    const undo = await apiCall(first, key, 'PUT', `/activity/email/${String(cancelled.id)}/`, { status: 'draft' })
    expect(undo.status).toBe('draft')
    await killHard(first)
    // Both were due SEND_IN seconds after they were written: the process was gone before then.
    expect(Date.now()).toBeLessThan(Date.parse(`${String(kept.date_created)}Z`) + SEND_IN * 1000)

    const second = await start()
    expect(await waitFor(() => sink.received.length > 0, 30_000)).toBe(true)
    // The server saw the one left alone; give the cancelled one, due at the same moment, more polls to show.
    await sleep(2_500)
    expect(sink.received.map((m) => m.parsed.subject)).toEqual(['Left alone'])
    const sent = await apiCall(second, key, 'GET', `/activity/email/${String(kept.id)}/`)
    expect(sent.status).toBe('sent')
    const draft = await apiCall(second, key, 'GET', `/activity/email/${String(cancelled.id)}/`)
    expect(draft.status).toBe('draft')
    const send = await database.db
      .selectFrom('outbox')
      .select(['status', 'lease_owner'])
      .where('ordering_key', '=', `email:${String(kept.id)}`)
      .executeTakeFirstOrThrow()
    expect(send.status).toBe('delivered')
    expect(send.lease_owner).toContain(`:${String(second.child.pid)}:`)
  }, 120_000)
})
