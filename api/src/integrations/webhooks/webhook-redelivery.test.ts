import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { WebhookDelivery, WebhookDeliveryAttempt } from '@leadline/shared/webhook-schema'
import { createOutboundClient } from '../outbound/outbound-client.js'
import { createDispatcher, type Dispatcher } from '../outbox/outbox-dispatcher.js'
import { call, createTestContext, type TestContext, type TestOrg } from '../../tooling/test-support/test-app.js'
import { startReceiver, type Receiver } from '../../tooling/test-support/webhook-receiver.js'
import { verifySignedRequest } from '../../tooling/test-support/webhook-signatures.js'
import { TEST_EVENT_MESSAGE } from './webhook-routes.js'

// The delivery log an admin reads, redeliveries and test events, against a real receiver on loopback: what the log
// says of each delivery, that a redelivery and a test event really arrive signed with the subscription's key, and
// who may ask for them.

let ctx: TestContext
let receiver: Receiver
let dispatcher: Dispatcher
let org: TestOrg

beforeAll(async () => {
  ctx = await createTestContext({ env: { LEADLINE_OUTBOUND_ALLOW_PRIVATE: '1' } })
  receiver = await startReceiver()
})

afterAll(async () => {
  await receiver.close()
  await ctx.close()
})

beforeEach(async () => {
  // Real time, so the Standard Webhooks check accepts the timestamps.
  ctx.clock.set(new Date())
  receiver.requests.length = 0
  receiver.respondWith(() => ({ status: 200 }))
  org = await ctx.createOrg('Redelivered')
  dispatcher = createDispatcher({
    db: ctx.database.db,
    dialect: ctx.database.dialect,
    clock: ctx.clock,
    config: { ...ctx.config, leadWebhookUrl: null },
    client: createOutboundClient({ allowPrivate: true }),
    random: () => 0.5,
  })
})

afterEach(async () => {
  await dispatcher.stop()
  await ctx.database.db.updateTable('outbox').set({ status: 'cancelled' }).where('status', '=', 'pending').execute()
})

interface Delivered {
  subscription_id: string
  event: { id: string; object_type: string; object_id: string; action: string; data: Record<string, unknown> }
}

async function subscribe(key = org.admin.key) {
  const res = await call(ctx.app, key, 'POST', '/webhook/', {
    body: { url: receiver.url, events: [{ object_type: 'lead', action: 'created' }] },
  })
  expect(res.statusCode, res.body).toBe(201)
  const made = res.json<{ id: string; signature_key: string }>()
  return { id: made.id, key: made.signature_key }
}

async function createLead(name: string, key = org.member.key): Promise<string> {
  const res = await call(ctx.app, key, 'POST', '/lead/', { body: { name } })
  expect(res.statusCode, res.body).toBe(200)
  return res.json<{ id: string }>().id
}

async function log(subscriptionId: string, key = org.admin.key) {
  const res = await call(ctx.app, key, 'GET', `/webhook/${subscriptionId}/deliveries/`)
  expect(res.statusCode, res.body).toBe(200)
  return res.json<{ data: WebhookDeliveryAttempt[] }>().data
}

const redeliver = (subscriptionId: string, deliveryId: string, key = org.admin.key) =>
  call(ctx.app, key, 'POST', `/webhook/${subscriptionId}/deliveries/${deliveryId}/redeliver/`)

const sendTest = (subscriptionId: string, key = org.admin.key) =>
  call(ctx.app, key, 'POST', `/webhook/${subscriptionId}/test/`)

function verified(signatureKey: string, index: number): Delivered {
  const request = receiver.requests[index]
  expect(request).toBeDefined()
  return verifySignedRequest(signatureKey, request?.headers ?? {}, request?.body ?? '') as Delivered
}

