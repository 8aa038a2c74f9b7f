import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http'
import { PassThrough, type Readable } from 'node:stream'
import { gzipSync } from 'node:zlib'
import { formatTzOffset, tzOffsetHoursAt } from '@leadline/shared/tz-offset'
import { REQUEST_ID_HEADER } from '@leadline/shared/request-id'
import { routePattern } from './metrics.js'
import { spanOf } from './request-spans.js'
import { errors, type Dispatcher, type Pool } from 'undici'

export const BODY_LIMIT_BYTES = 1024 * 1024
/** Past this much an oversized body is no longer drained for a tidy 413; the connection is cut instead. */
const DRAIN_LIMIT_BYTES = 8 * BODY_LIMIT_BYTES
/**
 * Where the browser uploads a file as its raw bytes, each under its own limit rather than 1 MiB: a file for an email,
 * and a CSV to import.
 */
const UPLOAD_PATHS = new Map<string, keyof UploadLimits>([
  ['/api/v1/email_attachment/', 'attachment'],
  ['/api/v1/import/', 'import'],
])

/** The API's largest file per kind of upload, in bytes. */
export interface UploadLimits {
  /** `LEADLINE_EMAIL_ATTACHMENT_MAX_BYTES`. */
  attachment: number
  /** `LEADLINE_IMPORT_MAX_BYTES`. */
  import: number
}
/**
 * What an upload may exceed the API's own limit by before the BFF stops it: at the limit's edge the API answers, with
 * its own message, and the BFF only cuts off bodies the API would refuse anyway.
 */
export const UPLOAD_MARGIN_BYTES = 64 * 1024
const UPSTREAM_ERROR_BODY_LIMIT = 256 * 1024
/**
 * An answer up to this long (by its Content-Length) is read whole and sent in one write, gzipped here when the
 * browser takes it: a stream per answer (compression's gzip stream, the pipeline) cost more than the API's own work
 * on a lead read. Longer ones stream, and are gzipped by the compression middleware.
 */
export const WHOLE_ANSWER_BYTES = 64 * 1024
/**
 * A whole answer shorter than this goes as it is: it arrives in TCP's first flight (ten segments, some 14 KB) whether
 * compressed or not, so gzip would save no round trip, and it cost the BFF a third of its CPU on a lead read
 * (docs/decisions/0063-bff-fast-lane.md). Longer ones, and every streamed answer, are still compressed.
 */
export const GZIP_FROM_BYTES = 8 * 1024
/**
 * zlib's fastest level, as nginx's default (`gzip_comp_level 1`): on a lead of some 6 KB it takes half the time of the
 * default level 6 for an answer 8% longer (decision 0076).
 */
const GZIP_OPTIONS = { windowBits: 12, memLevel: 5, level: 1 }

export const UNREACHABLE = 'The CRM service is not reachable.'
const TOO_SLOW = 'The CRM service did not answer in time.'

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** Fields answered beside `error`, where the browser must tell refusals apart (`two_factor`). */
    readonly fields: Record<string, string> = {},
  ) {
    super(message)
    this.name = 'HttpError'
  }
}

/**
 * The upstream path for a browser request target, or a HttpError. Only `/api/v1/…` in origin form passes;
 * dot segments (plain or percent-encoded), empty segments, backslashes and encoded slashes are refused rather
 * than normalized, so what the API sees is exactly what was checked.
 */
