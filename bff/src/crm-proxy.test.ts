import { randomBytes } from 'node:crypto'
import {
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type Server,
  type ServerResponse,
} from 'node:http'
import { gunzipSync } from 'node:zlib'
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest'
import {
  basicAuthorization,
  HttpError,
  isUpload,
  uploadKind,
  tzOffsetHeader,
  UPLOAD_MARGIN_BYTES,
  upstreamPath,
  GZIP_FROM_BYTES,
  WHOLE_ANSWER_BYTES,
} from './crm-proxy.js'
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

/** What the api answers when the BFF exchanges the signed-in key for one of this session's. */
const SESSION_KEY_ANSWER = {
  api_key_id: 'apikey_s',
  api_key: 'apikey_s.secret',
  user_id: 'user_ann',
  organization_id: 'orga_test',
}

const ME = {
  id: 'user_ann',
  email: 'ann@example.com',
  first_name: 'Ann',
  last_name: 'Veal',
  organizations: [{ id: 'orga_test', name: 'Bluth Company' }],
  memberships: [{ id: 'memb_1', organization_id: 'orga_test', user_id: 'user_ann', role: 'admin' }],
}

/** What the fake API received of a proxied request, read to its end. */
interface Received {
  method: string
  url: string
  headers: IncomingHttpHeaders
  body: Buffer
}

/**
 * A fake API: it answers the BFF's sign-in calls itself, records every other request in `received` once its body is
 * read, and leaves the answer to `answer`.
 */
