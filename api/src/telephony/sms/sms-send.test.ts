import { randomBytes } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { Webhook } from 'standardwebhooks'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createOutboundClient } from '../../integrations/outbound/outbound-client.js'
import type { Dispatcher } from '../../integrations/outbox/outbox-dispatcher.js'
import { formatTimestamp } from '../../platform/data/time.js'
import {
  call,
  createTestContext,
  type TestContext,
  type TestEvent,
  type TestOrg,
} from '../../tooling/test-support/test-app.js'
import {
  CONTACT_PHONE,
  INTERNAL_PHONE,
  smsDispatcher,
  smsScene,
  type SmsScene,
} from '../../tooling/test-support/sms-scene.js'
import { startReceiver, type Receiver } from '../../tooling/test-support/webhook-receiver.js'
import { httpSmsProvider, logSmsProvider, type SmsProvider } from './sms-provider.js'
import { SMS_RETRY_WINDOW_MS } from './sms-send.js'

// Sending through the dispatcher, with a real HTTP gateway (a node:http server on loopback) behind the http provider.

const SECRET = `whsec_${randomBytes(32).toString('base64')}`

let ctx: TestContext
let receiver: Receiver
let org: TestOrg
let scene: SmsScene
let dispatcher: Dispatcher

beforeAll(async () => {
  ctx = await createTestContext({ env: { LEADLINE_OUTBOUND_ALLOW_PRIVATE: '1' } })
  receiver = await startReceiver()
})
afterAll(async () => {
  await receiver.close()
  await ctx.close()
})
beforeEach(async () => {
  // Real time, so the Standard Webhooks library accepts the timestamps; the test clock still moves only when told.
  ctx.clock.set(new Date())
  receiver.requests.length = 0
  receiver.respondWith(() => ({ status: 202 }))
  org = await ctx.createOrg('Texters')
  scene = await smsScene(ctx.app, org)
  dispatcher = smsDispatcher(ctx, gateway())
})
afterEach(async () => {
  await dispatcher.stop()
})

function gateway(): SmsProvider {
  const keyHex = Buffer.from(SECRET.slice('whsec_'.length), 'base64').toString('hex')
  return httpSmsProvider({
    url: `${receiver.origin}/sms`,
    keyHex,
    client: createOutboundClient({ allowPrivate: true }),
  })
}

interface Sms {
  id: string
  status: string
  text: string
  date_sent: string | null
  date_updated: string
  activity_at: string
  error_message: string | null
  send_attempts: { date: string; error: string }[]
  [key: string]: unknown
}