describe('GET /webhook/{id}/deliveries/ with its deliveries', () => {
  it('says of each attempt its event, the delivery’s state, attempts so far and next retry', async () => {
    const sub = await subscribe()
    receiver.respondWith((_request, index) => ({ status: index === 0 ? 503 : 200 }))
    await createLead('Retry Co')
    expect(await dispatcher.drain()).toBe(1)

    const [failed] = await log(sub.id)
    expect(failed).toMatchObject({
      attempt: 1,
      status_code: 503,
      object_type: 'lead',
      action: 'created',
      delivery_state: 'retrying',
      delivery_attempts: 1,
      next_attempt_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/),
    })
    expect(Date.parse(failed?.next_attempt_at ?? '')).toBeGreaterThan(ctx.clock.now().getTime())

    ctx.clock.set(new Date(Date.parse(failed?.next_attempt_at ?? '') + 1000))
    expect(await dispatcher.drain()).toBe(1)
    const [second, first] = await log(sub.id)
    // Both attempts tell the delivery as it is now: delivered after two attempts, nothing more to come.
    for (const attempt of [second, first])
      expect(attempt).toMatchObject({ delivery_state: 'delivered', delivery_attempts: 2, next_attempt_at: null })
    expect(second).toMatchObject({ attempt: 2, status_code: 200, delivery_id: first?.delivery_id })
  })

  it('tells a delivery held by a paused subscription', async () => {
    const sub = await subscribe()
    receiver.respondWith(() => ({ status: 500 }))
    await createLead('Held Co')
    await dispatcher.drain()
    const paused = await call(ctx.app, org.admin.key, 'PUT', `/webhook/${sub.id}/`, { body: { status: 'paused' } })
    expect(paused.statusCode, paused.body).toBe(200)
    ctx.clock.set(new Date(ctx.clock.now().getTime() + 3_600_000))
    await dispatcher.drain()
    const [attempt] = await log(sub.id)
    expect(attempt).toMatchObject({ delivery_state: 'paused', delivery_attempts: 1, next_attempt_at: null })
  })
})

describe('POST /webhook/{id}/deliveries/{delivery_id}/redeliver/', () => {
  it('sends the same event again as a new delivery, signed, and keeps the old one', async () => {
    const sub = await subscribe()
    const leadId = await createLead('Again Co')
    expect(await dispatcher.drain()).toBe(1)
    const [original] = await log(sub.id)
    const deliveryId = original?.delivery_id ?? ''

    const res = await redeliver(sub.id, deliveryId)
    expect(res.statusCode, res.body).toBe(200)
    const again = res.json<WebhookDelivery>()
    expect(again).toEqual({
      id: expect.stringMatching(/^[a-z]+_[0-9A-Za-z]+$/),
      subscription_id: sub.id,
      event_id: original?.event_id,
      object_type: 'lead',
      action: 'created',
      state: 'pending',
      attempts: 0,
      next_attempt_at: expect.any(String),
      last_status_code: null,
      last_error: null,
      date_created: expect.any(String),
    })
    expect(again.id).not.toBe(deliveryId)

    expect(await dispatcher.drain()).toBe(1)
    expect(receiver.requests).toHaveLength(2)
    const first = verified(sub.key, 0)
    const second = verified(sub.key, 1)
    expect(second).toEqual(first)
    expect(second.event).toMatchObject({ object_type: 'lead', action: 'created', object_id: leadId })
    // A new delivery: its own Standard Webhooks id.
    expect(receiver.requests[1]?.headers['webhook-id']).toBe(again.id)
    expect(receiver.requests[0]?.headers['webhook-id']).toBe(deliveryId)

    const entries = await log(sub.id)
    expect(entries.map((e) => [e.delivery_id, e.attempt, e.status_code, e.delivery_state])).toEqual([
      [again.id, 1, 200, 'delivered'],
      [deliveryId, 1, 200, 'delivered'],
    ])
  })

  it('refuses a paused subscription with a clear error, and sends nothing', async () => {
    const sub = await subscribe()
    await createLead('Paused Co')
    await dispatcher.drain()
    const [original] = await log(sub.id)
    await call(ctx.app, org.admin.key, 'PUT', `/webhook/${sub.id}/`, { body: { status: 'paused' } })
    const res = await redeliver(sub.id, original?.delivery_id ?? '')
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual({ error: expect.stringContaining('paused: resume it first') })
    const test = await sendTest(sub.id)
    expect(test.statusCode).toBe(400)
    expect(test.json()).toEqual({ error: expect.stringContaining('paused') })
    expect(await dispatcher.drain()).toBe(0)
    expect(receiver.requests).toHaveLength(1)
  })

  it('is for admins; another subscription’s, another organization’s or a deleted one’s delivery is a 404', async () => {
    const sub = await subscribe()
    const other = await subscribe()
    await createLead('Guarded Co')
    await dispatcher.drain()
    const [original] = await log(sub.id)
    const deliveryId = original?.delivery_id ?? ''

    const member = await redeliver(sub.id, deliveryId, org.member.key)
    expect(member.statusCode).toBe(403)
    expect(member.json()).toEqual({ error: expect.any(String) })
    const memberTest = await sendTest(sub.id, org.member.key)
    expect(memberTest.statusCode).toBe(403)

    // The delivery under a subscription it is not of.
    const [otherAttempt] = await log(other.id)
    expect(otherAttempt?.delivery_id).not.toBe(deliveryId)
    const wrong = await redeliver(other.id, deliveryId)
    expect(wrong.statusCode).toBe(404)
    expect(wrong.json()).toEqual({ error: expect.any(String) })
    expect((await redeliver(sub.id, 'outbox_nosuchdelivery')).statusCode).toBe(404)

    const theirs = await redeliver(sub.id, deliveryId, ctx.other.admin.key)
    expect(theirs.statusCode).toBe(404)
    expect((await sendTest(sub.id, ctx.other.admin.key)).statusCode).toBe(404)

    const gone = await call(ctx.app, org.admin.key, 'DELETE', `/webhook/${sub.id}/`)
    expect(gone.statusCode).toBe(200)
    expect((await redeliver(sub.id, deliveryId)).statusCode).toBe(404)
    expect((await sendTest(sub.id)).statusCode).toBe(404)
    const rows = await ctx.database.db
      .selectFrom('outbox')
      .select('id')
      .where('organization_id', '=', org.id)
      .where('status', '=', 'pending')
      .execute()
    expect(rows).toEqual([])
  })
})