function fakeApi(received: Received[], answer: (request: Received, res: ServerResponse) => void): Server {
  return createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const url = req.url ?? ''
      const signIn = url === '/api/v1/me/' ? ME : url === '/api/v1/auth/session/' ? SESSION_KEY_ANSWER : undefined
      if (signIn !== undefined) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(signIn))
        return
      }
      const request = { method: req.method ?? '', url, headers: req.headers, body: Buffer.concat(chunks) }
      received.push(request)
      answer(request, res)
    })
  })
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
      if (req.url === '/api/v1/me/' || req.url === '/api/v1/auth/session/') {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(JSON.stringify(req.url === '/api/v1/me/' ? ME : SESSION_KEY_ANSWER))
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

test('only POST /api/v1/email_attachment/ and /api/v1/import/ themselves, with or without a query, are uploads', () => {
  expect(uploadKind('POST', '/api/v1/email_attachment/')).toBe('attachment')
  expect(uploadKind('POST', '/api/v1/import/?filename=leads.csv')).toBe('import')
  expect(uploadKind('PUT', '/api/v1/import/imp_1/')).toBeUndefined()
  expect(uploadKind('POST', '/api/v1/import/imp_1/run/')).toBeUndefined()
  expect(uploadKind('POST', '/api/v1/import')).toBeUndefined()
  expect(isUpload('POST', '/api/v1/email_attachment/')).toBe(true)
  expect(isUpload('POST', '/api/v1/email_attachment/?filename=a%20b.pdf')).toBe(true)
  expect(isUpload('PUT', '/api/v1/email_attachment/')).toBe(false)
  expect(isUpload('POST', '/api/v1/email_attachment/emlatt_1/')).toBe(false)
  expect(isUpload('POST', '/api/v1/email_attachment')).toBe(false)
  expect(isUpload('POST', '/api/v1/lead/?x=/api/v1/email_attachment/')).toBe(false)
})

describe('file uploads', () => {
  const MiB = 1024 * 1024
  let dir: Awaited<ReturnType<typeof tempDir>>
  let upstream: Server
  let bff: StartedBff | undefined
  /** Every request the fake API read to its end, with its body's bytes. */
  const received: Received[] = []

  beforeEach(async () => {
    dir = await tempDir()
    received.length = 0
    upstream = fakeApi(received, ({ body }, res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ id: 'emlatt_1', size: body.length }))
    })
    await listen(upstream)
  })
  afterEach(async () => {
    await bff?.close()
    bff = undefined
    await closeServer(upstream)
    await dir.remove()
  })

  async function start(attachmentMaxBytes?: number, importMaxBytes?: number) {
    const config = testConfig({ apiUrl: `http://127.0.0.1:${port(upstream)}`, dataDir: dir.path })
    bff = await startBff({
      ...config,
      ...(attachmentMaxBytes === undefined ? {} : { attachmentMaxBytes }),
      ...(importMaxBytes === undefined ? {} : { importMaxBytes }),
    })
    return { bff, cookie: await signIn(bff) }
  }

  test('a 2 MiB file passes to the API byte for byte, with its type and query', async () => {
    const { bff, cookie } = await start()
    const file = randomBytes(2 * MiB)
    const target = '/api/v1/email_attachment/?filename=Q3%20plan%20%E2%80%93%20final.pdf'
    const response = await bff.call(target, {
      method: 'POST',
      cookie,
      headers: { 'content-type': 'application/pdf' },
      body: file,
    })
    expect(response.status).toBe(200)
    expect(response.json).toEqual({ id: 'emlatt_1', size: 2 * MiB })
    expect(received).toHaveLength(1)
    expect(received[0]?.url).toBe(target)
    expect(received[0]?.headers['content-type']).toBe('application/pdf')
    expect(received[0]?.headers['content-length']).toBe(String(2 * MiB))
    expect(received[0]?.body.equals(file)).toBe(true)
  })

  test('a 2 MiB body to any other path, or method, is a 413 the API never sees', async () => {
    const { bff, cookie } = await start()
    const body = randomBytes(2 * MiB)
    for (const [path, method] of [
      ['/api/v1/lead/', 'POST'],
      ['/api/v1/email_attachment/emlatt_1/', 'POST'],
      ['/api/v1/email_attachment/', 'PUT'],
    ] as const) {
      const response = await bff.call(path, { method, cookie, headers: { 'content-type': 'text/plain' }, body })
      expect(response.status, `${method} ${path}`).toBe(413)
      expect(response.json).toEqual({ error: 'Request body is larger than 1 MiB.' })
    }
    expect(received).toHaveLength(0)
  })

  test('an upload over the limit (and its margin) is a 413; one at it passes', async () => {
    const { bff, cookie } = await start(2 * MiB)
    const upload = (body: Buffer | ReadableStream<Uint8Array>) =>
      bff.call('/api/v1/email_attachment/?filename=big.bin', {
        method: 'POST',
        cookie,
        headers: { 'content-type': 'application/octet-stream' },
        body,
        duplex: 'half',
      })

    const over = await upload(randomBytes(2 * MiB + UPLOAD_MARGIN_BYTES + 1))
    expect(over.status).toBe(413)
    expect(over.json).toEqual({ error: 'The file is larger than 2 MiB.' })
    expect(received).toHaveLength(0)

    // Sent chunked, with no length to refuse up front: cut off on the way, and the API never gets a whole body.
    const chunk = new Uint8Array(64 * 1024)
    let sent = 0
    const chunked = await upload(
      new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent >= 3 * MiB) controller.close()
          else controller.enqueue(chunk)
          sent += chunk.length
        },
      }),
    )
    expect(chunked.status).toBe(413)
    expect(chunked.json).toEqual({ error: 'The file is larger than 2 MiB.' })
    expect(received).toHaveLength(0)

    const fits = randomBytes(2 * MiB + UPLOAD_MARGIN_BYTES)
    const response = await upload(fits)
    expect(response.status).toBe(200)
    expect(received[0]?.body.equals(fits)).toBe(true)
  })

  test('a CSV to import has the import limit, not the attachment limit', async () => {
    const { bff, cookie } = await start(1 * MiB, 3 * MiB)
    const post = (path: string, body: Buffer) =>
      bff.call(path, { method: 'POST', cookie, headers: { 'content-type': 'text/csv' }, body })

    const csv = randomBytes(2 * MiB)
    const imported = await post('/api/v1/import/?filename=leads.csv', csv)
    expect(imported.status).toBe(200)
    expect(received).toHaveLength(1)
    expect(received[0]?.url).toBe('/api/v1/import/?filename=leads.csv')
    expect(received[0]?.body.equals(csv)).toBe(true)

    const attachment = await post('/api/v1/email_attachment/?filename=leads.csv', csv)
    expect(attachment.status).toBe(413)
    expect(attachment.json).toEqual({ error: 'The file is larger than 1 MiB.' })

    const tooBig = await post('/api/v1/import/?filename=big.csv', randomBytes(3 * MiB + UPLOAD_MARGIN_BYTES + 1))
    expect(tooBig.status).toBe(413)
    expect(tooBig.json).toEqual({ error: 'The file is larger than 3 MiB.' })
    expect(received).toHaveLength(1)
  })
})

