import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { recordEvents, type EventContext, type EventInput } from '../events/event-repo.js'
import { createOutboundClient } from '../outbound/outbound-client.js'
import { formatTimestamp } from '../../platform/data/time.js'
import { call, createTestContext, type TestContext, type TestOrg } from '../../tooling/test-support/test-app.js'
import { startReceiver, type Receiver } from '../../tooling/test-support/webhook-receiver.js'
import { verifySignedRequest } from '../../tooling/test-support/webhook-signatures.js'
import { clearLeadWebhookUrl, leadWebhookSigningKey, resetLeadWebhookUrl, setLeadWebhookUrl } from './lead-webhook.js'
import { createDispatcher, PARKED, WEBHOOK_RETRY_WINDOW_MS, type Dispatcher } from './outbox-dispatcher.js'
import { purgeDeliveredOutbox } from './outbox-retention.js'
import { outboxSink } from './outbox-writer.js'

let ctx: TestContext
let receiver: Receiver
let dispatcher: Dispatcher
let org: TestOrg
let leadId: string

beforeAll(async () => {
  // The receivers are on loopback.
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
  receiver.respondWith(() => ({ status: 200 }))
  org = await ctx.createOrg('Hooked')
  const lead = await call(ctx.app, org.member.key, 'POST', '/lead/', { body: { name: 'Hooked Co' } })
  leadId = lead.json<{ id: string }>().id
  dispatcher = newDispatcher()
})

afterEach(async () => {
  await dispatcher.stop()
  // What a test leaves waiting must not reach the next test's receiver.
  await ctx.database.db.updateTable('outbox').set({ status: 'cancelled' }).where('status', '=', 'pending').execute()
})

function newDispatcher(options: { leadWebhookUrl?: string | null; leaseSeconds?: number } = {}): Dispatcher {
  return createDispatcher({
    db: ctx.database.db,
    dialect: ctx.database.dialect,
    clock: ctx.clock,
    config: {
      ...ctx.config,
      leadWebhookUrl: options.leadWebhookUrl ?? null,
      outbox: { ...ctx.config.outbox, leaseSeconds: options.leaseSeconds ?? 60 },
    },
    client: createOutboundClient({ allowPrivate: true }),
    random: () => 0.5,
  })
}

async function subscribe(
  events: { object_type: string; action: string; extra_filter?: unknown }[] = [
    { object_type: 'task.lead', action: 'created' },
  ],
  url = receiver.url,
) {
  const res = await call(ctx.app, org.admin.key, 'POST', '/webhook/', { body: { url, events } })
  expect(res.statusCode, res.body).toBe(201)
  const made = res.json<{ id: string; signature_key: string }>()
  return { id: made.id, signatureKey: made.signature_key }
}

async function createTask(text: string): Promise<string> {
  const res = await call(ctx.app, org.member.key, 'POST', '/task/', { body: { lead_id: leadId, text } })
  expect(res.statusCode, res.body).toBe(200)
  return res.json<{ id: string }>().id
}

async function updateTask(id: string, text: string): Promise<void> {
  const res = await call(ctx.app, org.member.key, 'PUT', `/task/${id}/`, { body: { text } })
  expect(res.statusCode, res.body).toBe(200)
}

function rows() {
  return ctx.database.db.selectFrom('outbox').selectAll().where('organization_id', '=', org.id).orderBy('seq').execute()
}

async function subscriptionRow(id: string) {
  return ctx.database.db.selectFrom('webhook_subscription').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
}

/** Who changed things when no request did, with this process's LEADLINE_LEAD_WEBHOOK_URL. */
function systemContext(leadWebhookEnvUrl: string | null): EventContext {
  const now = formatTimestamp(ctx.clock.now())
  return {
    organizationId: org.id,
    userId: null,
    requestId: null,
    apiKeyId: null,
    now,
    sink: outboxSink(leadWebhookEnvUrl),
  }
}

interface Delivered {
  subscription_id: string
  event: { id: string; object_id: string; action: string; data: { text?: string } | null }
}
const bodies = () => receiver.requests.map((r) => JSON.parse(r.body) as Delivered)