export function upstreamPath(target: string): string {
  const queryAt = target.indexOf('?')
  const path = queryAt === -1 ? target : target.slice(0, queryAt)
  const query = queryAt === -1 ? '' : target.slice(queryAt)
  if (!path.startsWith('/') || path.startsWith('//')) throw new HttpError(400, 'Invalid request path.')
  if (!path.startsWith('/api/')) throw new HttpError(404, 'Not found.')
  if (/[\\\s#]/.test(target) || /%(2e|2f|5c|00)/i.test(path) || path.includes('//'))
    throw new HttpError(400, 'Invalid request path.')
  const segments = path.split('/').slice(1)
  // Without a dot or a percent sign no segment can be, or decode to, a dot segment.
  const dotFree = !path.includes('.') && !path.includes('%')
  for (const segment of dotFree ? [] : segments) {
    let decoded: string
    try {
      decoded = decodeURIComponent(segment)
    } catch {
      throw new HttpError(400, 'Invalid request path.')
    }
    if (decoded === '.' || decoded === '..') throw new HttpError(400, 'Invalid request path.')
  }
  if (segments[0] !== 'api' || segments[1] !== 'v1' || segments.length < 3) throw new HttpError(404, 'Not found.')
  return path + query
}

// Only these browser headers reach the API; everything else (Cookie, Authorization, hop-by-hop headers,
// X-Forwarded-*, a client's own X-TZ-Offset or method override) stays behind.
const FORWARDED_REQUEST_HEADERS = [
  'accept',
  'accept-language',
  'content-type',
  'if-match',
  'if-none-match',
  'if-modified-since',
  'if-unmodified-since',
] as const

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
])

// Besides hop-by-hop: cookies never cross; a Basic challenge would make the browser pop a password dialog;
// the BFF sets its own security headers and length (but see ENCODED_ANSWER_HEADERS).
const DROPPED_RESPONSE_HEADERS = new Set([
  'set-cookie',
  'set-cookie2',
  'www-authenticate',
  'content-length',
  'content-security-policy',
  'x-frame-options',
  'x-content-type-options',
  'referrer-policy',
  'cross-origin-opener-policy',
  'strict-transport-security',
  'access-control-allow-origin',
  'access-control-allow-credentials',
  'access-control-allow-headers',
  'access-control-allow-methods',
  'access-control-expose-headers',
  'alt-svc',
  'server',
  'x-powered-by',
])

/** The id of the browser's request `res` answers (set by the app as the request began), if any. */
export function requestIdOf(res: ServerResponse): string | undefined {
  const id = res.getHeader(REQUEST_ID_HEADER)
  return typeof id === 'string' ? id : undefined
}

/**
 * The fields an answer begins with (the security headers, its request id, its cache rule), held aside rather than set
 * on the response one by one. An answer sent whole writes them with the API's in one `writeHead`, which Node then
 * takes as they are: setting each with `setHeader` first cost a lead read through the BFF some 15 % of its CPU
 * (docs/decisions/0063-bff-fast-lane.md, "Later"). Any other answer sets them first (`apply`).
 */
export class AnswerHead {
  readonly #fields: string[]
  #applied = false

  /** `fields`: names (lower case) and values in turn, taken as they are (the head adds to them). */
  constructor(
    readonly requestId: string,
    fields: string[],
  ) {
    this.#fields = fields
  }

  add(name: string, value: string): void {
    if (this.#applied) throw new Error('the answer head was already set on the response')
    this.#fields.push(name, value)
  }

  /** Sets the fields on `res`, once: before an answer that is not written whole. */
  apply(res: ServerResponse): void {
    if (this.#applied) return
    this.#applied = true
    for (let at = 0; at < this.#fields.length; at += 2)
      res.setHeader(this.#fields[at] ?? '', this.#fields[at + 1] ?? '')
  }

  /** The fields not yet set on the response (names and values in turn), to begin a `writeHead` list with. */
  pending(): readonly string[] {
    return this.#applied ? [] : this.#fields
  }
}

export function basicAuthorization(apiKey: string): string {
  return `Basic ${Buffer.from(`${apiKey}:`).toString('base64')}`
}

export function tzOffsetHeader(timeZone: string, now: Date): string {
  return formatTzOffset(tzOffsetHoursAt(timeZone, now))
}

/** Reads a request body up to the cap; an oversized one is a 413 HttpError. */
export async function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  if (declaredLength(req) > BODY_LIMIT_BYTES) throw new HttpError(413, 'Request body is larger than 1 MiB.')
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk))
    size += buffer.length
    // Cut off rather than read without end; breaking out destroys the request.
    if (size > DRAIN_LIMIT_BYTES) break
    if (size <= BODY_LIMIT_BYTES) chunks.push(buffer)
  }
  if (size > BODY_LIMIT_BYTES) throw new HttpError(413, 'Request body is larger than 1 MiB.')
  return size === 0 ? undefined : Buffer.concat(chunks)
}

