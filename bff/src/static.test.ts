import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { brotliCompressSync, gzipSync } from 'node:zlib'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { SECURITY_HEADERS } from './app.js'
import { deadPort, rawRequest, startBff, tempDir, testConfig, type StartedBff } from './test-support/harness.js'

let dir: Awaited<ReturnType<typeof tempDir>>
let bff: StartedBff
const INDEX = '<!doctype html><html><head><script type="module" src="/assets/app-3f9a1c.js"></script></head></html>'
const SCRIPT = `console.log(${JSON.stringify('leadline '.repeat(2000))})`
const html = { accept: 'text/html,application/xhtml+xml' }
/** Under the compression threshold: held in memory from the start, sent as it is. */
const TINY_CSS = 'body{margin:0}'

async function start(webDist: string): Promise<StartedBff> {
  return startBff(testConfig({ apiUrl: `http://127.0.0.1:${await deadPort()}`, dataDir: dir.path, webDist }))
}

beforeEach(async () => {
  dir = await tempDir()
  const dist = join(dir.path, 'dist')
  await mkdir(join(dist, 'assets'), { recursive: true })
  await writeFile(join(dist, 'index.html'), INDEX)
  await writeFile(join(dist, 'assets', 'app-3f9a1c.js'), SCRIPT)
  await writeFile(join(dist, 'assets', 'tiny-7e8d9c.css'), TINY_CSS)
  await writeFile(join(dist, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>')
  bff = await start(dist)
})

afterEach(async () => {
  await bff.close()
  await dir.remove()
})

describe('the SPA', () => {
  test('hashed assets are cached immutably and compressed', async () => {
    const response = await bff.call('/assets/app-3f9a1c.js', { headers: { 'accept-encoding': 'gzip' } })
    expect(response.status).toBe(200)
    expect(response.text).toBe(SCRIPT)
    expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    expect(response.headers.get('content-encoding')).toBe('gzip')
    expect(response.headers.get('content-type')).toMatch(/javascript/)
  })

  test('an asset the build compressed is sent as the build wrote it, brotli first, and as is to who takes neither', async () => {
    // Each compressed file holds its own text, so the answer shows which file was sent. The BFF lists the compressed
    // files when it starts (as the build writes them before): started again.
    await bff.close()
    const assets = join(dir.path, 'dist', 'assets')
    await writeFile(join(assets, 'app-3f9a1c.js.br'), brotliCompressSync(Buffer.from('/* br */')))
    await writeFile(join(assets, 'app-3f9a1c.js.gz'), gzipSync(Buffer.from('/* gz */')))
    bff = await start(join(dir.path, 'dist'))
    const get = (encoding: string) => bff.call('/assets/app-3f9a1c.js', { headers: { 'accept-encoding': encoding } })
    const br = await get('gzip, deflate, br')
    expect(br.headers.get('content-encoding')).toBe('br')
    expect(br.text).toBe('/* br */')
    expect(br.headers.get('vary')).toMatch(/accept-encoding/i)
    expect(br.headers.get('content-type')).toMatch(/javascript/)
    expect(br.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    const gz = await get('gzip')
    expect(gz.headers.get('content-encoding')).toBe('gzip')
    expect(gz.text).toBe('/* gz */')
    const plain = await get('identity')
    expect(plain.headers.get('content-encoding')).toBeNull()
    expect(plain.text).toBe(SCRIPT)
  })

  test('assets held in memory answer as the static files do: validators, HEAD, and what memory is unsure of', async () => {
    await bff.close()
    const assets = join(dir.path, 'dist', 'assets')
    await writeFile(join(assets, 'app-3f9a1c.js.br'), brotliCompressSync(Buffer.from('/* br */')))
    await writeFile(join(assets, 'app-3f9a1c.js.gz'), gzipSync(Buffer.from('/* gz */')))
    bff = await start(join(dir.path, 'dist'))
    const br = { 'accept-encoding': 'br' }
    const cached = await rawRequest(bff.url, '/assets/app-3f9a1c.js', br)
    expect(cached.status).toBe(200)
    expect(cached.headers['content-type']).toMatch(/javascript/)
    expect(cached.headers['content-length']).toBe(String(brotliCompressSync(Buffer.from('/* br */')).length))
    expect(cached.headers['cache-control']).toBe('public, max-age=31536000, immutable')
    expect(cached.headers['last-modified']).toBeDefined()
    // The validator is the static middleware's own: it answers a revalidation (which memory leaves to it) with a 304.
    const etag = cached.headers.etag ?? ''
    expect(etag).toMatch(/^W\/"/)
    const revalidated = await rawRequest(bff.url, '/assets/app-3f9a1c.js', { ...br, 'if-none-match': etag })
    expect(revalidated.status).toBe(304)
    const head = await rawRequest(bff.url, '/assets/app-3f9a1c.js', br, 'HEAD')
    expect(head.status).toBe(200)
    expect(head.body).toBe('')
    expect(head.headers['content-length']).toBe(cached.headers['content-length'])
    const tiny = await rawRequest(bff.url, '/assets/tiny-7e8d9c.css', { 'accept-encoding': 'gzip, br' })
    expect(tiny.body).toBe(TINY_CSS)
    expect(tiny.headers['content-type']).toBe('text/css; charset=utf-8')
    expect(tiny.headers['content-encoding']).toBeUndefined()
    // Written after the start: not in memory, read from disk.
    await writeFile(join(assets, 'late-5f6e7d.css'), TINY_CSS)
    const late = await rawRequest(bff.url, '/assets/late-5f6e7d.css')
    expect(late.status).toBe(200)
    expect(late.body).toBe(TINY_CSS)
    expect((await rawRequest(bff.url, '/assets/app-3f9a1c.js', {}, 'POST')).status).toBe(404)
  })

  test('index.html and client routes answer the app shell, revalidated every time', async () => {
    for (const path of ['/', '/index.html', '/leads', '/leads/lead_abc?query=x']) {
      const response = await bff.call(path, { headers: html })
      expect(response.status, path).toBe(200)
      expect(response.text, path).toBe(INDEX)
      expect(response.headers.get('cache-control'), path).toBe('no-cache')
    }
    expect((await bff.call('/favicon.svg')).headers.get('cache-control')).toBe('no-cache')
  })

  test('a GET or HEAD that accepts anything, or says nothing, gets the app too (curl, uptime checkers)', async () => {
    const curl = await rawRequest(bff.url, '/', { accept: '*/*' })
    expect(curl.status).toBe(200)
    expect(curl.body).toBe(INDEX)
    expect(curl.headers['content-type']).toMatch(/^text\/html/)
    const silent = await rawRequest(bff.url, '/leads/lead_abc')
    expect(silent.status).toBe(200)
    expect(silent.body).toBe(INDEX)
    const fallback = await rawRequest(bff.url, '/leads', { accept: 'application/json;q=0.9, */*;q=0.1' })
    expect(fallback.status).toBe(200)
    expect(fallback.body).toBe(INDEX)
    const head = await rawRequest(bff.url, '/', {}, 'HEAD')
    expect(head.status).toBe(200)
    expect(head.headers['content-type']).toMatch(/^text\/html/)
    expect(head.body).toBe('')
    const refused = await rawRequest(bff.url, '/leads', { accept: 'text/html;q=0, application/json' })
    expect(refused.status).toBe(404)
    expect(JSON.parse(refused.body)).toEqual({ error: 'Not found.' })
  })

  test('/api and /auth answer JSON whatever the Accept header allows', async () => {
    for (const accept of ['*/*', undefined]) {
      const headers: Record<string, string> = accept === undefined ? {} : { accept }
      const noHeader = await rawRequest(bff.url, '/api/v1/lead/', headers)
      expect(noHeader.status).toBe(403)
      expect(noHeader.headers['content-type']).toMatch(/^application\/json/)
      const signedOut = await rawRequest(bff.url, '/api/v1/lead/', { ...headers, 'x-requested-with': 'leadline' })
      expect(signedOut.status).toBe(401)
      expect(JSON.parse(signedOut.body)).toEqual({ error: 'You are not signed in.' })
      const auth = await rawRequest(bff.url, '/auth/nowhere', { ...headers, 'x-requested-with': 'leadline' })
      expect(auth.status).toBe(404)
      expect(JSON.parse(auth.body)).toEqual({ error: 'Not found.' })
    }
  })

  test('no fallback for missing assets, non-HTML requests, other methods, /api or /auth', async () => {
    expect((await bff.call('/assets/missing-123.js', { headers: html })).status).toBe(404)
    const notHtml = await bff.call('/leads', { headers: { accept: 'application/json' } })
    expect(notHtml.status).toBe(404)
    expect(notHtml.json).toEqual({ error: 'Not found.' })
    expect((await bff.call('/leads', { method: 'POST', headers: html })).status).toBe(404)
    const api = await bff.call('/api/v1/lead/', { headers: html })
    expect(api.status).toBe(401)
    expect(api.text).not.toContain('<html')
    const auth = await bff.call('/auth/nowhere', { headers: html })
    expect(auth.status).toBe(404)
    expect(auth.json).toEqual({ error: 'Not found.' })
  })

  test('paths escaping the dist folder are not served', async () => {
    await writeFile(join(dir.path, 'secret.txt'), 'outside')
    for (const target of [
      '/../secret.txt',
      '/assets/../../secret.txt',
      '/%2e%2e/secret.txt',
      '/assets/..%2f..%2fsecret.txt',
    ]) {
      const response = await rawRequest(bff.url, target, { accept: 'text/plain' })
      expect(response.body, target).not.toContain('outside')
      expect(response.status, target).toBeGreaterThanOrEqual(400)
    }
  })

  test('a missing dist folder answers a page saying the app is not built', async () => {
    await bff.close()
    bff = await start(join(dir.path, 'nowhere'))
    const response = await bff.call('/leads', { headers: html })
    expect(response.status).toBe(503)
    expect(response.headers.get('content-type')).toMatch(/^text\/html/)
    expect(response.text).toContain('not built')
    expect((await bff.call('/healthz')).status).toBe(200)
  })
})

describe('security headers', () => {
  test('are on every kind of answer, and X-Powered-By on none', async () => {
    const answers = await Promise.all([
      bff.call('/', { headers: html }),
      bff.call('/assets/app-3f9a1c.js'),
      bff.call('/assets/tiny-7e8d9c.css'),
      bff.call('/nothing-here'),
      bff.call('/api/v1/lead/'),
      bff.call('/api/v1/lead/', { headers: { 'x-requested-with': 'no' } }),
      bff.call('/healthz'),
    ])
    for (const response of answers) {
      for (const [name, value] of Object.entries(SECURITY_HEADERS)) expect(response.headers.get(name)).toBe(value)
      expect(response.headers.get('x-powered-by')).toBeNull()
    }
    expect(SECURITY_HEADERS['content-security-policy']).toBe(
      "default-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'",
    )
  })
})