describe('delivering a subscription’s events', () => {
  it('POSTs each matching event once, signed twice with the subscription’s key, the event as /event/ shows it', async () => {
    const { id, signatureKey } = await subscribe()
    const other = await subscribe([{ object_type: 'task.lead', action: 'deleted' }])
    const taskId = await createTask('Call back')
    expect(await dispatcher.drain()).toBe(1)

    expect(receiver.requests).toHaveLength(1)
    const [request] = receiver.requests
    expect(request?.method).toBe('POST')
    expect(request?.headers['content-type']).toBe('application/json')
    const body = verifySignedRequest(signatureKey, request?.headers ?? {}, request?.body ?? '') as Delivered
    expect(body.subscription_id).toBe(id)
    expect(body.subscription_id).not.toBe(other.id)
    const event = await call(ctx.app, org.member.key, 'GET', `/event/${body.event.id}/`)
    expect(body.event).toEqual(event.json())
    expect(body.event).toMatchObject({ object_id: taskId, action: 'created' })
    // The Standard Webhooks id is the delivery's, and stays the same on every retry.
    const [row] = await rows()
    expect(request?.headers['webhook-id']).toBe(row?.id)
    expect(row).toMatchObject({ status: 'delivered', attempts: 1, last_status_code: 200, last_error: null })
    const attempts = await ctx.database.db
      .selectFrom('outbox_attempt')
      .selectAll()
      .where('outbox_id', '=', row?.id ?? '')
      .execute()
    expect(attempts).toEqual([
      expect.objectContaining({ attempt: 1, status_code: 200, error: null, url: receiver.url, subscription_id: id }),
    ])
    // A key other than the subscription's does not verify.
    expect(() => verifySignedRequest('00'.repeat(32), request?.headers ?? {}, request?.body ?? '')).toThrow()
    // Nothing is delivered twice.
    expect(await dispatcher.drain()).toBe(0)
  })

  it('delivers a deletion as Close shows it, to a filter on the deleted object’s fields, its meta as /event/ shows it', async () => {
    const onName = (name: string) => ({
      type: 'field_accessor',
      field: 'data',
      filter: { type: 'field_accessor', field: 'name', filter: { type: 'equals', value: name } },
    })
    const mine = await subscribe([{ object_type: 'lead', action: 'deleted', extra_filter: onName('Doomed Co') }])
    const onPrevious = await subscribe([
      {
        object_type: 'lead',
        action: 'deleted',
        extra_filter: { ...onName('Doomed Co'), field: 'previous_data' },
      },
    ])
    await subscribe([{ object_type: 'lead', action: 'deleted', extra_filter: onName('Another Co') }])
    const made = await call(ctx.app, org.member.key, 'POST', '/lead/', { body: { name: 'Doomed Co' } })
    const doomed = made.json<{ id: string }>()
    const last = (await call(ctx.app, org.member.key, 'GET', `/lead/${doomed.id}/`)).json()
    expect((await call(ctx.app, org.member.key, 'DELETE', `/lead/${doomed.id}/`)).statusCode).toBe(200)
    expect(await dispatcher.drain()).toBe(2)
    const delivered = bodies()
    expect(delivered.map((b) => b.subscription_id).sort()).toEqual([mine.id, onPrevious.id].sort())
    const event = (await call(ctx.app, org.member.key, 'GET', `/event/${delivered[0]?.event.id ?? ''}/`)).json()
    for (const body of delivered) expect(body.event).toEqual(event)
    expect(event).toMatchObject({
      object_id: doomed.id,
      action: 'deleted',
      data: null,
      previous_data: last,
      meta: { request_method: 'DELETE', request_path: `/api/v1/lead/${doomed.id}/` },
    })
  })

  it('retries a failed delivery with growing waits, records each attempt, and marks the subscription failing until one succeeds', async () => {
    const { id, signatureKey } = await subscribe()
    await createTask('Flaky')
    receiver.respondWith((_, i) => ({ status: i < 2 ? 500 : 200 }))
    const created = ctx.clock.now()

    expect(await dispatcher.drain()).toBe(1)
    let [row] = await rows()
    expect(row).toMatchObject({ status: 'pending', attempts: 1, last_status_code: 500 })
    expect(row?.last_error).toContain('answered 500')
    // The first retry waits 30 s (the jitter is fixed at its middle here); not before.
    const firstWait = Date.parse(row?.next_attempt_at ?? '') - created.getTime()
    expect(firstWait).toBeGreaterThanOrEqual(30_000)
    expect(firstWait).toBeLessThan(31_000)
    expect((await subscriptionRow(id)).failing_since).not.toBeNull()
    expect(await dispatcher.drain()).toBe(0)

    ctx.clock.set(new Date(Date.parse(row?.next_attempt_at ?? '')))
    expect(await dispatcher.drain()).toBe(1)
    ;[row] = await rows()
    expect(row).toMatchObject({ status: 'pending', attempts: 2 })
    const secondWait = Date.parse(row?.next_attempt_at ?? '') - ctx.clock.now().getTime()
    expect(secondWait).toBeGreaterThan(59_000)
    expect(secondWait).toBeLessThanOrEqual(60_000)

    ctx.clock.set(new Date(Date.parse(row?.next_attempt_at ?? '')))
    expect(await dispatcher.drain()).toBe(1)
    ;[row] = await rows()
    expect(row).toMatchObject({ status: 'delivered', attempts: 3, last_status_code: 200, last_error: null })
    expect((await subscriptionRow(id)).failing_since).toBeNull()
    const attempts = await ctx.database.db
      .selectFrom('outbox_attempt')
      .select(['attempt', 'status_code', 'error'])
      .where('outbox_id', '=', row?.id ?? '')
      .orderBy('attempt')
      .execute()
    expect(attempts.map((a) => a.status_code)).toEqual([500, 500, 200])
    // Every attempt carried the same id and a valid signature.
    expect(new Set(receiver.requests.map((r) => r.headers['webhook-id']))).toEqual(new Set([row?.id]))
    for (const request of receiver.requests) {
      ctx.clock.set(new Date())
      expect(() => verifySignedRequest(signatureKey, request.headers, request.body)).not.toThrow()
    }
  })

  it('delivers one object’s events in order, one at a time, while other objects’ go ahead', async () => {
    await subscribe([
      { object_type: 'task.lead', action: 'created' },
      { object_type: 'task.lead', action: 'updated' },
    ])
    const first = await createTask('First')
    await updateTask(first, 'First, again')
    await updateTask(first, 'First, third time')
    const second = await createTask('Second')
    // The first object's first delivery fails; its later ones wait behind it, the second object's does not.
    receiver.respondWith((request) => ({ status: request.body.includes('"text":"First"') ? 503 : 200 }))
    await dispatcher.drain()
    // The two objects' first deliveries go out side by side, in either order.
    expect(
      bodies()
        .map((b) => `${b.event.object_id} ${b.event.action}`)
        .sort(),
    ).toEqual([`${first} created`, `${second} created`].sort())
    const waiting = (await rows()).filter((r) => r.status === 'pending')
    expect(waiting.map((r) => r.attempts)).toEqual([1, 0, 0])

    receiver.respondWith(() => ({ status: 200 }))
    ctx.clock.advance(31_000)
    await dispatcher.drain()
    const firsts = bodies().filter((b) => b.event.object_id === first)
    expect(firsts.map((b) => b.event.data?.text)).toEqual(['First', 'First', 'First, again', 'First, third time'])
    expect((await rows()).every((r) => r.status === 'delivered')).toBe(true)
  })

  it('claims again a delivery whose lease ran out (its process died), and not before', async () => {
    await subscribe()
    await createTask('Orphaned')
    const [row] = await rows()
    // Another process claimed it and died: its lease stands until it runs out.
    await ctx.database.db
      .updateTable('outbox')
      .set({ lease_owner: 'dead-process', lease_until: formatTimestamp(new Date(ctx.clock.now().getTime() + 60_000)) })
      .where('seq', '=', row?.seq ?? 0)
      .execute()
    expect(await dispatcher.drain()).toBe(0)
    expect(receiver.requests).toHaveLength(0)
    ctx.clock.advance(61_000)
    expect(await dispatcher.drain()).toBe(1)
    expect(receiver.requests).toHaveLength(1)
    expect((await rows())[0]).toMatchObject({ status: 'delivered', lease_owner: dispatcher.owner })
  })

  it('gives a delivery up after 72 hours, and pauses a subscription that failed for 72 hours; its waiting deliveries resume when it is active again', async () => {
    const { id } = await subscribe()
    receiver.respondWith(() => ({ status: 503 }))
    const start = ctx.clock.now().getTime()
    const doomed = await createTask('Never lands')
    expect(await dispatcher.drain()).toBe(1)
    ctx.clock.advance(10 * 3_600_000)
    const later = await createTask('Written ten hours later')

    // Follow the schedule: each time the next attempt falls due, try again.
    for (let round = 0; round < 100; round++) {
      const pending = (await rows()).filter((r) => r.status === 'pending' && r.next_attempt_at !== PARKED)
      const next = pending.map((r) => Date.parse(r.next_attempt_at)).sort((a, b) => a - b)[0]
      if (next === undefined) break
      ctx.clock.set(new Date(Math.max(next, ctx.clock.now().getTime())))
      await dispatcher.drain()
    }
    const [gone, parked] = await rows()
    expect(gone).toMatchObject({ status: 'failed', last_status_code: 503 })
    // Retried until 72 hours after it was written, no longer: the waits grew to hours in between.
    const attempts = await ctx.database.db
      .selectFrom('outbox_attempt')
      .select('date_created')
      .where('outbox_id', '=', gone?.id ?? '')
      .orderBy('attempt')
      .execute()
    const times = attempts.map((a) => Date.parse(a.date_created) - start)
    expect(times.at(-1)).toBeGreaterThanOrEqual(WEBHOOK_RETRY_WINDOW_MS)
    expect(times.at(-1)).toBeLessThan(WEBHOOK_RETRY_WINDOW_MS + 1000)
    expect(attempts.length).toBeGreaterThan(20)
    expect(attempts.length).toBeLessThan(40)
    const subscription = await subscriptionRow(id)
    expect(subscription.status).toBe('paused')
    expect(subscription.status_reason).toContain('72 hours')
    expect(subscription.status_reason).toContain('answered 503')
    // The other delivery was still within its 72 hours: it waits, untried, while the subscription is paused.
    expect(parked).toMatchObject({ status: 'pending', next_attempt_at: PARKED })
    const tried = parked?.attempts ?? 0
    ctx.clock.advance(24 * 3_600_000)
    expect(await dispatcher.drain()).toBe(0)

    receiver.respondWith(() => ({ status: 200 }))
    const resumed = await call(ctx.app, org.admin.key, 'PUT', `/webhook/${id}/`, { body: { status: 'active' } })
    expect(resumed.statusCode, resumed.body).toBe(200)
    receiver.requests.length = 0
    expect(await dispatcher.drain()).toBe(1)
    expect(bodies().map((b) => b.event.object_id)).toEqual([later])
    expect((await rows())[1]).toMatchObject({ status: 'delivered', attempts: tried + 1 })
    expect(bodies().map((b) => b.event.object_id)).not.toContain(doomed)
    expect((await subscriptionRow(id)).failing_since).toBeNull()
  })

  it('cancels the deliveries of a subscription that is gone when they fall due', async () => {
    const { id } = await subscribe()
    await createTask('Too late')
    // Removed without DELETE /webhook/ (which cancels what waits itself): the dispatcher finds no subscription.
    await ctx.database.db.deleteFrom('webhook_subscription').where('id', '=', id).execute()
    expect(await dispatcher.drain()).toBe(0)
    expect(receiver.requests).toHaveLength(0)
    expect((await rows())[0]).toMatchObject({ status: 'cancelled' })
  })

  it('refuses a private address unless allowed, and records the refusal as the attempt’s error', async () => {
    await subscribe()
    await createTask('Inside')
    const guarded = createDispatcher({
      db: ctx.database.db,
      dialect: ctx.database.dialect,
      clock: ctx.clock,
      config: ctx.config,
      client: createOutboundClient({ allowPrivate: false }),
      random: () => 0.5,
    })
    try {
      expect(await guarded.drain()).toBe(1)
    } finally {
      await guarded.stop()
    }
    expect(receiver.requests).toHaveLength(0)
    const [row] = await rows()
    expect(row).toMatchObject({ status: 'pending', attempts: 1, last_status_code: null })
    expect(row?.last_error).toMatch(/^refused: 127\.0\.0\.1 is a private address/)
  })
})