/** Whether a request has a body at all: HTTP/1.1 gives one a length or a transfer coding (RFC 9112, 6.3). */
function hasBody(req: IncomingMessage): boolean {
  return req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined
}

function declaredLength(req: IncomingMessage): number {
  return Number(req.headers['content-length'] ?? '0')
}

/**
 * Which upload a request is: `POST /api/v1/email_attachment/` or `POST /api/v1/import/`, exactly, with any query;
 * undefined for any other request.
 */
export function uploadKind(method: string | undefined, path: string): keyof UploadLimits | undefined {
  if (method !== 'POST') return undefined
  return UPLOAD_PATHS.get(path.split('?')[0] ?? '')
}

/** Whether a request is a file upload (`uploadKind`). */
export function isUpload(method: string | undefined, path: string): boolean {
  return uploadKind(method, path) !== undefined
}

/** A file upload's body as it streams to the API; `overflowed` once it ran past its limit. */
interface UploadBody {
  stream: Readable
  overflowed: () => boolean
  /** Settles when the browser has sent the whole body (or gone away). */
  ended: Promise<void>
}

/**
 * An upload's body, passed on to the API chunk by chunk, unchanged and never held whole. A declared length over the
 * limit is a 413 before the API is asked; a chunked body that runs past it fails the stream (so the upstream request
 * is abandoned) and the rest is drained, up to DRAIN_LIMIT_BYTES more, for a tidy 413.
 */
function uploadBody(req: IncomingMessage, maxBytes: number): UploadBody {
  const limit = maxBytes + UPLOAD_MARGIN_BYTES
  if (declaredLength(req) > limit) throw new HttpError(413, uploadTooLarge(maxBytes))
  const stream = new PassThrough()
  let size = 0
  req.on('data', (chunk: Buffer) => {
    size += chunk.length
    if (size <= limit) {
      if (!stream.write(chunk)) req.pause()
      return
    }
    if (!stream.destroyed) stream.destroy(new HttpError(413, uploadTooLarge(maxBytes)))
    // Cut off rather than read without end.
    if (size > limit + DRAIN_LIMIT_BYTES) req.destroy()
    else req.resume()
  })
  stream.on('drain', () => req.resume())
  req.once('end', () => stream.end())
  req.once('error', (error) => stream.destroy(error))
  const ended = new Promise<void>((resolve) => {
    req.once('end', resolve)
    req.once('close', resolve)
  })
  return { stream, overflowed: () => size > limit, ended }
}

function uploadTooLarge(maxBytes: number): string {
  const mib = Math.round((maxBytes / (1024 * 1024)) * 10) / 10
  return `The file is larger than ${String(mib)} MiB.`
}

export interface ProxyRequest {
  req: IncomingMessage
  res: ServerResponse
  pool: Pool
  path: string
  apiKey: string
  timeZone: string
  now: Date
  /** How long the API may take to send its status and headers. */
  timeoutMs: number
  /** The browser's address (see `clientAddressOf`), for what the api records of who did what from where. */
  clientAddress: string
  /**
   * The API's largest file of each kind of upload (`uploadKind`): an upload may be its limit plus
   * UPLOAD_MARGIN_BYTES; every other body stops at BODY_LIMIT_BYTES.
   */
  uploadLimits: UploadLimits
  /**
   * Whether the browser takes a gzip answer (Accept-Encoding, with its weights) rather than the bytes as they are;
   * asked only of an answer long enough to compress.
   */
  acceptsGzip: () => boolean
  /** Called before a long answer streams (not one sent whole): the app puts its compression on `res` here. */
  beforeStreaming?: () => void
  /** Told how the API's answer went and how long it took (only where metrics are kept: timing costs). */
  onUpstream?: UpstreamObserver
  /**
   * The fields the answer begins with, when they are not set on `res` (the fast lane's): written with the API's, and
   * its request id sent to the API. Without it, `res` carries them already.
   */
  head?: AnswerHead
}

