import { afterEach, expect, test } from 'vitest'
import { SessionStore } from './session.js'
import { SignInLimiter } from './sign-in-limiter.js'
import {
  KEY,
  SECRET,
  startBff,
  startFakeUpstream,
  tempDir,
  testConfig,
  type StartedBff,
} from './test-support/harness.js'

const t0 = new Date('2026-05-01T10:00:00Z')
const seconds = (n: number) => new Date(t0.getTime() + n * 1000)

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function memoryStore(): Promise<SessionStore> {
  const store = await SessionStore.open({ file: undefined, secret: SECRET, idleMs: 60_000, maxAgeMs: 60_000 })
  cleanups.push(() => store.close())
  return store
}

test('the window slides: the oldest of the last `limit` failures decides when the address may try again', async () => {
  const limiter = new SignInLimiter({ store: await memoryStore(), limit: 3, windowMs: 60_000 })
  await limiter.recordFailure('a', t0)
  await limiter.recordFailure('a', seconds(10))
  expect(await limiter.retryAfterSeconds('a', seconds(10))).toBe(0)
  await limiter.recordFailure('a', seconds(20))
  expect(await limiter.retryAfterSeconds('a', seconds(20))).toBe(40)
  expect(await limiter.retryAfterSeconds('b', seconds(20))).toBe(0)
  expect(await limiter.retryAfterSeconds('a', seconds(59.5))).toBe(1)
  expect(await limiter.retryAfterSeconds('a', seconds(60))).toBe(0)
  await limiter.recordFailure('a', seconds(61))
  expect(await limiter.retryAfterSeconds('a', seconds(61))).toBe(9)
})

test('the store stays bounded: expired failures are purged and the oldest are dropped past the cap', async () => {
  const store = await memoryStore()
  const limiter = new SignInLimiter({ store, limit: 2, windowMs: 60_000, maxFailures: 3 })
  for (const address of ['a', 'b', 'c', 'd']) await limiter.recordFailure(address, t0)
  expect(await store.signInFailureAddresses()).toBe(3)
  expect(await store.signInFailures('a', 0, 10)).toEqual([])
  for (let i = 0; i < 5; i += 1) await limiter.recordFailure('b', seconds(1))
  expect(await store.signInFailures('b', 0, 10)).toHaveLength(2)
  expect(await limiter.retryAfterSeconds('b', seconds(1))).toBe(60)
  await limiter.purge(seconds(60))
  expect(await store.signInFailureAddresses()).toBe(1)
  await limiter.purge(seconds(61))
  expect(await store.signInFailureAddresses()).toBe(0)
})

test('two BFF processes on one session store share the limit, and a restart keeps the count', async () => {
  const upstream = await startFakeUpstream()
  cleanups.push(upstream.close)
  const dir = await tempDir()
  cleanups.push(dir.remove)
  const config = testConfig({ apiUrl: upstream.url, dataDir: dir.path, signInAttempts: 4 })
  const started: StartedBff[] = []
  cleanups.push(async () => {
    for (const bff of started) await bff.close()
  })
  const start = async () => {
    const bff = await startBff(config)
    started.push(bff)
    return bff
  }
  const [a, b] = [await start(), await start()]
  const attempt = (bff: StartedBff, key: string) =>
    bff.call('/auth/session', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: key, time_zone: 'UTC' }),
    })

  expect((await attempt(a, 'api_wrong1')).status).toBe(401)
  expect((await attempt(b, 'api_wrong2')).status).toBe(401)
  expect((await attempt(a, 'api_wrong3')).status).toBe(401)
  expect((await attempt(b, 'api_wrong4')).status).toBe(401)
  // Two failures on each: per process neither would have reached four.
  expect((await attempt(a, KEY)).status).toBe(429)
  expect((await attempt(b, KEY)).status).toBe(429)

  await a.close()
  expect((await attempt(await start(), KEY)).status).toBe(429)
})
