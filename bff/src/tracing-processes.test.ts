import { createServer, type Server } from 'node:http'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { closeServer, deadPort, listen, port, sessionPair, tempDir } from './test-support/harness.js'
import { call, logLines, Processes, stop, type Started } from './test-support/processes.js'

// OpenTelemetry traces of a real BFF and the real api behind it, sent to an OTLP/HTTP receiver in this test
// (decision 0074): one request, one trace across both, and its id on both processes' log lines.

interface ReceivedSpan {
  service: string
  traceId: string
  spanId: string
  parentSpanId: string
  name: string
  kind: number
}

const SERVER = 2
const CLIENT = 3

let processes: Processes
let dir: Awaited<ReturnType<typeof tempDir>>
let receiver: Server
let endpoint = ''
const received: ReceivedSpan[] = []
let api: Started & { url: string; apiKey: string }
let bff: Started & { url: string }

function record(body: unknown): void {
  const resourceSpans = (body as { resourceSpans?: unknown[] }).resourceSpans ?? []
  for (const resource of resourceSpans as {
    resource?: { attributes?: { key: string; value: { stringValue?: string } }[] }
    scopeSpans?: { spans?: Omit<ReceivedSpan, 'service'>[] }[]
  }[]) {
    const service = resource.resource?.attributes?.find((a) => a.key === 'service.name')?.value.stringValue ?? ''
    for (const scope of resource.scopeSpans ?? [])
      for (const span of scope.spans ?? [])
        received.push({
          service,
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId,
          name: span.name,
          kind: span.kind,
        })
  }
}

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      if (req.url === '/v1/traces' && req.headers['content-type'] === 'application/json')
        record(JSON.parse(Buffer.concat(chunks).toString('utf8')))
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    })
  })
  await listen(receiver)
  endpoint = `http://127.0.0.1:${String(port(receiver))}`
  processes = new Processes()
  dir = await tempDir()
  const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_BSP_SCHEDULE_DELAY: '100' }
  api = await processes.api(dir.path, { ...otel, LOG_LEVEL: 'info' })
  bff = await processes.bff(api.url, join(dir.path, 'bff'), otel)
}, 90_000)

afterAll(async () => {
  await processes.stopAll()
  await closeServer(receiver)
  await dir.remove()
}, 30_000)

async function signIn(base: string): Promise<string> {
  const res = await call(base, '/auth/session', { method: 'POST', body: { api_key: api.apiKey, time_zone: 'UTC' } })
  expect(res.status).toBe(200)
  return sessionPair(res.setCookies)
}

/** The request's log lines in a process, once `atLeast` are written. */
function linesOf(process: Started, requestId: string, atLeast: number) {
  return vi.waitFor(() => {
    const lines = logLines(process.output()).filter((line) => line.reqId === requestId)
    if (lines.length < atLeast) throw new Error(`${String(lines.length)} lines so far`)
    return lines
  })
}

