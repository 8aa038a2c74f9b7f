import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { inboundSecretOf, signedPost, storedCounts } from '../../tooling/test-support/inbound-client.js'
import { call, createTestContext, type TestContext } from '../../tooling/test-support/test-app.js'

// Postgres only: deliveries that arrive side by side run in transactions side by side. SQLite's single writer
// takes them one after the other.

let ctx: TestContext
let secret: string
let local: string
beforeAll(async () => {
  ctx = await createTestContext()
  const res = await call(ctx.app, ctx.org.admin.key, 'POST', '/phone_number/', {
    body: { number: '+13125550100', user_id: ctx.org.member.id },
  })
  expect(res.statusCode, res.body).toBe(200)
  local = '+13125550100'
  secret = await inboundSecretOf(ctx.app, ctx.org)
})
afterAll(async () => {
  await ctx.close()
})

function post(kind: 'sms' | 'call', body: Record<string, unknown>, id?: string) {
  return signedPost(ctx.app, ctx.clock, kind, {
    organizationId: ctx.org.id,
    secret,
    body,
    ...(id === undefined ? {} : { id }),
  })
}

async function answers(requests: Promise<{ statusCode: number; body: string }>[]) {
  const responses = await Promise.all(requests)
  for (const res of responses) expect(res.statusCode, res.body).toBe(200)
  return responses.map((res) => JSON.parse(res.body) as { activity_id: string; lead_id: string; task_id: string })
}

describe('deliveries side by side', () => {
  it('of one webhook-id, or of one message under several, store it once and all get its answer', async () => {
    const before = await storedCounts(ctx.database.db, ctx.org.id)
    const body = { id: 'SM-same', remote_phone: '+13125550111', local_phone: local, text: 'Once only' }
    const all = await answers([
      ...Array.from({ length: 4 }, () => post('sms', body, 'msg_side_by_side')),
      ...Array.from({ length: 4 }, (_, i) => post('sms', body, `msg_other_${String(i)}`)),
    ])
    expect(new Set(all.map((a) => JSON.stringify(a))).size).toBe(1)
    const after = await storedCounts(ctx.database.db, ctx.org.id)
    expect(after.activity - before.activity).toBe(2) // the SMS and the new lead's Created
    expect(after.lead - before.lead).toBe(1)
    expect(after.task - before.task).toBe(1)
  })

  it('of different texts from one unknown number put them on one new lead', async () => {
    const before = await storedCounts(ctx.database.db, ctx.org.id)
    const all = await answers(
      Array.from({ length: 5 }, (_, i) =>
        post('sms', { id: `SM-new-${String(i)}`, remote_phone: '+13125550122', local_phone: local, text: String(i) }),
      ),
    )
    expect(new Set(all.map((a) => a.lead_id)).size).toBe(1)
    expect(new Set(all.map((a) => a.activity_id)).size).toBe(5)
    expect((await storedCounts(ctx.database.db, ctx.org.id)).lead - before.lead).toBe(1)
  })

  it('of one call’s end make one task', async () => {
    const body = { id: 'CA-side', status: 'no-answer', remote_phone: '+13125550133', local_phone: local }
    const before = await storedCounts(ctx.database.db, ctx.org.id)
    const all = await answers(Array.from({ length: 5 }, () => post('call', body)))
    expect(new Set(all.map((a) => a.task_id)).size).toBe(1)
    expect(all[0]?.task_id).toMatch(/^noti_/)
    const after = await storedCounts(ctx.database.db, ctx.org.id)
    expect(after.task - before.task).toBe(1)
    expect(after.inbound_ref - before.inbound_ref).toBe(1)
  })
})