describe('answers, short and long', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>
  let upstream: Server
  let bff: StartedBff | undefined
  /** What the fake API received of each proxied request. */
  const received: Received[] = []
  /** Short enough to be sent whole, long enough to be worth gzipping. */
  const SHORT = JSON.stringify({
    data: Array.from({ length: 400 }, (_, i) => ({ id: `lead_${String(i)}`, name: 'Acme' })),
  })
  /** A lead's size: it goes in TCP's first flight compressed or not. */
  const TINY = JSON.stringify({ id: 'lead_1', name: 'x'.repeat(GZIP_FROM_BYTES - 40) })
  const LONG = JSON.stringify({ data: 'x'.repeat(WHOLE_ANSWER_BYTES + 10) })
  const PNG = randomBytes(4096)

  beforeEach(async () => {
    dir = await tempDir()
    received.length = 0
    upstream = fakeApi(received, ({ url, body }, res) => {
      // As the API answers: with the length of what it sends.
      const send = (type: string, sent: string | Buffer) => {
        const length = Buffer.byteLength(sent)
        res.writeHead(200, { 'content-type': type, 'content-length': length, vary: 'Origin' }).end(sent)
      }
      const json = 'application/json; charset=utf-8'
      if (url === '/api/v1/short/') send(json, SHORT)
      else if (url === '/api/v1/tiny/') send(json, TINY)
      else if (url === '/api/v1/long/') send(json, LONG)
      else if (url === '/api/v1/png/') send('image/png', PNG)
      else if (url === '/api/v1/unchanged/') res.writeHead(304, { etag: '"1"', 'content-length': '999' }).end()
      else send(json, JSON.stringify({ echoed: body.toString('utf8') }))
    })
    await listen(upstream)
    bff = await startBff(testConfig({ apiUrl: `http://127.0.0.1:${port(upstream)}`, dataDir: dir.path }))
  })
  afterEach(async () => {
    await bff?.close()
    bff = undefined
    await closeServer(upstream)
    await dir.remove()
  })

  /** One request as a browser sends it, and the answer's bytes as they came over the wire (not decoded). */
  async function raw(path: string, headers: Record<string, string>, method = 'GET', body?: string | string[]) {
    if (bff === undefined) throw new Error('no BFF')
    const cookie = await signIn(bff)
    return new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      const req = httpRequest(
        `${bff?.url ?? ''}${path}`,
        { method, headers: { cookie, 'x-requested-with': 'leadline', ...headers } },
        (res) => {
          const chunks: Buffer[] = []
          res.on('data', (chunk: Buffer) => chunks.push(chunk))
          res.on('end', () => {
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) })
          })
        },
      )
      req.on('error', reject)
      // An array is sent in chunks, without a length.
      if (Array.isArray(body)) for (const part of body) req.write(part)
      else if (body !== undefined) req.write(body)
      req.end()
    })
  }

  test('a short JSON answer is gzipped when the browser takes gzip, with its length, and Vary kept', async () => {
    const answer = await raw('/api/v1/short/', { 'accept-encoding': 'gzip, deflate, br' })
    expect(answer.status).toBe(200)
    expect(answer.headers['content-encoding']).toBe('gzip')
    expect(answer.headers['content-length']).toBe(String(answer.body.length))
    expect(answer.headers['transfer-encoding']).toBeUndefined()
    expect(answer.headers.vary).toMatch(/^Origin, Accept-Encoding$/i)
    expect(gunzipSync(answer.body).toString('utf8')).toBe(SHORT)
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8')
    expect(answer.headers['cache-control']).toBe('no-store')
  })

  test('is sent as it is to a browser that refuses gzip, when short, and when not text', async () => {
    for (const [path, headers, expected] of [
      ['/api/v1/short/', { 'accept-encoding': 'gzip;q=0, identity' }, Buffer.from(SHORT)],
      ['/api/v1/short/', {}, Buffer.from(SHORT)],
      ['/api/v1/tiny/', { 'accept-encoding': 'gzip' }, Buffer.from(TINY)],
      ['/api/v1/png/', { 'accept-encoding': 'gzip' }, PNG],
    ] as const) {
      const answer = await raw(path, headers)
      expect(answer.headers['content-encoding'], path).toBeUndefined()
      expect(answer.headers['content-length'], path).toBe(String(expected.length))
      expect(answer.body.equals(expected), path).toBe(true)
    }
  })

  test('a long answer streams, gzipped by the middleware, whole', async () => {
    const answer = await raw('/api/v1/long/', { 'accept-encoding': 'gzip' })
    expect(answer.headers['content-encoding']).toBe('gzip')
    expect(answer.headers['transfer-encoding']).toBe('chunked')
    expect(gunzipSync(answer.body).toString('utf8')).toBe(LONG)
  })

  test('a 304 (with the length of what it stands for) and a HEAD answer have no body', async () => {
    const unchanged = await raw('/api/v1/unchanged/', { 'accept-encoding': 'gzip', 'if-none-match': '"1"' })
    expect(unchanged.status).toBe(304)
    expect(unchanged.body.length).toBe(0)
    expect(received.at(-1)?.headers['if-none-match']).toBe('"1"')
    const head = await raw('/api/v1/short/', { 'accept-encoding': 'gzip' }, 'HEAD')
    expect(head.status).toBe(200)
    expect(head.body.length).toBe(0)
  })

  test('a bodiless request reaches the API without one; a body with a length or in chunks reaches it whole', async () => {
    await raw('/api/v1/echo/', {})
    expect(received.at(-1)?.headers['content-length']).toBeUndefined()
    expect(received.at(-1)?.body.length).toBe(0)
    const sent = JSON.stringify({ name: 'Acme' })
    const withLength = await raw('/api/v1/echo/', { 'content-type': 'application/json' }, 'POST', sent)
    expect(JSON.parse(withLength.body.toString('utf8'))).toEqual({ echoed: sent })
    const chunked = await raw('/api/v1/echo/', { 'content-type': 'application/json' }, 'PUT', ['{"name":', '"Acme"}'])
    expect(JSON.parse(chunked.body.toString('utf8'))).toEqual({ echoed: sent })
    expect(received.at(-1)?.headers['content-length']).toBe(String(sent.length))
  })
})