describe('the outbox is written with the change', () => {
  it('writes nothing for a change that is refused or rolled back', async () => {
    await subscribe()
    const refused = await call(ctx.app, org.member.key, 'POST', '/task/', {
      body: { lead_id: leadId, text: 'x', assigned_to: 'user_nobody' },
    })
    expect(refused.statusCode).toBe(400)
    await expect(
      ctx.database.db.transaction().execute(async (tx) => {
        await recordEvents(tx, systemContext(null), [
          {
            objectType: 'task.lead',
            objectId: 'task_rolled_back',
            action: 'created',
            leadId,
            data: { id: 'task_rolled_back' },
          },
        ])
        expect(
          (await tx.selectFrom('outbox').select('id').where('organization_id', '=', org.id).execute()).length,
        ).toBe(1)
        throw new Error('the change failed')
      }),
    ).rejects.toThrow('the change failed')
    expect(await rows()).toEqual([])
  })

  it('writes one row per subscription an event matches, each with the same event', async () => {
    const a = await subscribe()
    const b = await subscribe()
    await createTask('Twice')
    const written = await rows()
    expect(written.map((r) => r.subscription_id).sort()).toEqual([a.id, b.id].sort())
    const events = written.map((r) => (JSON.parse(r.payload) as Delivered).event)
    expect(events[0]).toEqual(events[1])
    expect(written.map((r) => r.ordering_key).sort()).toEqual(
      [a.id, b.id].map((s) => `${s}:${events[0]?.object_id ?? ''}`).sort(),
    )
  })
})