/** The API's status (CLIENT_GONE when the browser left first) or `error` when it did not answer, and the seconds. */
export type UpstreamObserver = (status: number | 'error', seconds: number) => void

/** A failed upstream request as the browser's error: 504 when the API was too slow, else 502. */
function upstreamFailure(error: unknown): HttpError {
  return error instanceof errors.HeadersTimeoutError ? new HttpError(504, TOO_SLOW) : new HttpError(502, UNREACHABLE)
}

/** The status proxyToApi reports when the browser went away before the answer was complete (nginx's 499). */
export const CLIENT_GONE = 499

/**
 * Forwards one request to the API and streams the answer back. Returns the upstream status, or CLIENT_GONE.
 * When the browser goes away first, the upstream request is aborted rather than left to run to its timeout.
 */
export async function proxyToApi({
  req,
  res,
  pool,
  path,
  apiKey,
  timeZone,
  now,
  timeoutMs,
  clientAddress,
  uploadLimits,
  acceptsGzip,
  beforeStreaming,
  onUpstream,
  head,
}: ProxyRequest): Promise<number> {
  // Before the body and outside the upstream try: a 405 is the browser's mistake, not the API being down.
  const method = toMethod(req.method, res)
  const kind = uploadKind(method, path)
  const maxBytes = kind === undefined ? 0 : uploadLimits[kind]
  const upload = kind === undefined ? undefined : uploadBody(req, maxBytes)
  const body = upload === undefined ? (hasBody(req) ? await readBody(req) : undefined) : upload.stream
  const headers: Record<string, string> = {}
  for (const name of FORWARDED_REQUEST_HEADERS) {
    const value = req.headers[name]
    if (typeof value === 'string') headers[name] = value
  }
  headers.authorization = basicAuthorization(apiKey)
  headers['x-tz-offset'] = tzOffsetHeader(timeZone, now)
  headers['x-leadline-client'] = 'web'
  // The api believes it from the BFF's address (LEADLINE_TRUST_PROXY), as it does for the sign-in calls.
  headers['x-forwarded-for'] = clientAddress
  const requestId = head?.requestId ?? requestIdOf(res)
  if (requestId !== undefined) headers[REQUEST_ID_HEADER] = requestId
  const span = spanOf(res)?.client(method, routePattern(path) ?? 'other')
  if (span !== undefined) headers.traceparent = span.traceparent
  if (Buffer.isBuffer(body)) headers['content-length'] = String(body.length)
  // A streamed upload keeps the browser's declared length; without one it goes chunked.
  const declared = req.headers['content-length']
  if (upload !== undefined && declared !== undefined) headers['content-length'] = declared

  const observe: UpstreamObserver | undefined =
    span === undefined
      ? onUpstream
      : (status, seconds) => {
          span.end(status)
          onUpstream?.(status, seconds)
        }
  const call = { path, method, headers, body: body ?? null, timeoutMs, acceptsGzip, onUpstream: observe, head }
  try {
    return await forward(res, pool, { ...call, beforeStreaming: beforeStreaming ?? (() => undefined) })
  } catch (error) {
    if (upload?.overflowed() !== true) throw error
    await upload.ended
    throw new HttpError(413, uploadTooLarge(maxBytes))
  }
}

interface UpstreamCall {
  path: string
  method: Dispatcher.HttpMethod
  headers: Record<string, string>
  body: Buffer | Readable | null
  timeoutMs: number
  acceptsGzip: () => boolean
  beforeStreaming: () => void
  onUpstream: UpstreamObserver | undefined
  head: AnswerHead | undefined
}

/** How an answer goes on to the browser, decided by its status and headers. */
type Passing = 'error' | 'empty' | 'whole' | 'stream'

/**
 * Sends one call to the API and its answer on to `res`, through undici's dispatch interface: its request interface's
 * body stream, abort signal and promise cost a lead read through the BFF a tenth of its time. Settles with the API's
 * status (CLIENT_GONE when the browser went away before the answer came); rejects, before anything is sent, with the
 * browser's 502 or 504 when the API cannot be reached or is too slow.
 */