describe('POST /webhook/{id}/test/', () => {
  it('sends a signed test event to this subscription alone, whatever its events, and logs it', async () => {
    const sub = await subscribe()
    const bystander = await subscribe()
    const res = await sendTest(sub.id)
    expect(res.statusCode, res.body).toBe(200)
    const delivery = res.json<WebhookDelivery>()
    expect(delivery).toMatchObject({
      subscription_id: sub.id,
      object_type: 'webhook',
      action: 'test',
      state: 'pending',
      attempts: 0,
    })

    expect(await dispatcher.drain()).toBe(1)
    expect(receiver.requests).toHaveLength(1)
    const body = verified(sub.key, 0)
    expect(() => verified(bystander.key, 0)).toThrow()
    expect(body).toEqual({
      subscription_id: sub.id,
      event: expect.objectContaining({
        id: delivery.event_id,
        object_type: 'webhook',
        object_id: sub.id,
        action: 'test',
        lead_id: null,
        user_id: org.admin.id,
        organization_id: org.id,
        data: { id: sub.id, url: receiver.url, message: TEST_EVENT_MESSAGE },
        previous_data: {},
        changed_fields: [],
      }),
    })
    const [entry] = await log(sub.id)
    expect(entry).toMatchObject({
      delivery_id: delivery.id,
      object_type: 'webhook',
      action: 'test',
      status_code: 200,
      delivery_state: 'delivered',
    })
    expect(await log(bystander.id)).toEqual([])
    // Not an event of the log.
    const event = await call(ctx.app, org.admin.key, 'GET', `/event/${delivery.event_id ?? ''}/`)
    expect(event.statusCode).toBe(404)
  })
})

describe('changes to subscriptions in the event log', () => {
  it('records created, updated and deleted without the URL, so other admins’ screens follow', async () => {
    const sub = await subscribe()
    const moved = await call(ctx.app, org.admin.key, 'PUT', `/webhook/${sub.id}/`, {
      body: { url: `${receiver.url}/secret-token` },
    })
    expect(moved.statusCode, moved.body).toBe(200)
    await call(ctx.app, org.admin.key, 'DELETE', `/webhook/${sub.id}/`)
    const res = await call(ctx.app, org.member.key, 'GET', '/event/', { query: { object_id: sub.id } })
    expect(res.statusCode, res.body).toBe(200)
    const events = res.json<{ data: { object_type: string; action: string; changed_fields: string[] }[] }>().data
    expect(events.map((e) => [e.object_type, e.action])).toEqual([
      ['webhook', 'deleted'],
      ['webhook', 'updated'],
      ['webhook', 'created'],
    ])
    expect(events[1]?.changed_fields).toContain('version')
    expect(res.body).not.toContain('secret-token')
    expect(res.body).not.toContain(receiver.url)
  })
})
