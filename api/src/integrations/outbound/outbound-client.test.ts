import { readFileSync } from 'node:fs'
import { createServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startFileServer, type FileServer } from '../../tooling/test-support/file-server.js'
import { SINK_CERT } from '../../tooling/test-support/smtp-sink.js'
import { startReceiver, type Receiver } from '../../tooling/test-support/webhook-receiver.js'
import { createOutboundClient, type OutboundClient, type Resolver } from './outbound-client.js'

let receiver: Receiver
const clients: OutboundClient[] = []

function client(allowPrivate: boolean, resolve?: Resolver): OutboundClient {
  const made = createOutboundClient({ allowPrivate, ...(resolve === undefined ? {} : { resolve }) })
  clients.push(made)
  return made
}

const post = (on: OutboundClient, url: string, timeoutMs = 5000) =>
  on.post({ url, body: '{"ping":true}', headers: { 'x-test': 'yes' }, timeoutMs, verifyTls: true })

beforeAll(async () => {
  receiver = await startReceiver()
})

afterAll(async () => {
  for (const made of clients) made.close()
  await receiver.close()
})

beforeEach(() => {
  receiver.requests.length = 0
  receiver.respondWith(() => ({ status: 204 }))
})

const port = () => new URL(receiver.origin).port

describe('the SSRF guard', () => {
  it('refuses a host name that resolves to loopback, checking what the name resolves to when connecting', async () => {
    const result = await post(client(false), `http://localhost:${port()}/hook`)
    expect(result.ok).toBe(false)
    expect(result.statusCode).toBeNull()
    expect(result.error).toMatch(/^refused: localhost resolves to (127\.0\.0\.1|::1), a private address$/)
    expect(receiver.requests).toHaveLength(0)
  })

  it.each([
    ['IPv4 loopback', () => `http://127.0.0.1:${port()}/hook`, '127.0.0.1'],
    ['IPv6 loopback', () => `http://[::1]:${port()}/hook`, '::1'],
    ['the cloud metadata service', () => 'http://169.254.169.254/latest/meta-data/', '169.254.169.254'],
    ['a private network', () => 'https://10.1.2.3/hook', '10.1.2.3'],
    ['an IPv4-mapped IPv6 loopback', () => `http://[::ffff:127.0.0.1]:${port()}/hook`, '::ffff:7f00:1'],
  ])('refuses an IP-literal host on %s', async (_, url, address) => {
    const result = await post(client(false), url())
    expect(result).toMatchObject({ ok: false, statusCode: null, error: `refused: ${address} is a private address` })
    expect(receiver.requests).toHaveLength(0)
  })

  it('refuses a name when any address it resolves to is private, so a DNS answer cannot slip one in', async () => {
    const asked: string[] = []
    const rebinding: Resolver = (hostname) => {
      asked.push(hostname)
      return Promise.resolve([
        { address: '93.184.215.14', family: 4 },
        { address: '127.0.0.1', family: 4 },
      ])
    }
    const result = await post(client(false, rebinding), `http://hooks.example.com:${port()}/hook`)
    expect(result.error).toBe('refused: hooks.example.com resolves to 127.0.0.1, a private address')
    expect(asked).toEqual(['hooks.example.com'])
    const v6: Resolver = () => Promise.resolve([{ address: '::1', family: 6 }])
    expect((await post(client(false, v6), `http://six.example.com:${port()}/hook`)).error).toBe(
      'refused: six.example.com resolves to ::1, a private address',
    )
    expect(receiver.requests).toHaveLength(0)
  })

  it('connects to the address it checked, and reaches private addresses when allowed', async () => {
    const toLoopback: Resolver = () => Promise.resolve([{ address: '127.0.0.1', family: 4 }])
    const result = await post(client(true, toLoopback), `http://receiver.example.com:${port()}/hook?x=1`)
    expect(result).toMatchObject({ ok: true, statusCode: 204, error: null })
    expect(receiver.requests).toHaveLength(1)
    expect(receiver.requests[0]).toMatchObject({ method: 'POST', path: '/hook?x=1', body: '{"ping":true}' })
    expect(receiver.requests[0]?.headers).toMatchObject({
      host: `receiver.example.com:${port()}`,
      'content-type': 'application/json',
      'x-test': 'yes',
    })
    expect((await post(client(true), `http://localhost:${port()}/hook`)).ok).toBe(true)
    expect((await post(client(true), `http://127.0.0.1:${port()}/hook`)).ok).toBe(true)
  })

  it('never follows a redirect, to a private address or anywhere: a 3xx is a failure', async () => {
    receiver.respondWith(() => ({ status: 302, headers: { location: 'http://169.254.169.254/latest/meta-data/' } }))
    const result = await post(client(true), `http://127.0.0.1:${port()}/hook`)
    expect(result).toMatchObject({ ok: false, statusCode: 302 })
    expect(result.error).toBe(
      'answered 302, a redirect to http://169.254.169.254/latest/meta-data/ (redirects are not followed)',
    )
    expect(receiver.requests).toHaveLength(1)
  })
})