describe('the lead webhook', () => {
  const leadEvents = (id: string): EventInput[] => [
    { objectType: 'lead', objectId: id, action: 'created', leadId: id, data: { id, name: 'Lead Co' } },
    {
      objectType: 'lead',
      objectId: id,
      action: 'updated',
      leadId: id,
      data: { id, name: 'Lead Co, renamed' },
      previous: { id, name: 'Lead Co' },
    },
    {
      objectType: 'lead',
      objectId: id,
      action: 'merged',
      // As POST /lead/merge/ writes it: the source's event, its lead the destination.
      leadId: 'lead_dest',
      data: { id, name: 'Lead Co, renamed' },
    },
    { objectType: 'lead', objectId: id, action: 'deleted', leadId: id, data: { id, name: 'Lead Co, renamed' } },
  ]

  async function record(inputs: EventInput[], envUrl: string | null = null) {
    await ctx.database.db.transaction().execute((tx) => recordEvents(tx, systemContext(envUrl), inputs))
  }

  afterEach(async () => {
    await resetLeadWebhookUrl(ctx.database.db)
  })

  it('POSTs each lead created, updated, merged and deleted, in order, signed with the installation’s key', async () => {
    await setLeadWebhookUrl(ctx.database.db, receiver.url)
    await record([
      ...leadEvents('lead_one'),
      { objectType: 'task.lead', objectId: 'task_x', action: 'created', leadId: 'lead_one', data: {} },
    ])
    expect(await dispatcher.drain()).toBe(4)
    const key = await leadWebhookSigningKey(ctx.database.db, ctx.config.secretBox)
    const received = receiver.requests.map((r) => verifySignedRequest(key, r.headers, r.body))
    expect(received).toEqual([
      { model: 'lead', event: 'create', data: { id: 'lead_one', name: 'Lead Co' } },
      { model: 'lead', event: 'update', data: { id: 'lead_one', name: 'Lead Co, renamed' } },
      { model: 'lead', event: 'merge', data: { source_id: 'lead_one', destination_id: 'lead_dest' } },
      { model: 'lead', event: 'delete', data: { id: 'lead_one' } },
    ])
  })

  it('hears of leads changed through the API: the lead as GET /lead/{id}/ shows it, {id} when deleted, both ids when merged', async () => {
    await setLeadWebhookUrl(ctx.database.db, receiver.url)
    const key = org.member.key
    const made = await call(ctx.app, key, 'POST', '/lead/', { body: { name: 'Source Co' } })
    const source = made.json<{ id: string }>().id
    const destination = (await call(ctx.app, key, 'POST', '/lead/', { body: { name: 'Destination Co' } })).json<{
      id: string
    }>().id
    expect((await call(ctx.app, key, 'PUT', `/lead/${source}/`, { body: { description: 'Warm' } })).statusCode).toBe(
      200,
    )
    const before = (await call(ctx.app, key, 'GET', `/lead/${source}/`)).json()
    const merge = await call(ctx.app, key, 'POST', '/lead/merge/', { body: { source, destination } })
    expect(merge.statusCode, merge.body).toBe(200)
    const merged = (await call(ctx.app, key, 'GET', `/lead/${destination}/`)).json()
    expect((await call(ctx.app, key, 'DELETE', `/lead/${destination}/`)).statusCode).toBe(200)
    await dispatcher.drain()

    const signing = await leadWebhookSigningKey(ctx.database.db, ctx.config.secretBox)
    const received = receiver.requests.map(
      (r) => verifySignedRequest(signing, r.headers, r.body) as { event: string; data: { id?: string } },
    )
    const of = (id: string) =>
      received.filter((r) => r.data.id === id || JSON.stringify(r.data).includes(`"source_id":"${id}"`))
    expect(of(source).map((r) => r.event)).toEqual(['create', 'update', 'merge'])
    expect(of(source)[0]).toEqual({ model: 'lead', event: 'create', data: made.json() })
    expect(of(source)[1]).toEqual({ model: 'lead', event: 'update', data: before })
    expect(of(source)[2]).toEqual({
      model: 'lead',
      event: 'merge',
      data: { source_id: source, destination_id: destination },
    })
    expect(of(destination).map((r) => r.event)).toEqual(['create', 'update', 'delete'])
    expect(of(destination)[1]).toEqual({ model: 'lead', event: 'update', data: merged })
    expect(of(destination)[2]).toEqual({ model: 'lead', event: 'delete', data: { id: destination } })
  })

  it('tries 3 times, LEADLINE_LEAD_WEBHOOK_RETRY_SECONDS apart, then gives up', async () => {
    receiver.respondWith(() => ({ status: 500 }))
    await record(leadEvents('lead_two').slice(0, 1), receiver.url)
    const wait = ctx.config.outbox.leadWebhookRetrySeconds * 1000
    expect(wait).toBe(300_000)
    const env = newDispatcher({ leadWebhookUrl: receiver.url })
    try {
      expect(await env.drain()).toBe(1)
      ctx.clock.advance(wait - 1000)
      expect(await env.drain()).toBe(0)
      ctx.clock.advance(1000)
      expect(await env.drain()).toBe(1)
      ctx.clock.advance(wait)
      expect(await env.drain()).toBe(1)
      ctx.clock.advance(wait * 10)
      expect(await env.drain()).toBe(0)
    } finally {
      await env.stop()
    }
    expect(receiver.requests).toHaveLength(3)
    expect((await rows())[0]).toMatchObject({ kind: 'lead_webhook', status: 'failed', attempts: 3 })
  })

  it('follows the CLI’s setting over the environment’s, and drops what waits when cleared', async () => {
    // The environment's URL applies while the CLI has stored nothing.
    await record(leadEvents('lead_env').slice(0, 1), receiver.url)
    expect(await rows()).toHaveLength(1)
    // Cleared: nothing is written for new changes, whatever the environment says; what waited is dropped.
    await clearLeadWebhookUrl(ctx.database.db)
    await record(leadEvents('lead_cleared').slice(0, 1), receiver.url)
    expect(await rows()).toHaveLength(1)
    const env = newDispatcher({ leadWebhookUrl: receiver.url })
    try {
      expect(await env.drain()).toBe(0)
    } finally {
      await env.stop()
    }
    expect((await rows())[0]).toMatchObject({ status: 'cancelled' })
    // No URL anywhere: nothing written.
    await resetLeadWebhookUrl(ctx.database.db)
    await record(leadEvents('lead_none').slice(0, 1), null)
    expect(await rows()).toHaveLength(1)
    // Stored by the CLI: written even when the environment has none, and delivered there.
    await setLeadWebhookUrl(ctx.database.db, `${receiver.origin}/stored`)
    await record(leadEvents('lead_cli').slice(0, 1), null)
    expect(await dispatcher.drain()).toBe(1)
    expect(receiver.requests.map((r) => r.path)).toEqual(['/stored'])
  })
})

