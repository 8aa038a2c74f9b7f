/** One object as a Close-compatible API answers it: read field by field, never trusted as a type. */
export type SourceObject = Record<string, unknown>

/** The source refused the key: nothing more can be read, so the import stops at once. */
export class SourceAuthError extends Error {
  override name = 'SourceAuthError'
}

/** The source answered something other than what a Close-compatible API answers, or kept failing. */
export class SourceError extends Error {
  override name = 'SourceError'
}

export interface SourceOptions {
  /** E.g. `https://api.close.com/api/v1`, without a trailing slash. */
  baseUrl: string
  apiKey: string
  /** Where waits are told (a 429's, a retry's). */
  onWait?: (message: string) => void
  /** Retries of a 5xx or a connection failure before giving up. */
  retries?: number
  /** The first retry's wait; each next one doubles it. */
  backoffMs?: number
  sleep?: (ms: number) => Promise<void>
}

export interface CloseSource {
  readonly baseUrl: string
  get(path: string, params?: Record<string, string>): Promise<SourceObject>
  /** Every object of a list, page by page with `_skip`/`_limit` while `has_more`. */
  list(path: string, params?: Record<string, string>): AsyncGenerator<SourceObject>
}

// Below every list's maximum on Close (and Leadline): lead 200, contact 200, opportunity 250, activity 100.
const PAGE_SIZE = 100
// A source that answers 429 this many times in a row for one request is not going to let us through.
const MAX_RATE_LIMITED = 50
const MAX_WAIT_SECONDS = 600

function isObject(value: unknown): value is SourceObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Seconds to wait after a 429: `Retry-After`, else Close's `rate_reset` in the body, else one. */
function retryAfterSeconds(headers: Headers, body: unknown): number {
  const header = headers.get('retry-after')
  const fromHeader = header === null ? Number.NaN : Number(header)
  if (Number.isFinite(fromHeader) && fromHeader >= 0) return Math.min(fromHeader, MAX_WAIT_SECONDS)
  if (header !== null) {
    const until = Date.parse(header)
    if (Number.isFinite(until)) return Math.min(Math.max(0, (until - Date.now()) / 1000), MAX_WAIT_SECONDS)
  }
  const error = isObject(body) && isObject(body.error) ? body.error : body
  const reset = isObject(error) ? Number(error.rate_reset) : Number.NaN
  return Number.isFinite(reset) && reset >= 0 ? Math.min(reset, MAX_WAIT_SECONDS) : 1
}

function errorText(body: unknown, raw: string): string {
  if (isObject(body) && typeof body.error === 'string') return body.error
  if (isObject(body) && isObject(body.error) && typeof body.error.message === 'string') return body.error.message
  return raw.slice(0, 300)
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** Reads a Close-compatible API with HTTP Basic auth, the key as the user name, as Close takes keys. */
export function closeSource(options: SourceOptions): CloseSource {
  const baseUrl = options.baseUrl.replace(/\/+$/, '')
  const authorization = `Basic ${Buffer.from(`${options.apiKey}:`).toString('base64')}`
  const retries = options.retries ?? 4
  const backoffMs = options.backoffMs ?? 1000
  const sleep = options.sleep ?? defaultSleep
  const onWait = options.onWait ?? (() => undefined)

  async function get(path: string, params: Record<string, string> = {}): Promise<SourceObject> {
    const url = new URL(`${baseUrl}${path}`)
    for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value)
    let failures = 0
    let rateLimited = 0
    for (;;) {
      let response: Response
      let raw: string
      try {
        response = await fetch(url, { headers: { authorization, accept: 'application/json' } })
        raw = await response.text()
      } catch (error) {
        failures += 1
        if (failures > retries) {
          throw new SourceError(`GET ${path}: ${error instanceof Error ? error.message : String(error)}`)
        }
        const wait = backoffMs * 2 ** (failures - 1)
        onWait(`GET ${path} failed to connect; retrying in ${String(wait / 1000)} s`)
        await sleep(wait)
        continue
      }
      let body: unknown
      try {
        body = raw === '' ? undefined : JSON.parse(raw)
      } catch {
        body = undefined
      }
      if (response.status === 401) {
        throw new SourceAuthError(
          `the source refused the API key (401 ${errorText(body, raw)}): check the key in the environment variable`,
        )
      }
      if (response.status === 429) {
        rateLimited += 1
        if (rateLimited > MAX_RATE_LIMITED) throw new SourceError(`GET ${path}: rate limited ${rateLimited} times`)
        const seconds = retryAfterSeconds(response.headers, body)
        onWait(`rate limited by the source; waiting ${String(seconds)} s as it asks`)
        await sleep(seconds * 1000)
        continue
      }
      if (response.status >= 500) {
        failures += 1
        if (failures > retries) throw new SourceError(`GET ${path}: ${response.status} ${errorText(body, raw)}`)
        const wait = backoffMs * 2 ** (failures - 1)
        onWait(`GET ${path} answered ${response.status}; retrying in ${String(wait / 1000)} s`)
        await sleep(wait)
        continue
      }
      if (!response.ok) throw new SourceError(`GET ${path}: ${response.status} ${errorText(body, raw)}`)
      if (!isObject(body)) throw new SourceError(`GET ${path}: the answer is not a JSON object`)
      return body
    }
  }

  async function* list(path: string, params: Record<string, string> = {}): AsyncGenerator<SourceObject> {
    for (let skip = 0; ; skip += PAGE_SIZE) {
      const page = await get(path, { ...params, _skip: String(skip), _limit: String(PAGE_SIZE) })
      if (!Array.isArray(page.data)) throw new SourceError(`GET ${path}: the answer has no "data" list`)
      for (const item of page.data) if (isObject(item)) yield item
      if (page.has_more !== true || page.data.length === 0) return
    }
  }

  return { baseUrl, get, list }
}

/** A string field of a source object, or undefined. */
export function text(object: SourceObject, key: string): string | undefined {
  const value = object[key]
  return typeof value === 'string' ? value : undefined
}

/** A list field of a source object: its object items (an absent or malformed list is empty). */
export function objects(object: SourceObject, key: string): SourceObject[] {
  const value = object[key]
  return Array.isArray(value) ? value.filter(isObject) : []
}

export { isObject }
