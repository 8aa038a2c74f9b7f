import { createServer, type Server as HttpServer } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { serve, type Server } from '../app/main.js'
import { basicAuth, createTestContext, type TestContext } from '../tooling/test-support/test-app.js'
import { loadConfig } from './config.js'
import { newId } from './security/ids.js'
import { formatTimestamp } from './data/time.js'
import { queryKind } from './metrics.js'
import { sampleValue as sample } from '@leadline/shared/metrics-server'

// `/metrics` of a real api process on both databases (LEADLINE_TEST_DB): served on its own port only when
// LEADLINE_METRICS_PORT is set, with the figures decision 0072 lists moving as the api works.

let ctx: TestContext
let server: Server
let receiver: HttpServer
let hookUrl = ''

beforeAll(async () => {
  ctx = await createTestContext()
  receiver = createServer((req, res) => {
    req.resume()
    req.on('end', () => res.writeHead(200).end('ok'))
  })
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  const address = receiver.address()
  hookUrl = `http://127.0.0.1:${String(typeof address === 'object' && address !== null ? address.port : 0)}/hook`
  const config = loadConfig({
    ...process.env,
    DATABASE_URL: ctx.config.databaseUrl,
    LOG_LEVEL: 'silent',
    LEADLINE_OUTBOUND_ALLOW_PRIVATE: '1',
    LEADLINE_METRICS_PORT: '0',
  })
  server = await serve({ config, port: 0, host: '127.0.0.1' })
})

afterAll(async () => {
  await server.close()
  await new Promise((resolve) => receiver.close(resolve))
  await ctx.close()
})

async function scrape(): Promise<string> {
  const url = server.metricsUrl
  if (url === undefined) throw new Error('no metrics server')
  const res = await fetch(`${url}/metrics`)
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toContain('text/plain')
  return res.text()
}

async function api(method: string, path: string, body?: unknown) {
  return fetch(`${server.url}/api/v1${path}`, {
    method,
    headers: { authorization: basicAuth(ctx.org.admin.key), 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
}

describe('/metrics', () => {
  it('is off unless LEADLINE_METRICS_PORT is set, and the api port has no /metrics', async () => {
    expect(loadConfig({}).metrics).toBeNull()
    expect(loadConfig({ LEADLINE_METRICS_PORT: '9464' }).metrics).toEqual({ port: 9464, host: '127.0.0.1' })
    expect(() => loadConfig({ LEADLINE_METRICS_PORT: '70000' })).toThrow(/LEADLINE_METRICS_PORT must be a TCP port/)
    expect(() => loadConfig({ LEADLINE_METRICS_PORT: '1', LEADLINE_METRICS_HOST: 'example.com' })).toThrow(
      /LEADLINE_METRICS_HOST must be an IP address/,
    )
    const onApi = await fetch(`${server.url}/metrics`)
    expect(onApi.status).toBe(401)
    expect(await onApi.text()).not.toContain('leadline_http_request')
    expect((await fetch(`${String(server.metricsUrl)}/other`)).status).toBe(404)
  })

  it('counts requests by route and status, and times database statements by kind', async () => {
    const series = 'leadline_http_request_duration_seconds_count{method="GET",route="/api/v1/me/",status_code="200"}'
    const before = sample(await scrape(), series) ?? 0
    for (let i = 0; i < 3; i++) expect((await api('GET', '/me/')).status).toBe(200)
    expect((await api('GET', '/lead/lead_missing/')).status).toBe(404)
    const text = await scrape()
    expect(sample(text, series)).toBe(before + 3)
    expect(
      sample(
        text,
        'leadline_http_request_duration_seconds_count{method="GET",route="/api/v1/lead/:id/",status_code="404"}',
      ),
    ).toBeGreaterThanOrEqual(1)
    expect(sample(text, 'leadline_db_query_duration_seconds_count{kind="select"}')).toBeGreaterThan(0)
    // prom-client's process metrics: memory and the event loop's lag.
    expect(sample(text, 'leadline_process_resident_memory_bytes')).toBeGreaterThan(10_000_000)
    expect(text).toContain('leadline_nodejs_eventloop_lag_seconds')
  })

  it('shows the outbox backlog, the age of its oldest waiting row, and deliveries by result', async () => {
    const hook = await api('POST', '/webhook/', {
      url: hookUrl,
      events: [{ object_type: 'lead', action: 'created' }],
    })
    expect(hook.status).toBe(201)
    const delivered = 'leadline_outbox_deliveries_total{kind="webhook",result="delivered"}'
    const before = sample(await scrape(), delivered) ?? 0
    expect((await api('POST', '/lead/', { name: 'Metrics Co' })).status).toBe(200)
    await expect.poll(async () => sample(await scrape(), delivered), { timeout: 15_000 }).toBe(before + 1)
    // A delivery waiting an hour from now, made two minutes ago: the backlog counts it, its age shows.
    const at = new Date(Date.now() - 120_000)
    await ctx.database.db
      .insertInto('outbox')
      .values({
        id: newId('outbox'),
        organization_id: ctx.org.id,
        kind: 'test_waiting',
        subscription_id: null,
        event_id: null,
        ordering_key: 'metrics-test',
        payload: '{}',
        status: 'pending',
        attempts: 0,
        next_attempt_at: formatTimestamp(new Date(Date.now() + 3_600_000)),
        lease_owner: null,
        lease_until: null,
        last_status_code: null,
        last_error: null,
        date_created: formatTimestamp(at),
        date_updated: formatTimestamp(at),
      })
      .execute()
    const text = await scrape()
    expect(sample(text, 'leadline_outbox_backlog')).toBeGreaterThanOrEqual(1)
    expect(sample(text, 'leadline_outbox_oldest_pending_age_seconds')).toBeGreaterThanOrEqual(119)
  })

  it('counts open event streams', async () => {
    const before = sample(await scrape(), 'leadline_event_streams') ?? 0
    const controller = new AbortController()
    const res = await fetch(`${server.url}/api/v1/event/stream/`, {
      headers: { authorization: basicAuth(ctx.org.admin.key) },
      signal: controller.signal,
    })
    expect(res.status).toBe(200)
    await expect.poll(async () => sample(await scrape(), 'leadline_event_streams')).toBe(before + 1)
    controller.abort()
    await expect.poll(async () => sample(await scrape(), 'leadline_event_streams')).toBe(before)
  })

  it('labels statements by their first keyword only', () => {
    expect(queryKind('select 1')).toBe('select')
    expect(queryKind('  INSERT INTO lead')).toBe('insert')
    expect(queryKind('with x as (select 1) select * from x')).toBe('select')
    expect(queryKind('pragma optimize')).toBe('other')
    expect(queryKind('')).toBe('other')
  })
})
