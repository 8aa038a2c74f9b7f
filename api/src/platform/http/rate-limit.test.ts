import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, createTestContext, TestClock, type TestContext } from '../../tooling/test-support/test-app.js'
import { memoryRateLimiter } from './rate-limit.js'

let ctx: TestContext
beforeAll(async () => {
  ctx = await createTestContext({ env: { LEADLINE_RATE_LIMIT: '3', LEADLINE_RATE_WINDOW: '60' } })
})
afterAll(async () => {
  await ctx.close()
})

describe('rate limits', () => {
  it('counts down, then answers 429 with the Close body and Retry-After', async () => {
    const remaining = []
    for (let i = 0; i < 3; i++) {
      const res = await call(ctx.app, ctx.org.member.key, 'GET', '/user/')
      expect(res.statusCode).toBe(200)
      remaining.push(res.headers['x-rate-limit-remaining'])
    }
    expect(remaining).toEqual(['2', '1', '0'])

    const limited = await call(ctx.app, ctx.org.member.key, 'GET', '/user/')
    expect(limited.statusCode).toBe(429)
    const retryAfter = Number(limited.headers['retry-after'])
    expect(retryAfter).toBeGreaterThanOrEqual(1)
    expect(retryAfter).toBeLessThanOrEqual(60)
    expect(limited.headers['x-request-id']).toMatch(/^req_[0-9A-Za-z]{22}$/)
    expect(limited.headers['x-rate-limit-limit']).toBe('3')
    expect(limited.headers['x-rate-limit-remaining']).toBe('0')
    expect(limited.headers.ratelimit).toMatch(/^limit=3, remaining=0, reset=\d+$/)
    const body = limited.json()
    expect(body).toEqual({
      error: {
        message: 'API call count exceeded for this period',
        rate_reset: expect.any(Number),
        rate_limit: 3,
        rate_window: 60,
        rate_limit_type: 'key',
        rate_endpoint_group: 'user',
      },
    })
    expect(body.error.rate_reset).toBeGreaterThan(0)
    expect(body.error.rate_reset).toBeLessThanOrEqual(60)
    // Whole seconds in the body, rounded up from the header's fraction: waiting that long is always enough.
    expect(Number.isInteger(body.error.rate_reset)).toBe(true)
    expect(body.error.rate_reset).toBe(Math.ceil(Number(limited.headers['x-rate-limit-reset'])))
  })

  it('in one process, starts a new window once the last one has ended, on the clock it is given', async () => {
    // The one-process limiter, on either database (on Postgres the app shares its counters through the database).
    const clock = new TestClock()
    const own = await createTestContext({ rateLimiter: memoryRateLimiter({ points: 3, windowSeconds: 60 }, clock) })
    try {
      const key = own.org.member.key
      for (let i = 0; i < 3; i++) expect((await call(own.app, key, 'GET', '/user/')).statusCode).toBe(200)
      clock.advance(30_000)
      const limited = await call(own.app, key, 'GET', '/user/')
      expect(limited.statusCode).toBe(429)
      const reset = Number(limited.headers['x-rate-limit-reset'])
      expect(reset).toBeGreaterThan(29)
      expect(reset).toBeLessThanOrEqual(30)
      clock.advance(30_000)
      const next = await call(own.app, key, 'GET', '/user/')
      expect(next.statusCode).toBe(200)
      expect(next.headers['x-rate-limit-remaining']).toBe('2')
      expect(next.headers['x-rate-limit-reset']).toBe('60.000000')
    } finally {
      await own.close()
    }
  })

  it('counts each endpoint group and method separately', async () => {
    const me = await call(ctx.app, ctx.org.member.key, 'GET', '/me/')
    expect(me.statusCode).toBe(200)
    expect(me.headers['x-rate-limit-remaining']).toBe('2')
  })

  it('counts each API key separately', async () => {
    const res = await call(ctx.app, ctx.org.admin.key, 'GET', '/user/')
    expect(res.statusCode).toBe(200)
    expect(res.headers['x-rate-limit-remaining']).toBe('2')
  })

  it('lets exactly the limit of a burst of concurrent requests through and refuses the rest', async () => {
    const burst = await Promise.all(
      Array.from({ length: 10 }, () => call(ctx.app, ctx.org.member.key, 'GET', '/lead/')),
    )
    const statuses = burst.map((r) => r.statusCode)
    expect(statuses.filter((s) => s === 200)).toHaveLength(3)
    expect(statuses.filter((s) => s === 429)).toHaveLength(7)
    const remaining = burst.filter((r) => r.statusCode === 200).map((r) => r.headers['x-rate-limit-remaining'])
    expect(remaining.sort()).toEqual(['0', '1', '2'])
  })

  it('limits unauthenticated callers by address', async () => {
    const statuses = []
    for (let i = 0; i < 4; i++) statuses.push((await call(ctx.app, undefined, 'GET', '/lead/')).statusCode)
    expect(statuses).toEqual([401, 401, 401, 429])
  })

  it('limits the routes open to anyone by address too, before they write anything', async () => {
    const start = () =>
      call(ctx.app, undefined, 'POST', '/auth/sso/start/', {
        body: { email: 'a@nowhere.test' },
        headers: { 'x-forwarded-for': '198.51.100.77' },
      })
    const statuses = []
    for (let i = 0; i < 4; i++) statuses.push((await start()).statusCode)
    expect(statuses).toEqual([400, 400, 400, 429])
    const lookups = []
    for (let i = 0; i < 4; i++)
      lookups.push(
        (await call(ctx.app, undefined, 'POST', '/auth/invitation/lookup/', { body: { token: `t${String(i)}` } }))
          .statusCode,
      )
    expect(lookups).toEqual([400, 400, 400, 429])
  })
})