function forward(res: ServerResponse, pool: Pool, request: UpstreamCall): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    let controller: Dispatcher.DispatchController | undefined
    let status = 0
    let passing: Passing | undefined
    let chunks: Buffer[] = []
    let size = 0
    /** The API's fields of an answer sent whole, written with its body. */
    let fields: [string, string | string[]][] = []
    let settled = false
    const started = request.onUpstream === undefined ? 0n : process.hrtime.bigint()
    const settle = (outcome: number | HttpError) => {
      if (settled) return
      settled = true
      res.off('close', onClose)
      request.onUpstream?.(
        typeof outcome === 'number' ? outcome : 'error',
        Number(process.hrtime.bigint() - started) / 1e9,
      )
      if (typeof outcome === 'number') resolve(outcome)
      else reject(outcome)
    }
    const onClose = () => {
      if (res.writableFinished) return
      controller?.abort(new Error('The browser went away.'))
      settle(passing === undefined ? CLIENT_GONE : status)
    }
    res.once('close', onClose)
    const onDrain = () => controller?.resume()
    pool.dispatch(
      {
        path: request.path,
        method: request.method,
        headers: request.headers,
        body: request.body,
        headersTimeout: request.timeoutMs,
        // Between body chunks: a long list may take a while in total, but it must keep coming.
        bodyTimeout: request.timeoutMs,
      },
      {
        onRequestStart(started) {
          controller = started
          if (res.destroyed || res.socket?.destroyed === true) onClose()
        },
        onResponseStart(_controller, statusCode, headers) {
          // An informational answer (100 Continue) comes before the real one.
          if (statusCode < 200) return
          status = statusCode
          passing = passingOf(request.method, statusCode, headers)
          res.statusCode = statusCode
          fields = responseHeaders(headers)
          if (passing === 'whole') return
          request.head?.apply(res)
          for (const [name, value] of fields) res.setHeader(name, value)
          if (passing === 'stream') request.beforeStreaming()
          if (passing === 'empty') {
            // Answered now: undici reports a 304's length without its body as a body cut short.
            res.end()
            settle(status)
          }
        },
        onResponseData(paused, chunk) {
          if (passing === 'stream') {
            if (!res.write(chunk)) {
              paused.pause()
              res.once('drain', onDrain)
            }
            return
          }
          if (passing === 'empty') return
          size += chunk.length
          // An error page past the limit is not read into memory: its text is replaced anyway.
          if (passing === 'whole' || size <= UPSTREAM_ERROR_BODY_LIMIT) chunks.push(chunk)
          else chunks = []
        },
        onResponseEnd() {
          if (passing === 'error') {
            const text = size <= UPSTREAM_ERROR_BODY_LIMIT ? Buffer.concat(chunks).toString('utf8') : undefined
            sendUpstreamError(res, text, res.getHeader('content-type'))
          } else if (passing === 'whole') {
            const whole = { status, head: request.head, fields, body: Buffer.concat(chunks, size) }
            sendWhole(res, whole, request.acceptsGzip)
          } else if (passing === 'stream') res.end()
          settle(status)
        },
        onResponseError(_controller, error) {
          if (settled) return
          if (passing === undefined) {
            settle(upstreamFailure(error))
            return
          }
          // The API broke off mid-answer: nothing more can be sent.
          res.destroy()
          settle(status)
        },
      },
    )
  })
}

function passingOf(method: Dispatcher.HttpMethod, status: number, headers: IncomingHttpHeaders): Passing {
  if (status >= 500) return 'error'
  // No body, whatever the length says: a 304 may give the representation's (RFC 9110, 8.6).
  if (method === 'HEAD' || status === 204 || status === 304) return 'empty'
  return isWhole(headers) ? 'whole' : 'stream'
}

