import { once } from 'node:events'
import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { basicAuth, createTestContext, type TestContext } from '../../tooling/test-support/test-app.js'
import { listenLocally, parseResponses, rawExchange } from '../../tooling/test-support/raw-http.js'

// One second each: short enough to watch them act, and the server checks its deadlines once a second.
const TIMEOUT_SECONDS = 1
const CHECK_MS = 1000
const SLACK_MS = 2000

let ctx: TestContext
let port: number
let auth: string
beforeAll(async () => {
  ctx = await createTestContext({
    env: {
      LEADLINE_REQUEST_TIMEOUT: String(TIMEOUT_SECONDS),
      LEADLINE_HEADERS_TIMEOUT: String(TIMEOUT_SECONDS),
      LEADLINE_KEEP_ALIVE_TIMEOUT: String(TIMEOUT_SECONDS),
    },
  })
  port = await listenLocally(ctx.app)
  auth = basicAuth(ctx.org.admin.key)
})
afterAll(async () => {
  await ctx.close()
})

const deadlineMs = TIMEOUT_SECONDS * 1000 + CHECK_MS + SLACK_MS

/** The one answer on a connection, which must be the API's `{"error": message}` and nothing else. */
function expectApiError(received: string, status: number): void {
  const responses = parseResponses(received)
  expect(responses.map((r) => r.status)).toEqual([status])
  const [response] = responses
  expect(response?.headers['content-type']).toMatch(/^application\/json/)
  expect(JSON.parse(response?.body ?? '')).toEqual({ error: expect.any(String) })
}

describe('timeouts on a real socket', () => {
  it('answers 408 and closes a request whose body stalls, within the request timeout', async () => {
    const exchange = await rawExchange(
      port,
      [
        `POST /api/v1/lead/ HTTP/1.1\r\nHost: api\r\nAuthorization: ${auth}\r\n` +
          'Content-Type: application/json\r\nContent-Length: 10\r\n\r\n{"',
      ],
      deadlineMs + 5000,
    )
    expect(exchange.closed).toBe(true)
    expect(exchange.elapsedMs).toBeLessThan(deadlineMs)
    expectApiError(exchange.received, 408)
  })

  it('answers 408 and closes a request whose headers stall, within the headers timeout', async () => {
    const exchange = await rawExchange(port, ['GET /api/v1/me/ HTTP/1.1\r\nHost: api\r\n'], deadlineMs + 5000)
    expect(exchange.closed).toBe(true)
    expect(exchange.elapsedMs).toBeLessThan(deadlineMs)
    expectApiError(exchange.received, 408)
  })

  it('closes an idle keep-alive connection after the keep-alive timeout', async () => {
    const exchange = await rawExchange(
      port,
      [`GET /api/v1/me/ HTTP/1.1\r\nHost: api\r\nAuthorization: ${auth}\r\n\r\n`],
      deadlineMs + 5000,
    )
    expect(exchange.closed).toBe(true)
    expect(exchange.elapsedMs).toBeLessThan(deadlineMs)
    const [response] = parseResponses(exchange.received)
    expect(response?.status).toBe(200)
    expect(response?.headers['keep-alive']).toBe(`timeout=${TIMEOUT_SECONDS}`)
  })

  it('lets a slow but steady client finish its request within the timeout', async () => {
    const body = JSON.stringify({ name: 'Steady Co' })
    const exchange = await rawExchange(
      port,
      [
        `POST /api/v1/lead/ HTTP/1.1\r\nHost: api\r\nAuthorization: ${auth}\r\nConnection: close\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`,
        body.slice(0, 5),
        body.slice(5),
      ],
      deadlineMs + 5000,
    )
    const [response] = parseResponses(exchange.received)
    expect(response?.status).toBe(200)
    expect(JSON.parse(response?.body ?? '')).toMatchObject({ name: 'Steady Co' })
  })
})

