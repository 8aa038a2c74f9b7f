import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createOutboundClient } from '../outbound/outbound-client.js'
import { formatTimestamp } from '../../platform/data/time.js'
import type { SmsProvider } from '../../telephony/sms/sms-provider.js'
import { SMS_SEND_KIND, smsSendHandler } from '../../telephony/sms/sms-send.js'
import { CONTACT_PHONE, INTERNAL_PHONE, smsScene } from '../../tooling/test-support/sms-scene.js'
import { call, createTestContext, type TestContext, type TestOrg } from '../../tooling/test-support/test-app.js'
import { startReceiver, type Receiver } from '../../tooling/test-support/webhook-receiver.js'
import {
  createDispatcher,
  WEBHOOK_PAUSE_AFTER_MS,
  type HandlerContext,
  type OutboxHandler,
} from './outbox-dispatcher.js'

// A delivery whose lease was lost while it was under way (another claim took the row: another process, or this one
// once the lease ran out) records, reschedules and pauses nothing, and says so (decision 0037): the row, its
// attempts, its subscription and its message stay as the claim that holds it leaves them.

let ctx: TestContext
let receiver: Receiver
let org: TestOrg
const reported: string[] = []

beforeAll(async () => {
  ctx = await createTestContext({ env: { LEADLINE_OUTBOX_LEASE_SECONDS: '60', LEADLINE_OUTBOUND_ALLOW_PRIVATE: '1' } })
  receiver = await startReceiver()
})
afterAll(async () => {
  await receiver.close()
  await ctx.close()
})
beforeEach(async () => {
  ctx.clock.set(new Date())
  reported.length = 0
  receiver.requests.length = 0
  org = await ctx.createOrg('Leases')
})

function dispatcherWith(handlers: Record<string, (context: HandlerContext) => OutboxHandler> = {}) {
  return createDispatcher({
    db: ctx.database.db,
    dialect: ctx.database.dialect,
    clock: ctx.clock,
    config: ctx.config,
    client: createOutboundClient({ allowPrivate: true }),
    random: () => 0.5,
    handlers,
    onError: (error) => {
      reported.push(error instanceof Error ? error.message : String(error))
    },
  })
}

/** The organization's outbox rows of `kind`. */
const rowsOf = (kind: string) =>
  ctx.database.db
    .selectFrom('outbox')
    .selectAll()
    .where('organization_id', '=', org.id)
    .where('kind', '=', kind)
    .execute()

const attemptsOf = (outboxId: string) =>
  ctx.database.db.selectFrom('outbox_attempt').selectAll().where('outbox_id', '=', outboxId).execute()

/** Another claim takes the organization's pending rows of `kind`: `owner`'s lease, until a minute from now. */
async function takeOver(kind: string, owner: string): Promise<string> {
  const until = formatTimestamp(new Date(ctx.clock.now().getTime() + 60_000))
  await ctx.database.db
    .updateTable('outbox')
    .set({ lease_owner: owner, lease_until: until })
    .where('organization_id', '=', org.id)
    .where('kind', '=', kind)
    .where('status', '=', 'pending')
    .execute()
  return until
}

describe('a delivery whose lease was lost', () => {
  for (const by of ['another process', 'this process, once its lease had run out'] as const) {
    it(`webhook: records no attempt, reschedules nothing and pauses no subscription (taken by ${by})`, async () => {
      const hook = await call(ctx.app, org.admin.key, 'POST', '/webhook/', {
        body: { url: receiver.url, events: [{ object_type: 'lead', action: 'created' }] },
      })
      expect(hook.statusCode, hook.body).toBe(201)
      const subscriptionId = hook.json<{ id: string }>().id
      // Failing for longer than the pause threshold: one more failure recorded would pause it.
      const longAgo = formatTimestamp(new Date(ctx.clock.now().getTime() - WEBHOOK_PAUSE_AFTER_MS - 60_000))
      await ctx.database.db
        .updateTable('webhook_subscription')
        .set({ failing_since: longAgo })
        .where('id', '=', subscriptionId)
        .execute()
      const lead = await call(ctx.app, org.member.key, 'POST', '/lead/', { body: { name: 'Leased Co' } })
      expect(lead.statusCode, lead.body).toBe(200)
      const dispatcher = dispatcherWith()
      let until = ''
      receiver.respondWith(async () => {
        until = await takeOver('webhook', by === 'another process' ? 'another-process' : dispatcher.owner)
        return { status: 500 }
      })
      expect(await dispatcher.drain()).toBe(1)
      await dispatcher.stop()

      const [row] = await rowsOf('webhook')
      expect(receiver.requests).toHaveLength(1)
      expect(row).toMatchObject({ status: 'pending', attempts: 0, last_error: null, lease_until: until })
      expect(await attemptsOf(row?.id ?? '')).toEqual([])
      const subscription = await ctx.database.db
        .selectFrom('webhook_subscription')
        .select(['status', 'failing_since'])
        .where('id', '=', subscriptionId)
        .executeTakeFirstOrThrow()
      expect(subscription).toEqual({ status: 'active', failing_since: longAgo })
      expect(reported).toEqual([
        expect.stringMatching(/^the lease was lost before the outcome .* nothing was recorded$/),
      ])
    })

    it(`text: the message is not marked sent and no attempt is recorded (taken by ${by})`, async () => {
      const scene = await smsScene(ctx.app, org)
      const res = await call(ctx.app, org.member.key, 'POST', '/activity/sms/', {
        body: {
          lead_id: scene.leadId,
          status: 'outbox',
          local_phone: INTERNAL_PHONE,
          remote_phone: CONTACT_PHONE,
          text: 'Hi',
        },
      })
      expect(res.statusCode, res.body).toBe(200)
      const id = res.json<{ id: string }>().id
      let until = ''
      let owner = 'another-process'
      const provider: SmsProvider = {
        target: 'test:',
        async send() {
          until = await takeOver(SMS_SEND_KIND, owner)
          return { ok: true, statusCode: 200, durationMs: 0, error: null }
        },
        close() {
          // Nothing held.
        },
      }
      const { db, dialect } = ctx.database
      const dispatcher = dispatcherWith({
        [SMS_SEND_KIND]: smsSendHandler({ db, dialect, clock: ctx.clock, config: ctx.config, provider }),
      })
      if (by !== 'another process') owner = dispatcher.owner
      expect(await dispatcher.drain()).toBe(1)
      await dispatcher.stop()

      const [row] = await rowsOf(SMS_SEND_KIND)
      expect(row).toMatchObject({ status: 'pending', attempts: 0, lease_until: until })
      expect(await attemptsOf(row?.id ?? '')).toEqual([])
      const message = await call(ctx.app, org.member.key, 'GET', `/activity/sms/${id}/`)
      expect(message.json()).toMatchObject({ status: 'outbox', date_sent: null })
      expect(reported).toEqual([expect.stringMatching(/^the lease was lost before the outcome \(sent\)/)])
    })
  }
})