/** Only a JSON error crosses; an HTML page or stack trace from a failing upstream never reaches the browser. */
function sendUpstreamError(res: ServerResponse, text: string | undefined, type: unknown): void {
  res.removeHeader('content-type')
  res.removeHeader('content-encoding')
  res.removeHeader('content-length')
  res.setHeader('content-type', 'application/json; charset=utf-8')
  const passes = text !== undefined && typeof type === 'string' && isJsonContentType(type) && isJson(text)
  res.end(passes ? text : JSON.stringify({ error: 'The CRM service failed to answer.' }))
}

/** Whether an answer is sent in one write (WHOLE_ANSWER_BYTES): one of a known, short length that is not encoded. */
function isWhole(headers: IncomingHttpHeaders): boolean {
  const length = Number(headers['content-length'] ?? Number.NaN)
  return headers['content-encoding'] === undefined && length <= WHOLE_ANSWER_BYTES
}

/** An answer read whole: the API's status, the fields it passes on (`responseHeaders`) and its body. */
interface WholeAnswer {
  status: number
  /** The answer's own first fields, when they are not on the response yet (`AnswerHead`). */
  head: AnswerHead | undefined
  fields: [string, string | string[]][]
  body: Buffer
}

/**
 * Ends the answer with its body, gzipped when the browser takes it and it is text of some length (as the compression
 * middleware would have, which leaves an answer that is already encoded alone); its length is then known, not chunked.
 * Every field goes in one `writeHead`: the head's first, then the API's (the security headers are never among them:
 * DROPPED_RESPONSE_HEADERS; any other field both name is the API's, as when each was set in turn), then the length.
 * Fields already set on the response stay, as `writeHead` merges them.
 */
function sendWhole(res: ServerResponse, answer: WholeAnswer, acceptsGzip: () => boolean): void {
  const list: (string | string[])[] = []
  const head = answer.head?.pending() ?? []
  // A field the API names too is the API's, as when each was set in turn (its request id is the one it was sent).
  for (let at = 0; at < head.length; at += 2) {
    const name = head[at]
    if (!answer.fields.some(([upstream]) => upstream === name)) list.push(name ?? '', head[at + 1] ?? '')
  }
  let vary: string | undefined
  let type: string | string[] | undefined
  for (const [name, value] of answer.fields) {
    if (name === 'vary') {
      vary = typeof value === 'string' ? value : value.join(', ')
      continue
    }
    if (name === 'content-type') type = value
    list.push(name, value)
  }
  if (vary === undefined || vary.trim() === '') list.push('vary', 'Accept-Encoding')
  else list.push('vary', vary.toLowerCase().includes('accept-encoding') ? vary : `${vary}, Accept-Encoding`)
  let body = answer.body
  if (body.length >= GZIP_FROM_BYTES && isText(type) && acceptsGzip()) {
    body = gzipSync(body, GZIP_OPTIONS)
    list.push('content-encoding', 'gzip')
  }
  list.push('content-length', String(body.length))
  res.writeHead(answer.status, list)
  res.end(body)
}

/** JSON and text answers are worth compressing; images, PDFs and archives are compressed already. */
function isText(value: number | string | string[] | undefined): boolean {
  return typeof value === 'string' && (isJsonContentType(value) || /^\s*text\//i.test(value))
}

/**
 * An answer the API encoded itself (an export's file: `Content-Encoding: gzip`) is passed on byte for byte, so its
 * encoding goes with it, and its length is still true: compression leaves an encoded answer alone. The browser then
 * decodes it, and a download link saves the CSV or JSON the file name says (docs/decisions/0052-exports.md).
 */
function responseHeaders(headers: IncomingHttpHeaders): [string, string | string[]][] {
  const encoded = headers['content-encoding'] !== undefined
  const named = connectionFields(headers.connection)
  const kept: [string, string | string[]][] = []
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase()
    if (value === undefined || HOP_BY_HOP.has(lower) || named?.has(lower) === true) continue
    if (DROPPED_RESPONSE_HEADERS.has(lower) && !(encoded && lower === 'content-length')) continue
    kept.push([lower, value])
  }
  return kept
}