async function send(body: Record<string, unknown>): Promise<Sms> {
  const res = await call(ctx.app, org.member.key, 'POST', '/activity/sms/', {
    body: {
      lead_id: scene.leadId,
      contact_id: scene.contactId,
      local_phone: INTERNAL_PHONE,
      remote_phone: CONTACT_PHONE,
      ...body,
    },
  })
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

async function read(id: string): Promise<Sms> {
  const res = await call(ctx.app, org.member.key, 'GET', `/activity/sms/${id}/`)
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

function sendRow(id: string) {
  return ctx.database.db
    .selectFrom('outbox')
    .selectAll()
    .where('ordering_key', '=', `sms:${id}`)
    .orderBy('seq', 'desc')
    .executeTakeFirstOrThrow()
}

interface Delivered {
  id: string
  organization_id: string
  from: string
  to: string
  text: string
  attachments: unknown[]
}

/** The body of each request the gateway got, its signature checked with the secret as a gateway would. */
function delivered(): Delivered[] {
  const webhook = new Webhook(SECRET)
  return receiver.requests.map((r) => {
    const headers = {
      'webhook-id': String(r.headers['webhook-id']),
      'webhook-timestamp': String(r.headers['webhook-timestamp']),
      'webhook-signature': String(r.headers['webhook-signature']),
    }
    return webhook.verify(r.body, headers) as Delivered
  })
}

async function eventsOf(id: string): Promise<TestEvent[]> {
  const res = await call(ctx.app, org.member.key, 'GET', '/event/', { query: { object_id: id } })
  return res.json<{ data: TestEvent[] }>().data.reverse()
}

describe('sending through the http provider', () => {
  it('POSTs a message put in the outbox, signed with the provider secret, and records it sent', async () => {
    const attachments = [
      { url: 'https://files.example.com/p.png', filename: 'p.png', content_type: 'image/png', size: 9 },
    ]
    const sms = await send({ status: 'outbox', text: 'Your table is ready', attachments })
    expect(await dispatcher.drain()).toBe(1)

    expect(receiver.requests).toHaveLength(1)
    expect(receiver.requests[0]?.path).toBe('/sms')
    expect(delivered()).toEqual([
      {
        id: sms.id,
        organization_id: org.id,
        from: INTERNAL_PHONE,
        to: CONTACT_PHONE,
        text: 'Your table is ready',
        attachments,
      },
    ])
    const row = await sendRow(sms.id)
    expect(receiver.requests[0]?.headers['webhook-id']).toBe(row.id)
    expect(row).toMatchObject({ status: 'delivered', attempts: 1, last_status_code: 202 })
    // Another secret does not verify.
    const wrong = new Webhook(`whsec_${randomBytes(32).toString('base64')}`)
    const request = receiver.requests[0]
    expect(() =>
      wrong.verify(request?.body ?? '', {
        'webhook-id': String(request?.headers['webhook-id']),
        'webhook-timestamp': String(request?.headers['webhook-timestamp']),
        'webhook-signature': String(request?.headers['webhook-signature']),
      }),
    ).toThrow()

    const after = await read(sms.id)
    expect(after).toMatchObject({ status: 'sent', error_message: null, send_attempts: [] })
    expect(after.date_sent).not.toBeNull()
    expect(after.activity_at).toBe(after.date_sent)
    const events = await eventsOf(sms.id)
    expect(events.map((e) => e.action)).toEqual(['created', 'sent'])
    expect(events[1]).toMatchObject({ user_id: null, request_id: null })
    expect(events[1]?.changed_fields).toEqual(expect.arrayContaining(['status', 'date_sent']))
    expect(events[1]?.data).toEqual(after)
    // Sent once only.
    expect(await dispatcher.drain()).toBe(0)
    expect(receiver.requests).toHaveLength(1)
  })

  it('waits send_in seconds, and sends a scheduled message when its time comes', async () => {
    const soon = await send({ status: 'outbox', text: 'In five', send_in: 5 })
    // Two minutes ahead: the Standard Webhooks library checks the request's timestamp against real time (±5 minutes).
    const at = formatTimestamp(new Date(ctx.clock.now().getTime() + 120_000))
    const later = await send({ status: 'scheduled', text: 'In two minutes', date_scheduled: at })
    expect(await dispatcher.drain()).toBe(0)
    ctx.clock.advance(4_000)
    expect(await dispatcher.drain()).toBe(0)
    ctx.clock.advance(1_000)
    expect(await dispatcher.drain()).toBe(1)
    expect(delivered().map((d) => d.text)).toEqual(['In five'])
    expect((await read(soon.id)).status).toBe('sent')

    ctx.clock.set(new Date(Date.parse(at) - 1_000))
    expect(await dispatcher.drain()).toBe(0)
    expect((await read(later.id)).status).toBe('scheduled')
    ctx.clock.set(new Date(Date.parse(at)))
    expect(await dispatcher.drain()).toBe(1)
    expect(delivered().map((d) => d.text)).toEqual(['In five', 'In two minutes'])
    const sent = await read(later.id)
    expect(sent).toMatchObject({ status: 'sent', date_scheduled: at })
    expect(Date.parse(sent.date_sent ?? '')).toBeGreaterThanOrEqual(Date.parse(at))
    expect((await eventsOf(later.id)).map((e) => e.action)).toEqual(['created', 'sent'])
  })

  it('never sends a message taken back to draft within its send_in window, nor one deleted', async () => {
    const undone = await send({ status: 'outbox', text: 'Oops', send_in: 5 })
    const deleted = await send({ status: 'outbox', text: 'Gone', send_in: 5 })
    const kept = await send({ status: 'outbox', text: 'Kept', send_in: 5 })
    ctx.clock.advance(3_000)
    const back = await call(ctx.app, org.member.key, 'PUT', `/activity/sms/${undone.id}/`, {
      body: { status: 'draft' },
    })
    expect(back.statusCode, back.body).toBe(200)
    expect((await call(ctx.app, org.member.key, 'DELETE', `/activity/sms/${deleted.id}/`)).statusCode).toBe(200)
    ctx.clock.advance(60_000)
    expect(await dispatcher.drain()).toBe(1)
    expect(delivered().map((d) => d.text)).toEqual(['Kept'])
    expect((await read(undone.id)).status).toBe('draft')
    expect((await read(kept.id)).status).toBe('sent')
    expect((await sendRow(undone.id)).status).toBe('cancelled')
    expect((await sendRow(deleted.id)).status).toBe('cancelled')
  })

  it('answers too late to a cancel while the provider is being called, and the message is sent', async () => {
    let release = () => {}
    const held = new Promise<void>((resolve) => {
      release = resolve
    })
    receiver.respondWith(async () => {
      await held
      return { status: 200 }
    })
    const sms = await send({ status: 'outbox', text: 'Under way' })
    const draining = dispatcher.drain()
    for (let i = 0; i < 200 && receiver.inFlight() === 0; i++) await sleep(10)
    expect(receiver.inFlight()).toBe(1)

    const back = await call(ctx.app, org.member.key, 'PUT', `/activity/sms/${sms.id}/`, { body: { status: 'draft' } })
    expect(back.statusCode).toBe(400)
    expect(back.json()['field-errors']).toEqual({ status: 'Too late: the message is being sent right now.' })
    const gone = await call(ctx.app, org.member.key, 'DELETE', `/activity/sms/${sms.id}/`)
    expect(gone.statusCode).toBe(400)
    expect(gone.json()).toEqual({ error: 'Too late: the message is being sent right now.' })
    expect((await read(sms.id)).status).toBe('outbox')

    release()
    expect(await draining).toBe(1)
    expect((await read(sms.id)).status).toBe('sent')
    expect((await eventsOf(sms.id)).map((e) => e.action)).toEqual(['created', 'sent'])
  })

  it('cancels a send claimed by a process that died once its lease has run out, and not before', async () => {
    const sms = await send({ status: 'outbox', text: 'Orphan', send_in: 5 })
    const row = await sendRow(sms.id)
    await ctx.database.db
      .updateTable('outbox')
      .set({ lease_owner: 'dead-process', lease_until: formatTimestamp(new Date(ctx.clock.now().getTime() + 60_000)) })
      .where('seq', '=', row.seq)
      .execute()
    const early = await call(ctx.app, org.member.key, 'PUT', `/activity/sms/${sms.id}/`, { body: { status: 'draft' } })
    expect(early.statusCode).toBe(400)
    ctx.clock.advance(61_000)
    const late = await call(ctx.app, org.member.key, 'PUT', `/activity/sms/${sms.id}/`, { body: { status: 'draft' } })
    expect(late.statusCode, late.body).toBe(200)
    expect(await dispatcher.drain()).toBe(0)
    expect(receiver.requests).toEqual([])
  })

  it('retries a refused send with growing waits, recording each failure in send_attempts, until it goes', async () => {
    receiver.respondWith((_, i) => ({ status: i < 2 ? 503 : 200 }))
    const sms = await send({
      status: 'scheduled',
      text: 'Retry me',
      date_scheduled: formatTimestamp(new Date(ctx.clock.now().getTime() + 1_000)),
    })
    ctx.clock.advance(1_000)
    expect(await dispatcher.drain()).toBe(1)
    let now = await read(sms.id)
    // Due and not yet sent: it waits in the outbox.
    expect(now).toMatchObject({ status: 'outbox', date_sent: null, error_message: null })
    expect(now.send_attempts).toHaveLength(1)
    expect(now.send_attempts[0]?.error).toContain('answered 503')
    let row = await sendRow(sms.id)
    expect(row).toMatchObject({ status: 'pending', attempts: 1, last_status_code: 503 })
    const firstWait = Date.parse(row.next_attempt_at) - Date.parse(now.send_attempts[0]?.date ?? '')
    expect(firstWait).toBe(ctx.config.sms.retrySeconds * 1000)
    expect(await dispatcher.drain()).toBe(0)

    ctx.clock.set(new Date(Date.parse(row.next_attempt_at)))
    expect(await dispatcher.drain()).toBe(1)
    row = await sendRow(sms.id)
    now = await read(sms.id)
    expect(now.send_attempts).toHaveLength(2)
    expect(Date.parse(row.next_attempt_at) - Date.parse(now.send_attempts[1]?.date ?? '')).toBe(
      2 * ctx.config.sms.retrySeconds * 1000,
    )

    ctx.clock.set(new Date(Date.parse(row.next_attempt_at)))
    expect(await dispatcher.drain()).toBe(1)
    now = await read(sms.id)
    expect(now).toMatchObject({ status: 'sent', error_message: null })
    expect(now.send_attempts).toHaveLength(2)
    expect(receiver.requests.map((r) => r.status)).toEqual([503, 503, 200])
    // Every attempt was the same send.
    expect(new Set(receiver.requests.map((r) => r.headers['webhook-id']))).toEqual(new Set([row.id]))
    const attempts = await ctx.database.db
      .selectFrom('outbox_attempt')
      .select(['attempt', 'status_code', 'url'])
      .where('outbox_id', '=', row.id)
      .orderBy('attempt')
      .execute()
    expect(attempts).toEqual(
      [1, 2, 3].map((attempt, i) => ({ attempt, status_code: i < 2 ? 503 : 200, url: `${receiver.origin}/sms` })),
    )
    expect((await eventsOf(sms.id)).map((e) => e.action)).toEqual(['created', 'updated', 'updated', 'sent'])
  })

  it('lets a message waiting for a retry go back to draft', async () => {
    receiver.respondWith(() => ({ status: 500 }))
    const sms = await send({ status: 'outbox', text: 'Flaky' })
    expect(await dispatcher.drain()).toBe(1)
    const back = await call(ctx.app, org.member.key, 'PUT', `/activity/sms/${sms.id}/`, { body: { status: 'draft' } })
    expect(back.statusCode, back.body).toBe(200)
    expect(back.json()).toMatchObject({ status: 'draft' })
    ctx.clock.advance(600_000)
    expect(await dispatcher.drain()).toBe(0)
    expect(receiver.requests).toHaveLength(1)
  })

  it('gives up an hour after the send was due: the message is error, with the last error', async () => {
    receiver.respondWith(() => ({ status: 502 }))
    const sms = await send({ status: 'outbox', text: 'Never lands' })
    const start = ctx.clock.now().getTime()
    for (let round = 0; round < 50; round++) {
      const row = await sendRow(sms.id)
      if (row.status !== 'pending') break
      ctx.clock.set(new Date(Math.max(Date.parse(row.next_attempt_at), ctx.clock.now().getTime())))
      await dispatcher.drain()
    }
    const failed = await read(sms.id)
    expect(failed.status).toBe('error')
    expect(failed.error_message).toContain('answered 502')
    const row = await sendRow(sms.id)
    expect(row.status).toBe('failed')
    expect(failed.send_attempts).toHaveLength(row.attempts)
    const last = Date.parse(failed.send_attempts.at(-1)?.date ?? '') - start
    expect(last).toBeGreaterThanOrEqual(SMS_RETRY_WINDOW_MS)
    expect(last).toBeLessThan(SMS_RETRY_WINDOW_MS + 1_000)
    // The waits grew to 5 minutes, no longer: about 17 attempts in the hour.
    expect(row.attempts).toBeGreaterThan(12)
    expect(row.attempts).toBeLessThan(25)
    // An error message keeps its status.
    const retry = await call(ctx.app, org.member.key, 'PUT', `/activity/sms/${sms.id}/`, { body: { status: 'outbox' } })
    expect(retry.statusCode).toBe(400)
    expect(retry.json()['field-errors'].status).toContain('an error message keeps its status')
  })

  it('drops a send whose message no longer waits for it (changed behind the API’s back)', async () => {
    const sms = await send({ status: 'outbox', text: 'Stale' })
    await ctx.database.db
      .updateTable('activity')
      .set({ data: JSON.stringify({ ...(await read(sms.id)), status: 'draft' }) })
      .where('id', '=', sms.id)
      .execute()
    expect(await dispatcher.drain()).toBe(0)
    expect(receiver.requests).toEqual([])
    expect(await sendRow(sms.id)).toMatchObject({
      status: 'cancelled',
      last_error: 'The message no longer waits to be sent.',
    })
  })
})

describe('the log provider', () => {
  it('writes what would be sent to the log, records the attempt, and marks the message sent', async () => {
    const lines: { fields: Record<string, unknown>; line: string }[] = []
    await dispatcher.stop()
    dispatcher = smsDispatcher(
      ctx,
      logSmsProvider((fields, line) => lines.push({ fields, line })),
    )
    const sms = await send({ status: 'outbox', text: 'Offline hello' })
    expect(await dispatcher.drain()).toBe(1)
    expect(lines).toHaveLength(1)
    expect(lines[0]?.line).toContain(`from ${INTERNAL_PHONE} to ${CONTACT_PHONE}: "Offline hello"`)
    expect(lines[0]?.fields).toEqual({
      sms: {
        id: sms.id,
        organization_id: org.id,
        from: INTERNAL_PHONE,
        to: CONTACT_PHONE,
        text: 'Offline hello',
        attachments: 0,
      },
    })
    expect(receiver.requests).toEqual([])
    expect((await read(sms.id)).status).toBe('sent')
    const row = await sendRow(sms.id)
    const attempts = await ctx.database.db
      .selectFrom('outbox_attempt')
      .select(['url', 'error'])
      .where('outbox_id', '=', row.id)
      .execute()
    expect(attempts).toEqual([{ url: 'log:', error: null }])
  })
})
