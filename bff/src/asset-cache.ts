import { readdirSync, readFileSync, statSync } from 'node:fs'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { join } from 'node:path'
import accepts from 'accepts'
import { lookup } from 'mime-types'

// The web app's hashed assets held in memory and sent in one write each: a first visit asks for some thirty of them at
// once, and reading each from disk through the static middleware (a stat, an open, a stream) cost the BFF's one
// thread about a millisecond apiece, in the queue ahead of the first screen's API calls. What the cache is unsure of
// (a conditional or partial request, an asset added after the start, one the build did not compress) goes on to the
// static middleware, which answers it as before.

/** An asset larger than this is left on disk. */
const LARGEST_ASSET_BYTES = 4 * 1024 * 1024
/** Past this much in all, the remaining assets are left on disk: the cache is bounded whatever the folder holds. */
const CACHE_LIMIT_BYTES = 64 * 1024 * 1024
/** Under this an asset is sent as it is, as the compression middleware would (its threshold). */
const UNCOMPRESSED_UP_TO_BYTES = 1024

export const IMMUTABLE = 'public, max-age=31536000, immutable'

interface Variant {
  body: Buffer
  etag: string
  lastModified: string
}

interface Asset {
  type: string
  identity: Variant
  br?: Variant
  gzip?: Variant
}

function variant(path: string): Variant | undefined {
  const stat = statSync(path, { throwIfNoEntry: false })
  if (stat?.isFile() !== true || stat.size > LARGEST_ASSET_BYTES) return undefined
  return {
    body: readFileSync(path),
    // The static middleware's own validators (send's weak ETag of size and time), so both answer alike.
    etag: `W/"${stat.size.toString(16)}-${stat.mtime.getTime().toString(16)}"`,
    lastModified: stat.mtime.toUTCString(),
  }
}

export class AssetCache {
  private constructor(private readonly assets: ReadonlyMap<string, Asset>) {}

  /**
   * The assets directly in `dir` (the build's `assets/`), read now: each with its `.br` and `.gz` beside it, or small
   * enough to go uncompressed. A missing folder is an empty cache.
   */
  static load(dir: string): AssetCache {
    const assets = new Map<string, Asset>()
    let names: string[]
    try {
      names = readdirSync(dir)
    } catch {
      return new AssetCache(assets)
    }
    const present = new Set(names)
    let total = 0
    for (const name of names) {
      if (name.endsWith('.br') || name.endsWith('.gz')) continue
      const type = lookup(name)
      if (type === false) continue
      const identity = variant(join(dir, name))
      if (identity === undefined) continue
      const br = present.has(`${name}.br`) ? variant(join(dir, `${name}.br`)) : undefined
      const gzip = present.has(`${name}.gz`) ? variant(join(dir, `${name}.gz`)) : undefined
      const compressed = br !== undefined && gzip !== undefined
      if (!compressed && identity.body.length >= UNCOMPRESSED_UP_TO_BYTES) continue
      const size = identity.body.length + (br?.body.length ?? 0) + (gzip?.body.length ?? 0)
      if (total + size > CACHE_LIMIT_BYTES) break
      total += size
      const charset = type.startsWith('text/') || type === 'application/javascript' ? '; charset=utf-8' : ''
      assets.set(name, { type: type + charset, identity, ...(compressed ? { br, gzip } : {}) })
    }
    return new AssetCache(assets)
  }

  get size(): number {
    return this.assets.size
  }

  /**
   * What a GET or HEAD of `/assets/<name>` gets from memory, or undefined when the cache leaves the request to the
   * static middleware.
   */
  find(req: IncomingMessage): CachedAnswer | undefined {
    const url = req.url ?? ''
    if ((req.method !== 'GET' && req.method !== 'HEAD') || !url.startsWith('/assets/')) return undefined
    const asset = this.assets.get(url.slice('/assets/'.length))
    const headers = req.headers
    if (asset === undefined || headers.range !== undefined) return undefined
    if (headers['if-none-match'] !== undefined || headers['if-modified-since'] !== undefined) return undefined
    if (asset.br === undefined || asset.gzip === undefined)
      return { asset, encoding: 'identity', variant: asset.identity }
    // Brotli first whenever the browser takes it, whatever order it lists them in (as the static middleware does).
    const accept = accepts(req)
    if (accept.encoding('br') === 'br') return { asset, encoding: 'br', variant: asset.br }
    if (accept.encoding('gzip') === 'gzip') return { asset, encoding: 'gzip', variant: asset.gzip }
    return accept.encoding('identity') === 'identity'
      ? { asset, encoding: 'identity', variant: asset.identity }
      : undefined
  }
}

export interface CachedAnswer {
  asset: Asset
  encoding: 'br' | 'gzip' | 'identity'
  variant: Variant
}

/** Sends what `find` chose, in one write (headers only for a HEAD). */
export function sendCached(
  req: IncomingMessage,
  res: ServerResponse,
  { asset, encoding, variant }: CachedAnswer,
): void {
  res.setHeader('cache-control', IMMUTABLE)
  res.setHeader('content-type', asset.type)
  res.setHeader('content-length', variant.body.length)
  res.setHeader('etag', variant.etag)
  res.setHeader('last-modified', variant.lastModified)
  if (asset.br !== undefined) res.setHeader('vary', 'Accept-Encoding')
  if (encoding !== 'identity') res.setHeader('content-encoding', encoding)
  res.statusCode = 200
  res.end(req.method === 'HEAD' ? undefined : variant.body)
}
