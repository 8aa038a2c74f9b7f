import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, createTestContext, type TestContext } from '../tooling/test-support/test-app.js'
import { ENDED_SESSION_DAYS, purgeEndedSessionKeys } from './session-retention.js'

let ctx: TestContext
beforeAll(async () => {
  ctx = await createTestContext()
})
afterAll(async () => {
  await ctx.close()
})

const DAY_MS = 86_400_000

describe('purging ended sessions’ keys', () => {
  it('deletes those revoked or expired long enough ago, and keeps live sessions and API keys', async () => {
    const org = await ctx.createOrg('Purged sessions')
    const session = async (body: Record<string, unknown>) =>
      (await call(ctx.app, org.member.key, 'POST', '/auth/session/', { body })).json()
    const signedOut = await session({})
    await call(ctx.app, signedOut.api_key, 'DELETE', `/auth/session/${String(signedOut.api_key_id)}/`)
    const short = await session({ expires_in: 3600 })
    const live = await session({ expires_in: 3650 * 86_400, idle_seconds: 365 * 86_400 })

    expect(await purgeEndedSessionKeys(ctx.database.db, ctx.clock)).toBe(0)
    ctx.clock.advance(ENDED_SESSION_DAYS * DAY_MS + DAY_MS)
    const ids = [signedOut.api_key_id, short.api_key_id, live.api_key_id, org.member.keyId]
    const before = await ctx.database.db.selectFrom('api_key').select('id').where('id', 'in', ids).execute()
    expect(before).toHaveLength(4)
    expect(await purgeEndedSessionKeys(ctx.database.db, ctx.clock)).toBe(2)
    const after = await ctx.database.db.selectFrom('api_key').select('id').where('id', 'in', ids).execute()
    expect(after.map((row) => row.id).sort()).toEqual([live.api_key_id, org.member.keyId].sort())
  })
})
