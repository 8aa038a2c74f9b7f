import { expect, test } from 'vitest'
import { SignInLimiter } from './sign-in-limiter.js'

const t0 = new Date('2026-05-01T10:00:00Z')
const seconds = (n: number) => new Date(t0.getTime() + n * 1000)

test('the window slides: the oldest of the last `limit` failures decides when the address may try again', () => {
  const limiter = new SignInLimiter({ limit: 3, windowMs: 60_000 })
  limiter.recordFailure('a', t0)
  limiter.recordFailure('a', seconds(10))
  expect(limiter.retryAfterSeconds('a', seconds(10))).toBe(0)
  limiter.recordFailure('a', seconds(20))
  expect(limiter.retryAfterSeconds('a', seconds(20))).toBe(40)
  expect(limiter.retryAfterSeconds('b', seconds(20))).toBe(0)
  expect(limiter.retryAfterSeconds('a', seconds(59.5))).toBe(1)
  expect(limiter.retryAfterSeconds('a', seconds(60))).toBe(0)
  limiter.recordFailure('a', seconds(61))
  expect(limiter.retryAfterSeconds('a', seconds(61))).toBe(9)
})

test('memory stays bounded: expired addresses are purged and the least recent are dropped past the cap', () => {
  const limiter = new SignInLimiter({ limit: 2, windowMs: 60_000, maxAddresses: 3 })
  for (const address of ['a', 'b', 'c', 'd']) limiter.recordFailure(address, t0)
  expect(limiter.addresses).toBe(3)
  limiter.recordFailure('b', seconds(1))
  expect(limiter.retryAfterSeconds('b', seconds(1))).toBe(59)
  limiter.purge(seconds(60))
  expect(limiter.addresses).toBe(1)
  limiter.purge(seconds(61))
  expect(limiter.addresses).toBe(0)
})
