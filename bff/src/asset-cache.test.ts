import { mkdir, writeFile } from 'node:fs/promises'
import type { IncomingMessage } from 'node:http'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { AssetCache } from './asset-cache.js'
import { tempDir } from './test-support/harness.js'

let dir: Awaited<ReturnType<typeof tempDir>>
let assets: string

function request(url: string, headers: Record<string, string> = {}, method = 'GET'): IncomingMessage {
  return { method, url, headers } as unknown as IncomingMessage
}

beforeEach(async () => {
  dir = await tempDir()
  assets = join(dir.path, 'assets')
  await mkdir(assets)
  const script = 'x'.repeat(4000)
  await writeFile(join(assets, 'app-1a.js'), script)
  await writeFile(join(assets, 'app-1a.js.br'), 'BR')
  await writeFile(join(assets, 'app-1a.js.gz'), 'GZ')
  // Compressed by nobody: left to the compression middleware.
  await writeFile(join(assets, 'plain-2b.js'), script)
  await writeFile(join(assets, 'tiny-3c.css'), 'a{}')
  await writeFile(join(assets, 'notes-4d.unknownkind'), 'a')
})

afterEach(async () => {
  await dir.remove()
})

describe('AssetCache', () => {
  test('holds the compressed assets and the small ones, and answers each encoding from memory', () => {
    const cache = AssetCache.load(assets)
    expect(cache.size).toBe(2)
    const br = cache.find(request('/assets/app-1a.js', { 'accept-encoding': 'gzip, deflate, br' }))
    expect(br?.encoding).toBe('br')
    expect(br?.variant.body.toString()).toBe('BR')
    expect(cache.find(request('/assets/app-1a.js', { 'accept-encoding': 'gzip' }))?.variant.body.toString()).toBe('GZ')
    const none = cache.find(request('/assets/app-1a.js'))
    expect(none?.encoding).toBe('identity')
    expect(none?.variant.body.length).toBe(4000)
    expect(cache.find(request('/assets/app-1a.js', {}, 'HEAD'))?.encoding).toBe('identity')
    expect(cache.find(request('/assets/tiny-3c.css', { 'accept-encoding': 'br' }))?.encoding).toBe('identity')
  })

  test('leaves to the static middleware what it is unsure of', () => {
    const cache = AssetCache.load(assets)
    const url = '/assets/app-1a.js'
    expect(cache.find(request('/assets/plain-2b.js'))).toBeUndefined()
    expect(cache.find(request('/assets/notes-4d.unknownkind'))).toBeUndefined()
    expect(cache.find(request('/assets/missing.js'))).toBeUndefined()
    expect(cache.find(request('/app-1a.js'))).toBeUndefined()
    expect(cache.find(request(url, {}, 'POST'))).toBeUndefined()
    expect(cache.find(request(url, { range: 'bytes=0-10' }))).toBeUndefined()
    expect(cache.find(request(url, { 'if-none-match': 'W/"1"' }))).toBeUndefined()
    expect(cache.find(request(url, { 'if-modified-since': new Date().toUTCString() }))).toBeUndefined()
    expect(cache.find(request(url, { 'accept-encoding': 'identity;q=0' }))).toBeUndefined()
    expect(cache.find(request(`${url}?v=1`))).toBeUndefined()
  })

  test('an asset past 4 MiB stays on disk', async () => {
    await writeFile(join(assets, 'huge-5e.js'), Buffer.alloc(4 * 1024 * 1024 + 1, 120))
    await writeFile(join(assets, 'huge-5e.js.br'), 'BR')
    await writeFile(join(assets, 'huge-5e.js.gz'), 'GZ')
    const cache = AssetCache.load(assets)
    expect(cache.find(request('/assets/huge-5e.js', { 'accept-encoding': 'br' }))).toBeUndefined()
    expect(cache.size).toBe(2)
  })

  test('a missing folder is an empty cache', () => {
    expect(AssetCache.load(join(dir.path, 'nowhere')).size).toBe(0)
  })
})
