import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { sessionPair, tempDir } from './test-support/harness.js'
import { call, Processes } from './test-support/processes.js'
import { MAX_ROUTES, routePattern } from './metrics.js'
import { sampleValue as sample } from '@leadline/shared/metrics-server'

// `/metrics` of a real BFF process in front of a real api: served on its own port only when
// LEADLINE_BFF_METRICS_PORT is set, with each figure moving as browsers use the BFF.

let processes: Processes
let dir: Awaited<ReturnType<typeof tempDir>>
let apiKey = ''
let bff = ''
let metricsUrl = ''

beforeAll(async () => {
  processes = new Processes()
  dir = await tempDir()
  const api = await processes.api(dir.path)
  apiKey = api.apiKey
  const started = await processes.bff(api.url, join(dir.path, 'bff'), { LEADLINE_BFF_METRICS_PORT: '0' })
  bff = started.url
  // Logged just after `listening on`, maybe in the same chunk: read from all it has written.
  metricsUrl = await vi.waitFor(() => {
    const [, url] = /metrics on (http:\/\/[^"]+)\/metrics/.exec(started.output()) ?? []
    if (url === undefined) throw new Error('no metrics URL logged yet')
    return url
  })
}, 90_000)

afterAll(async () => {
  await processes.stopAll()
  await dir.remove()
}, 30_000)

async function scrape(): Promise<string> {
  const res = await fetch(`${metricsUrl}/metrics`)
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toContain('text/plain')
  return res.text()
}

async function signIn(): Promise<string> {
  const res = await call(bff, '/auth/session', { method: 'POST', body: { api_key: apiKey, time_zone: 'Europe/Paris' } })
  expect(res.status).toBe(200)
  return sessionPair(res.setCookies)
}

describe("the BFF's /metrics", () => {
  it('is on its own loopback port, not on the BFF port', async () => {
    expect(metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    const onBff = await fetch(`${bff}/metrics`)
    expect(await onBff.text()).not.toContain('leadline_bff_')
    expect((await fetch(`${metricsUrl}/other`)).status).toBe(404)
  })

  it('counts sign-ins by result', async () => {
    const failed = 'leadline_bff_sign_ins_total{result="failed"}'
    const succeeded = 'leadline_bff_sign_ins_total{result="succeeded"}'
    const before = await scrape()
    const refused = await call(bff, '/auth/session', { method: 'POST', body: { api_key: 'nope', time_zone: 'UTC' } })
    expect(refused.status).toBe(401)
    await signIn()
    const after = await scrape()
    expect(sample(after, failed)).toBe((sample(before, failed) ?? 0) + 1)
    expect(sample(after, succeeded)).toBe((sample(before, succeeded) ?? 0) + 1)
  })

  it('times the session store’s statements by operation', async () => {
    const cookie = await signIn()
    const select = 'leadline_bff_session_store_duration_seconds_count{operation="select",result="ok"}'
    const before = await scrape()
    // The session's own check reads the row each time (reads of the API may reuse it for a second: decision 0076).
    for (let i = 0; i < 3; i++) expect((await call(bff, '/auth/session', { cookie })).status).toBe(200)
    const after = await scrape()
    expect(sample(after, select)).toBe((sample(before, select) ?? 0) + 3)
    expect(sample(after, 'leadline_bff_session_store_duration_seconds_count{operation="insert",result="ok"}')).toBe(
      sample(after, 'leadline_bff_sign_ins_total{result="succeeded"}'),
    )
  })

  it('times requests and their calls to the API by method, route pattern and status', async () => {
    const cookie = await signIn()
    const me = 'leadline_bff_http_request_duration_seconds_count{method="GET",route="/api/v1/me/",status_code="200"}'
    const meUpstream =
      'leadline_bff_upstream_duration_seconds_count{method="GET",route="/api/v1/me/",status_code="200"}'
    const lead = '{method="GET",route="/api/v1/lead/:id/",status_code="404"}'
    const before = await scrape()
    for (let i = 0; i < 3; i++) expect((await call(bff, '/api/v1/me/', { cookie })).status).toBe(200)
    expect((await call(bff, '/api/v1/lead/lead_7Hq2kX9pLmN4vR8sT1uW3yZ5aB6cD0eF2gH4iJ6kL8m/', { cookie })).status).toBe(
      404,
    )
    const after = await scrape()
    expect(sample(after, me)).toBe((sample(before, me) ?? 0) + 3)
    expect(sample(after, meUpstream)).toBe((sample(before, meUpstream) ?? 0) + 3)
    expect(sample(after, `leadline_bff_http_request_duration_seconds_count${lead}`)).toBeGreaterThanOrEqual(1)
    expect(sample(after, `leadline_bff_upstream_duration_seconds_count${lead}`)).toBeGreaterThanOrEqual(1)
    expect(after).not.toContain('lead_7Hq2kX9p')
    // prom-client's process metrics: memory, the event loop's lag, heap and GC.
    expect(sample(after, 'leadline_bff_process_resident_memory_bytes')).toBeGreaterThan(10_000_000)
    expect(after).toContain('leadline_bff_nodejs_eventloop_lag_seconds')
    expect(after).toContain('leadline_bff_nodejs_heap_size_used_bytes')
  })

  it('counts open browser event streams and the streams to the API', async () => {
    const cookie = await signIn()
    const before = await scrape()
    expect(sample(before, 'leadline_bff_event_streams')).toBe(0)
    const controller = new AbortController()
    const res = await fetch(`${bff}/events`, { headers: { cookie }, signal: controller.signal })
    expect(res.status).toBe(200)
    await expect.poll(async () => sample(await scrape(), 'leadline_bff_event_streams')).toBe(1)
    await expect.poll(async () => sample(await scrape(), 'leadline_bff_upstream_event_streams')).toBe(1)
    controller.abort()
    await expect.poll(async () => sample(await scrape(), 'leadline_bff_event_streams')).toBe(0)
    await expect.poll(async () => sample(await scrape(), 'leadline_bff_upstream_event_streams')).toBe(0)
  })

  it('keeps its route labels bounded, whatever paths browsers send', async () => {
    for (let i = 0; i < MAX_ROUTES + 20; i++)
      await fetch(`${bff}/nowhere${String(i)}/x`, { headers: { accept: 'application/json' } })
    const text = await scrape()
    const routes = new Set(
      [...text.matchAll(/^leadline_bff_http_request_duration_seconds_count\{[^}]*route="([^"]*)"/gm)].map((m) => m[1]),
    )
    expect(routes.size).toBeLessThanOrEqual(MAX_ROUTES + 1)
    expect(routes).toContain('other')
  })
})

describe('routePattern', () => {
  it('replaces what is not a short lowercase word, and drops the query', () => {
    expect(routePattern('/api/v1/lead/lead_7Hq2kX9pLmN4vR8sT1uW3yZ5aB6cD0eF2gH4iJ6kL8m/?_fields=id')).toBe(
      '/api/v1/lead/:id/',
    )
    expect(routePattern('/api/v1/pipeline/pipe_abcdefghijklmnopqrstuv/')).toBe('/api/v1/pipeline/:id/')
    expect(routePattern('/api/v1/custom_field/lead/')).toBe('/api/v1/custom_field/lead/')
    expect(routePattern('/assets/index-4f2a.js')).toBe('/assets/:id')
    expect(routePattern('/events')).toBe('/events')
    expect(routePattern('/')).toBe('/')
    expect(routePattern('/1lead/Lead/le-ad/')).toBe('/:id/:id/:id/')
    expect(routePattern(`/${'a/'.repeat(100)}`)).toBeUndefined()
  })
})
