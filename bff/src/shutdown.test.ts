import { afterEach, beforeEach, expect, test, vi } from 'vitest'
import {
  rawRequest,
  signIn,
  SLOW_MS,
  startBff,
  startFakeUpstream,
  tempDir,
  testConfig,
  type StartedBff,
} from './test-support/harness.js'

let upstream: Awaited<ReturnType<typeof startFakeUpstream>>
let dir: Awaited<ReturnType<typeof tempDir>>
let bff: StartedBff | undefined

beforeEach(async () => {
  upstream = await startFakeUpstream()
  dir = await tempDir()
})

afterEach(async () => {
  await bff?.close()
  await upstream.close()
  await dir.remove()
})

/** Sends a request and resolves once the API has it, with the answer still to come. */
async function inFlight(target: string, cookie: string) {
  const answer = rawRequest(bff?.url ?? '', target, { 'x-requested-with': 'leadline', cookie })
  answer.catch(() => undefined)
  await vi.waitFor(() => {
    expect(upstream.requests.map((r) => r.url)).toContain(target)
  })
  return { answer }
}

test('on stop a request in flight still gets its answer, its connection closes behind it, and nothing new gets in', async () => {
  bff = await startBff(testConfig({ apiUrl: upstream.url, dataDir: dir.path }), undefined, { graceMs: 10_000 })
  const cookie = await signIn(bff)
  const { answer } = await inFlight('/api/v1/slow/', cookie)

  const started = Date.now()
  const stopped = bff.stop()
  const response = await answer
  expect(response.status).toBe(200)
  expect(response.headers.connection).toBe('close')
  await stopped
  // Not the 5 s keep-alive timeout of the idle connection, nor the grace period.
  expect(Date.now() - started).toBeLessThan(SLOW_MS + 1500)
  await expect(rawRequest(bff.url, '/healthz')).rejects.toThrow(/ECONNREFUSED/)
})

test('an answer still missing after the grace period is cut, and the API request is abandoned', async () => {
  bff = await startBff(testConfig({ apiUrl: upstream.url, dataDir: dir.path, apiTimeoutMs: 60_000 }), undefined, {
    graceMs: 300,
  })
  const cookie = await signIn(bff)
  const { answer } = await inFlight('/api/v1/hang/', cookie)
  const started = Date.now()
  await bff.stop()
  expect(Date.now() - started).toBeLessThan(3000)
  await expect(answer).rejects.toThrow(/socket hang up|ECONNRESET/)
})