describe('retention', () => {
  it('purges deliveries made before the event retention, with their attempts, and keeps failed ones', async () => {
    await subscribe()
    await createTask('Delivered long ago')
    await createTask('Failed long ago')
    receiver.respondWith((request) => ({ status: request.body.includes('Failed long ago') ? 410 : 200 }))
    await dispatcher.drain()
    const [delivered, failing] = await rows()
    await ctx.database.db
      .updateTable('outbox')
      .set({ status: 'failed' })
      .where('seq', '=', failing?.seq ?? 0)
      .execute()
    ctx.clock.advance((ctx.config.eventRetentionDays + 1) * 86_400_000)
    await createTask('Delivered just now')
    await dispatcher.drain()
    expect(
      await purgeDeliveredOutbox(ctx.database.db, ctx.clock, ctx.config.eventRetentionDays),
    ).toBeGreaterThanOrEqual(1)
    const left = await rows()
    expect(left.map((r) => r.status)).toEqual(['failed', 'delivered'])
    expect(left.map((r) => r.id)).not.toContain(delivered?.id)
    const attempts = await ctx.database.db
      .selectFrom('outbox_attempt')
      .select('outbox_id')
      .where('outbox_id', '=', delivered?.id ?? '')
      .execute()
    expect(attempts).toEqual([])
  })
})
