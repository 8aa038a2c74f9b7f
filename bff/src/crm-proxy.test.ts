import { createServer, request as httpRequest, type Server } from 'node:http'
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest'
import { basicAuthorization, HttpError, tzOffsetHeader, upstreamPath } from './crm-proxy.js'
import {
  closeServer,
  listen,
  port,
  signIn,
  startBff,
  tempDir,
  testConfig,
  type StartedBff,
} from './test-support/harness.js'

const ME = {
  id: 'user_ann',
  email: 'ann@example.com',
  first_name: 'Ann',
  last_name: 'Veal',
  organizations: [{ id: 'orga_test', name: 'Bluth Company' }],
  memberships: [{ id: 'memb_1', organization_id: 'orga_test', user_id: 'user_ann', role: 'admin' }],
}

// The app refuses absolute-form and `//` targets before routing too; this checks the proxy's own rule alone.
test.each([
  ['http://evil.example/api/v1/lead/', 400],
  ['//evil.example/api/v1/lead/', 400],
  ['api/v1/lead/', 400],
  ['/api/v1/../x', 400],
  ['/api/v1/%2e%2e/x', 400],
  ['/api/v1/lead%5c..%5cx', 400],
  ['/api/v1/lead/%zz', 400],
  ['/api/v2/x', 404],
  ['/apiv1/x', 404],
  ['/api/v1', 404],
])('refuses %s', (target, status) => {
  expect(() => upstreamPath(target)).toThrow(HttpError)
  try {
    upstreamPath(target)
  } catch (error) {
    expect(error instanceof HttpError ? error.status : undefined).toBe(status)
  }
})

test('keeps an allowed path and its query exactly', () => {
  expect(upstreamPath('/api/v1/lead/?query=a%20b&_limit=5')).toBe('/api/v1/lead/?query=a%20b&_limit=5')
  expect(upstreamPath('/api/v1/lead/lead_1/')).toBe('/api/v1/lead/lead_1/')
})

test('Basic with the key as user name and an empty password; offsets in decimal hours', () => {
  expect(basicAuthorization('k1')).toBe(`Basic ${Buffer.from('k1:').toString('base64')}`)
  expect(tzOffsetHeader('Asia/Kathmandu', new Date('2026-01-01T00:00:00Z'))).toBe('5.75')
  expect(tzOffsetHeader('UTC', new Date('2026-01-01T00:00:00Z'))).toBe('0.0')
})

describe('a browser that goes away', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>
  let upstream: Server
  let bff: StartedBff | undefined
  const received: { url: string; closedAt: Promise<number> }[] = []

  beforeEach(async () => {
    dir = await tempDir()
    received.length = 0
    // Signs anyone in, then takes every other request and never answers it.
    upstream = createServer((req, res) => {
      if (req.url === '/api/v1/me/') {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(JSON.stringify(ME))
        return
      }
      received.push({
        url: req.url ?? '',
        closedAt: new Promise((resolve) => {
          res.once('close', () => {
            resolve(Date.now())
          })
        }),
      })
    })
    await listen(upstream)
  })
  afterEach(async () => {
    await bff?.close()
    bff = undefined
    await closeServer(upstream)
    await dir.remove()
  })

  test('aborts the upstream request at once instead of at the timeout', async () => {
    bff = await startBff(testConfig({ apiUrl: `http://127.0.0.1:${port(upstream)}`, dataDir: dir.path }))
    const cookie = await signIn(bff)
    const { hostname, port: bffPort } = new URL(bff.url)
    const client = httpRequest({
      host: hostname,
      port: Number(bffPort),
      path: '/api/v1/lead/',
      headers: { 'x-requested-with': 'leadline', cookie },
    })
    client.on('error', () => undefined)
    client.end()
    await vi.waitFor(() => {
      expect(received).toHaveLength(1)
    })
    const goneAt = Date.now()
    client.destroy()
    const closedAt = await Promise.race([
      received[0]?.closedAt,
      new Promise<undefined>((resolve) =>
        setTimeout(() => {
          resolve(undefined)
        }, 5000),
      ),
    ])
    expect(closedAt, 'the upstream request is still open 5 s after the browser left').toBeDefined()
    expect((closedAt ?? Infinity) - goneAt).toBeLessThan(2000)
    // The BFF is still fine for the next request.
    expect((await bff.call('/auth/session', { cookie })).status).toBe(200)
  })
})