describe('traces', () => {
  it("one request through the BFF is one trace: the api's server span is the child of the BFF's client span", async () => {
    const cookie = await signIn(bff.url)
    const res = await call(bff.url, '/api/v1/me/', { cookie })
    expect(res.status).toBe(200)
    const requestId = res.headers.get('x-request-id') ?? ''
    const [bffLine] = await linesOf(bff, requestId, 1)
    const traceId = String(bffLine?.trace_id)
    expect(traceId).toMatch(/^[0-9a-f]{32}$/)

    const spans = await vi.waitFor(
      () => {
        const inTrace = received.filter((span) => span.traceId === traceId)
        if (inTrace.length < 3) throw new Error(`${String(inTrace.length)} spans so far`)
        return inTrace
      },
      { timeout: 10_000 },
    )
    const bffServer = spans.find((s) => s.service === 'leadline-bff' && s.kind === SERVER)
    const bffClient = spans.find((s) => s.service === 'leadline-bff' && s.kind === CLIENT)
    const apiServer = spans.find((s) => s.service === 'leadline-api' && s.kind === SERVER)
    expect(bffServer).toMatchObject({ name: 'GET /api/v1/me/', spanId: bffLine?.span_id })
    expect(bffServer?.parentSpanId ?? '').toBe('')
    expect(bffClient).toMatchObject({ name: 'GET /api/v1/me/', parentSpanId: bffServer?.spanId })
    expect(apiServer).toMatchObject({ name: 'GET /api/v1/me/', parentSpanId: bffClient?.spanId })

    // Every line the api wrote for the request carries the trace id.
    const apiLines = await linesOf(api, requestId, 2)
    expect(apiLines.map((line) => line.trace_id)).toEqual(apiLines.map(() => traceId))
    expect(apiLines[0]?.span_id).toBe(apiServer?.spanId)
  })

  it("a sign-in's calls to the api are client spans of its trace too", async () => {
    const res = await call(bff.url, '/auth/session', {
      method: 'POST',
      body: { api_key: api.apiKey, time_zone: 'UTC' },
    })
    expect(res.status).toBe(200)
    const [line] = await linesOf(bff, res.headers.get('x-request-id') ?? '', 1)
    const traceId = String(line?.trace_id)
    await vi.waitFor(
      () => {
        const names = received
          .filter((s) => s.traceId === traceId && s.service === 'leadline-api')
          .map((s) => s.name)
          .sort()
        expect(names).toEqual(['GET /api/v1/me/', 'POST /api/v1/auth/session/'])
      },
      { timeout: 10_000 },
    )
  })

  it('a stopping BFF sends the spans it still holds before it exits', async () => {
    const holding = await processes.bff(api.url, join(dir.path, 'bff'), {
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_BSP_SCHEDULE_DELAY: '600000',
    })
    const res = await call(holding.url, '/healthz')
    expect(res.status).toBe(200)
    const [line] = await linesOf(holding, res.headers.get('x-request-id') ?? '', 1)
    const traceId = String(line?.trace_id)
    expect(received.some((s) => s.traceId === traceId)).toBe(false)
    await stop(holding.child)
    expect(holding.child.exitCode).toBe(0)
    expect(received.filter((s) => s.traceId === traceId).map((s) => s.name)).toEqual(['GET /healthz'])
  })

  it('a stopping api sends the spans it still holds before it exits', async () => {
    const holding = await processes.api(join(dir.path, 'holding-api'), {
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_BSP_SCHEDULE_DELAY: '600000',
      LOG_LEVEL: 'info',
    })
    const auth = `Basic ${Buffer.from(`${holding.apiKey}:`).toString('base64')}`
    const res = await fetch(`${holding.url}/api/v1/me/`, { headers: { authorization: auth } })
    expect(res.status).toBe(200)
    const [line] = await linesOf(holding, res.headers.get('x-request-id') ?? '', 1)
    const traceId = String(line?.trace_id)
    expect(traceId).toMatch(/^[0-9a-f]{32}$/)
    expect(received.some((s) => s.traceId === traceId)).toBe(false)
    await stop(holding.child)
    expect(holding.child.exitCode).toBe(0)
    expect(received.filter((s) => s.traceId === traceId).map((s) => [s.service, s.name])).toEqual([
      ['leadline-api', 'GET /api/v1/me/'],
    ])
  })

  it('with the receiver down, requests are answered as ever and the process still stops', async () => {
    const down = `http://127.0.0.1:${String(await deadPort())}`
    const alone = await processes.bff(api.url, join(dir.path, 'bff'), {
      OTEL_EXPORTER_OTLP_ENDPOINT: down,
      OTEL_BSP_SCHEDULE_DELAY: '50',
    })
    const cookie = await signIn(alone.url)
    for (let i = 0; i < 5; i++) expect((await call(alone.url, '/api/v1/me/', { cookie })).status).toBe(200)
    const stopping = Date.now()
    await stop(alone.child)
    expect(alone.child.exitCode).toBe(0)
    expect(Date.now() - stopping).toBeLessThan(8_000)
  })
})