/**
 * The fields a `Connection` header names, hop-by-hop too (RFC 9110, 7.6.1); undefined for the API's usual
 * `keep-alive` (or `close`), which names none, without splitting it for every answer.
 */
function connectionFields(connection: string | string[] | undefined): Set<string> | undefined {
  if (typeof connection !== 'string' || connection === 'keep-alive' || connection === 'close') return undefined
  return new Set(
    connection
      .split(',')
      .map((name) => name.trim().toLowerCase())
      .filter((name) => name !== ''),
  )
}

const METHODS: readonly Dispatcher.HttpMethod[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']

function toMethod(method: string | undefined, res: ServerResponse): Dispatcher.HttpMethod {
  for (const known of METHODS) if (known === method) return known
  res.setHeader('allow', METHODS.join(', '))
  throw new HttpError(405, 'Method not allowed.')
}

async function readLimited(body: AsyncIterable<unknown>, limit: number): Promise<string | undefined> {
  const chunks: Buffer[] = []
  let size = 0
  try {
    for await (const chunk of body) {
      const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk))
      size += buffer.length
      if (size > limit) return undefined
      chunks.push(buffer)
    }
  } catch {
    return undefined
  }
  return Buffer.concat(chunks).toString('utf8')
}

function isJsonContentType(value: string | string[] | undefined): boolean {
  return typeof value === 'string' && /^application\/(?:[\w.+-]+\+)?json\b/i.test(value.trim())
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

/** A call the BFF makes for itself, beyond a GET with the session's key: the sign-in calls. */
export interface OwnCall {
  method?: 'GET' | 'POST' | 'DELETE'
  /** Sent as JSON. */
  body?: unknown
  /** The browser's address, for the api's sign-in limits (it believes the header from the BFF's address). */
  forwardedFor?: string
  /** The answer to the browser's request this call is made for: its request id goes with the call. */
  origin?: ServerResponse | undefined
}

/** Reads a whole upstream JSON answer (for the BFF's own calls, e.g. `/me/`); no key for the sign-in itself. */
export async function upstreamJson(
  ...call: Parameters<typeof upstreamText>
): Promise<{ status: number; body: unknown; headers: IncomingHttpHeaders }> {
  const { status, text, headers } = await upstreamText(...call)
  let body: unknown
  try {
    body = text === undefined ? undefined : JSON.parse(text)
  } catch {
    body = undefined
  }
  return { status, body, headers }
}

/**
 * Reads a whole upstream answer as text (undefined past BODY_LIMIT_BYTES), with the session's key and time zone as the
 * proxy sends them; upstreamJson reads it as JSON.
 */
export async function upstreamText(
  pool: Pool,
  path: string,
  apiKey: string | undefined,
  timeZone: string,
  now: Date,
  timeoutMs: number,
  call: OwnCall = {},
): Promise<{ status: number; text: string | undefined; headers: IncomingHttpHeaders }> {
  const headers: Record<string, string> = {
    accept: 'application/json',
    'x-tz-offset': tzOffsetHeader(timeZone, now),
    'x-leadline-client': 'web',
  }
  if (apiKey !== undefined) headers.authorization = basicAuthorization(apiKey)
  if (call.forwardedFor !== undefined) headers['x-forwarded-for'] = call.forwardedFor
  const requestId = call.origin === undefined ? undefined : requestIdOf(call.origin)
  if (requestId !== undefined) headers[REQUEST_ID_HEADER] = requestId
  const method = call.method ?? 'GET'
  const span =
    call.origin === undefined ? undefined : spanOf(call.origin)?.client(method, routePattern(path) ?? 'other')
  if (span !== undefined) headers.traceparent = span.traceparent
  if (call.body !== undefined) headers['content-type'] = 'application/json'
  let upstream: Dispatcher.ResponseData
  try {
    upstream = await pool.request({
      path,
      method,
      headers,
      ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    })
  } catch (error) {
    span?.end('error')
    throw upstreamFailure(error)
  }
  span?.end(upstream.statusCode)
  const text = await readLimited(upstream.body, BODY_LIMIT_BYTES)
  return { status: upstream.statusCode, text, headers: upstream.headers }
}