describe('answers and failures', () => {
  it('reports a non-2xx answer with its first words', async () => {
    receiver.respondWith(() => ({ status: 500 }))
    const result = await post(client(true), `http://127.0.0.1:${port()}/hook`)
    expect(result).toMatchObject({ ok: false, statusCode: 500, error: 'answered 500: no: 500' })
  })

  it('gives up on an answer that does not come in time', async () => {
    receiver.respondWith(() => new Promise(() => undefined))
    const result = await post(client(true), `http://127.0.0.1:${port()}/hook`, 300)
    expect(result).toMatchObject({ ok: false, statusCode: null, error: 'no answer within 0.3 s' })
  })

  it('reports a connection refused', async () => {
    const closed = await startReceiver()
    await closed.close()
    const result = await post(client(true), `${closed.origin}/hook`)
    expect(result.ok).toBe(false)
    expect(result.error).toMatch(/ECONNREFUSED/)
  })

  it('checks the certificate unless told not to (verify_ssl: false)', async () => {
    const tls = (name: string) => readFileSync(new URL(`../../tooling/test-support/tls/${name}`, import.meta.url))
    const server = createServer({ key: tls('self-signed-key.pem'), cert: tls('self-signed-cert.pem') }, (_, res) => {
      res.writeHead(200).end('ok')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const url = `https://localhost:${String((server.address() as AddressInfo).port)}/hook`
      const on = client(true)
      const checked = await post(on, url)
      expect(checked.ok).toBe(false)
      expect(checked.error).toMatch(/self.signed certificate/i)
      const unchecked = await on.post({ url, body: '{}', headers: {}, timeoutMs: 5000, verifyTls: false })
      expect(unchecked).toMatchObject({ ok: true, statusCode: 200 })
    } finally {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  })
})

describe('downloading a file (get)', () => {
  let files: FileServer
  const MAX = 1000

  beforeAll(async () => {
    files = await startFileServer()
  })
  afterAll(async () => {
    await files.close()
  })

  const trusting = (allowPrivate: boolean, resolve?: Resolver) => {
    const made = createOutboundClient({ allowPrivate, ca: SINK_CERT, ...(resolve === undefined ? {} : { resolve }) })
    clients.push(made)
    return made
  }
  const get = (on: OutboundClient, url: string, maxBytes = MAX) => on.get({ url, timeoutMs: 5000, maxBytes })
  const filesPort = () => new URL(files.origin).port

  it('answers the body and its type, the certificate checked against the CA it trusts', async () => {
    const bytes = Buffer.from([0, 1, 2, 250, 251, 252, 10, 13])
    files.serve('/a.bin', { status: 200, body: bytes, headers: { 'content-type': 'application/x-test' } })
    const result = await get(trusting(true), `${files.origin}/a.bin`)
    expect(result).toMatchObject({ ok: true, statusCode: 200, error: null, failure: null })
    expect(result.contentType).toBe('application/x-test')
    expect(result.body?.equals(bytes)).toBe(true)
    const untrusting = await get(client(true), `${files.origin}/a.bin`)
    expect(untrusting).toMatchObject({ ok: false, body: null, failure: 'network' })
    expect(untrusting.error).toMatch(/self.signed certificate/i)
  })

  it('refuses a private address, by literal or by what a name resolves to, without connecting', async () => {
    const before = files.requests.length
    expect(await get(trusting(false), `https://127.0.0.1:${filesPort()}/a.bin`)).toMatchObject({
      ok: false,
      failure: 'refused',
      error: 'refused: 127.0.0.1 is a private address',
    })
    const inside: Resolver = () => Promise.resolve([{ address: '127.0.0.1', family: 4 }])
    expect(await get(trusting(false, inside), `https://files.example.com:${filesPort()}/a.bin`)).toMatchObject({
      ok: false,
      failure: 'refused',
      error: 'refused: files.example.com resolves to 127.0.0.1, a private address',
    })
    expect(await get(trusting(false), 'ftp://files.example.com/a.bin')).toMatchObject({ failure: 'refused' })
    expect(files.requests.length).toBe(before)
  })

  it('never follows a redirect', async () => {
    files.serve('/moved.bin', { status: 301, headers: { location: 'https://169.254.169.254/secret' } })
    files.serve('/secret', { status: 200, body: Buffer.from('secret') })
    const result = await get(trusting(true), `${files.origin}/moved.bin`)
    expect(result).toMatchObject({
      ok: false,
      statusCode: 301,
      failure: 'status',
      body: null,
      error: 'answered 301, a redirect to https://169.254.169.254/secret (redirects are not followed)',
    })
    expect(files.requests).not.toContain('/secret')
  })

  it('fails on a non-2xx answer with its status', async () => {
    expect(await get(trusting(true), `${files.origin}/missing.bin`)).toMatchObject({
      ok: false,
      statusCode: 404,
      failure: 'status',
      error: 'answered 404',
    })
  })

  it('breaks a download off past its limit, declared or not; a file of exactly the limit comes whole', async () => {
    files.serve('/exact.bin', { status: 200, body: Buffer.alloc(MAX, 7) })
    files.serve('/declared.bin', { status: 200, body: Buffer.alloc(MAX + 1, 7) })
    files.serve('/streamed.bin', { status: 200, body: Buffer.alloc(64 * 1024, 7), chunked: true })
    const exact = await get(trusting(true), `${files.origin}/exact.bin`)
    expect(exact.ok).toBe(true)
    expect(exact.body?.length).toBe(MAX)
    for (const path of ['/declared.bin', '/streamed.bin']) {
      expect(await get(trusting(true), `${files.origin}${path}`)).toMatchObject({
        ok: false,
        statusCode: 200,
        body: null,
        failure: 'too_large',
        error: `the file is larger than ${String(MAX)} bytes`,
      })
    }
  })

  it('gives up on a file that does not come in time', async () => {
    receiver.respondWith(() => new Promise(() => undefined))
    const result = await trusting(true).get({ url: `${receiver.origin}/slow`, timeoutMs: 300, maxBytes: MAX })
    expect(result).toMatchObject({ ok: false, failure: 'network', error: 'no answer within 0.3 s' })
  })
})
