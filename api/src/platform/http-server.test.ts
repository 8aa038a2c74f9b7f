import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { basicAuth, createTestContext, type TestContext } from '../test-support/test-app.js'
import { listenLocally, parseResponses, rawExchange } from '../test-support/raw-http.js'

// One second each: short enough to watch them act, and the server checks its deadlines once a second.
const TIMEOUT_SECONDS = 1
const CHECK_MS = 1000
const SLACK_MS = 1000

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
    const [response, ...more] = parseResponses(exchange.received)
    expect(more).toEqual([])
    expect(response?.status).toBe(408)
  })

  it('answers 408 and closes a request whose headers stall, within the headers timeout', async () => {
    const exchange = await rawExchange(port, ['GET /api/v1/me/ HTTP/1.1\r\nHost: api\r\n'], deadlineMs + 5000)
    expect(exchange.closed).toBe(true)
    expect(exchange.elapsedMs).toBeLessThan(deadlineMs)
    expect(parseResponses(exchange.received).map((r) => r.status)).toEqual([408])
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