describe('errors Node and Fastify answer themselves, in the API shape on a real socket', () => {
  const send = async (request: string) => {
    const exchange = await rawExchange(port, [request], 5000)
    expect(exchange.closed).toBe(true)
    return exchange.received
  }

  it('answers 431 for headers over the limit (a 60 KB Authorization header)', async () => {
    const received = await send(
      `GET /api/v1/me/ HTTP/1.1\r\nHost: api\r\nAuthorization: Basic ${'a'.repeat(60_000)}\r\n\r\n`,
    )
    expectApiError(received, 431)
  })

  it.each([
    ['a request line that is not HTTP', 'HELLO\r\n\r\n'],
    ['a header without a colon', 'GET /api/v1/me/ HTTP/1.1\r\nHost: api\r\nBad Header\r\n\r\n'],
    ['a space in a header name', 'GET /api/v1/me/ HTTP/1.1\r\nHost: api\r\nBad Header: x\r\n\r\n'],
    [
      'both Content-Length and Transfer-Encoding',
      'POST /api/v1/lead/ HTTP/1.1\r\nHost: api\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    ],
    ['an unknown HTTP version', 'GET /api/v1/me/ HTTP/3.0\r\nHost: api\r\n\r\n'],
    ['the HTTP/2 preface', 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'],
  ])('answers 400 for %s', async (_label, request) => {
    expectApiError(await send(request), 400)
  })

  it('answers 400 for a chunked body that breaks off into garbage', async () => {
    const received = await send(
      `POST /api/v1/lead/ HTTP/1.1\r\nHost: api\r\nAuthorization: ${auth}\r\n` +
        'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\nzz\r\n',
    )
    expectApiError(received, 400)
  })

  it('answers 400 for an HTTP/1.1 request without a Host header', async () => {
    expectApiError(await send(`GET /api/v1/me/ HTTP/1.1\r\nAuthorization: ${auth}\r\nConnection: close\r\n\r\n`), 400)
  })

  it('still serves HTTP/1.0, which has no Host header', async () => {
    const received = await send(`GET /api/v1/me/ HTTP/1.0\r\nAuthorization: ${auth}\r\n\r\n`)
    expect(parseResponses(received).map((r) => r.status)).toEqual([200])
  })

  it('answers 417 for an Expect header it cannot meet', async () => {
    const received = await send(
      `GET /api/v1/me/ HTTP/1.1\r\nHost: api\r\nAuthorization: ${auth}\r\nExpect: sunshine\r\n\r\n`,
    )
    expectApiError(received, 417)
  })

  it('answers 405 for CONNECT', async () => {
    expectApiError(await send('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n'), 405)
  })

  it.each([
    ['a malformed percent-encoding', '/api/v1/lead/%ZZ/', 400],
    ['an id over 100 characters', `/api/v1/lead/lead_${'a'.repeat(100)}/`, 414],
  ])('answers %s in the path', async (_label, path, status) => {
    const received = await send(
      `GET ${path} HTTP/1.1\r\nHost: api\r\nAuthorization: ${auth}\r\nConnection: close\r\n\r\n`,
    )
    expectApiError(received, status)
  })
})

describe('shutting down', () => {
  it('answers a request that arrives on an open connection while closing with 503 in the API shape', async () => {
    const closingCtx = await createTestContext()
    try {
      const closingPort = await listenLocally(closingCtx.app)
      const key = basicAuth(closingCtx.org.admin.key)
      // Closing ends idle kept-alive connections once the server has stopped taking new requests: this one's end
      // says when.
      const idle = connect(closingPort, '127.0.0.1')
      await once(idle, 'connect')
      idle.write('GET /api/v1/me/ HTTP/1.1\r\nHost: api\r\n\r\n')
      await once(idle, 'data')
      const idleClosed = once(idle, 'close')
      const firstArrived = once(closingCtx.app.server, 'request')
      let closed: Promise<void> | undefined
      // The first request is under way (its body unfinished) when the server starts closing; the second one,
      // pipelined behind it, arrives after.
      const { received } = await rawExchange(
        closingPort,
        [
          `POST /api/v1/lead/ HTTP/1.1\r\nHost: api\r\nAuthorization: ${key}\r\n` +
            'Content-Type: application/json\r\nContent-Length: 18\r\n\r\n{"name":',
          firstArrived.then(async () => {
            closed = closingCtx.app.close()
            await idleClosed
            return '"Late Co"}' + `GET /api/v1/me/ HTTP/1.1\r\nHost: api\r\nAuthorization: ${key}\r\n\r\n`
          }),
        ],
        5000,
      )
      await closed
      const [first, second, ...rest] = parseResponses(received)
      expect(rest).toEqual([])
      expect(first?.status).toBe(200)
      expect(second?.status).toBe(503)
      expect(second?.headers.connection).toBe('close')
      expect(second?.headers['x-request-id']).toMatch(/^req_[0-9A-Za-z]{22}$/)
      expect(JSON.parse(second?.body ?? '')).toEqual({ error: expect.any(String) })
    } finally {
      await closingCtx.close()
    }
  })
})
