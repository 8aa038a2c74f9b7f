import { sql } from 'kysely'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { Dispatcher } from '../../integrations/outbox/outbox-dispatcher.js'
import { formatTimestamp } from '../../platform/data/time.js'
import { waitFor } from '../../tooling/test-support/delivery-check.js'
import {
  CONTACT_PHONE,
  INTERNAL_PHONE,
  smsDispatcher,
  smsScene,
  type SmsScene,
} from '../../tooling/test-support/sms-scene.js'
import { call, createTestContext, type TestContext } from '../../tooling/test-support/test-app.js'
import { logSmsProvider } from './sms-provider.js'
import { cancelSend } from '../../integrations/messages/message-send.js'
import { SMS_CHANNEL } from './sms-send.js'

// On Postgres a cancel and a claim of the same send are two transactions that may run at the same moment, in
// different processes. They exclude each other by the row's lock: whichever writes it first wins, and the other,
// once the first commits, sees what it did (the claim's lease makes a cancel "too late"; a cancelled row is no longer
// claimed).

let ctx: TestContext
let scene: SmsScene
let dispatcher: Dispatcher
const logged: string[] = []

beforeAll(async () => {
  ctx = await createTestContext()
  scene = await smsScene(ctx.app, ctx.org)
})
afterAll(async () => {
  await ctx.close()
})
beforeEach(() => {
  logged.length = 0
  dispatcher = smsDispatcher(
    ctx,
    logSmsProvider((fields, line) => logged.push(line)),
  )
})
afterEach(async () => {
  await dispatcher.stop()
})

async function outbox(text: string): Promise<string> {
  const res = await call(ctx.app, ctx.org.member.key, 'POST', '/activity/sms/', {
    body: { lead_id: scene.leadId, status: 'outbox', text, local_phone: INTERNAL_PHONE, remote_phone: CONTACT_PHONE },
  })
  expect(res.statusCode, res.body).toBe(200)
  return res.json<{ id: string }>().id
}

function sendRow(id: string) {
  return ctx.database.db
    .selectFrom('outbox')
    .selectAll()
    .where('ordering_key', '=', `sms:${id}`)
    .executeTakeFirstOrThrow()
}

/** A transaction kept open until `finish` is called; `ready` resolves once `work` has run in it. */
function openTransaction(work: (tx: typeof ctx.database.db) => Promise<unknown>) {
  let finish = () => {}
  const gate = new Promise<void>((resolve) => {
    finish = resolve
  })
  let ran = () => {}
  const ready = new Promise<void>((resolve) => {
    ran = resolve
  })
  const done = ctx.database.db.transaction().execute(async (tx) => {
    await work(tx)
    ran()
    await gate
  })
  return { ready, finish, done }
}

describe('a cancel and a claim at the same moment', () => {
  it('a claim not yet committed makes the cancel wait, then answer too late', async () => {
    const id = await outbox('Claimed first')
    const row = await sendRow(id)
    // A dispatcher elsewhere has written its lease and not committed yet.
    const claim = openTransaction((tx) =>
      tx
        .updateTable('outbox')
        .set({ lease_owner: 'elsewhere', lease_until: formatTimestamp(new Date(ctx.clock.now().getTime() + 60_000)) })
        .where('seq', '=', row.seq)
        .execute(),
    )
    await claim.ready
    const cancel = call(ctx.app, ctx.org.member.key, 'PUT', `/activity/sms/${id}/`, { body: { status: 'draft' } })
    let answered = false
    void cancel.then(() => {
      answered = true
    })
    // The cancel's update waits for the claim's row lock.
    const blocked = async () => {
      const waiting = await sql<{ n: number }>`
        SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'
      `.execute(ctx.database.db)
      return (waiting.rows[0]?.n ?? 0) > 0
    }
    expect(await waitFor(blocked, 10_000)).toBe(true)
    expect(answered).toBe(false)
    claim.finish()
    await claim.done
    const res = await cancel
    expect(res.statusCode).toBe(400)
    expect(res.json()['field-errors']).toEqual({ status: 'Too late: the message is being sent right now.' })
    expect((await sendRow(id)).status).toBe('pending')
  })

  it('a cancel not yet committed keeps the row from the claim, and once committed it is never sent', async () => {
    const id = await outbox('Cancelled first')
    const cancel = openTransaction((tx) =>
      cancelSend(tx, SMS_CHANNEL, {
        organizationId: ctx.org.id,
        activityId: id,
        now: formatTimestamp(ctx.clock.now()),
        reason: 'test',
      }),
    )
    await cancel.ready
    // The claim skips the row the cancel holds.
    expect(await dispatcher.drain()).toBe(0)
    cancel.finish()
    await cancel.done
    expect(await dispatcher.drain()).toBe(0)
    expect(logged).toEqual([])
    expect((await sendRow(id)).status).toBe('cancelled')
    // A send nobody cancels goes out through the same dispatcher.
    await outbox('Left alone')
    expect(await dispatcher.drain()).toBe(1)
    expect(logged).toHaveLength(1)
  })
})
