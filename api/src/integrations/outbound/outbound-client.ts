import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns'
import http from 'node:http'
import https from 'node:https'
import { isIP } from 'node:net'
import { performance } from 'node:perf_hooks'
import { privateAddressAmong, type Resolver } from '../../platform/security/host-check.js'
import { isPrivateAddress } from '../../platform/security/private-address.js'

// Requests to URLs that customers and operators give us (webhooks, and files to attach to emails). The guard is at
// connect time: the client resolves the host itself and connects only when no address it resolves to is private
// (loopback, private ranges, link-local, cloud metadata), so a name that resolves to 127.0.0.1, or to a public address
// and a private one, cannot reach inside; IP-literal hosts are checked the same way. Redirects are never followed (a
// 3xx answer is a failure), so one cannot lead there either.

export type { Resolver }

export interface OutboundClientOptions {
  /** Whether private addresses may be reached (`outboundPrivateAllowed(config)`: local development and tests). */
  allowPrivate: boolean
  resolve?: Resolver
  /** Certificates trusted in place of the system's (tests trust their self-signed one). */
  ca?: string
}

export interface OutboundPost {
  url: string
  body: string
  headers: Record<string, string>
  timeoutMs: number
  /** false accepts any certificate (a subscription's `verify_ssl: false`). */
  verifyTls: boolean
}

export interface OutboundResult {
  /** A 2xx answer. */
  ok: boolean
  statusCode: number | null
  durationMs: number
  /** Why it did not succeed: the refusal, the network error, the timeout, or the answer's status and first words. */
  error: string | null
}

export interface OutboundGet {
  url: string
  timeoutMs: number
  /** The most bytes the body may have: past them the download is broken off and fails. */
  maxBytes: number
}

/** Why a download failed: the URL or the guard refused it, its body was over `maxBytes`, a non-2xx answer, or else. */
export type DownloadFailure = 'refused' | 'too_large' | 'status' | 'network'

export interface OutboundDownload extends OutboundResult {
  /** The body of a 2xx answer; null when it failed. */
  body: Buffer | null
  /** The answer's `Content-Type`, if any. */
  contentType: string | null
  /** Why it failed; null when it did not. */
  failure: DownloadFailure | null
}

export interface OutboundClient {
  post(request: OutboundPost): Promise<OutboundResult>
  /** Downloads a file, certificates checked, on a connection of its own (nothing kept alive). */
  get(request: OutboundGet): Promise<OutboundDownload>
  /** Closes the kept-alive connections. */
  close(): void
}

/** A host the guard will not connect to. */
export class OutboundRefusedError extends Error {
  override name = 'OutboundRefusedError'
}

/** A URL's request, checked: where it connects. */
interface Target {
  url: URL
  host: string
  literal: boolean
  secure: boolean
}

/** One request and how its answer (or its failure) becomes a result. */
interface ExchangeSpec<T> {
  method: 'POST' | 'GET'
  target: Target
  headers: Record<string, string>
  body: string | undefined
  timeoutMs: number
  verifyTls: boolean
  /** On the client's kept-alive connections (webhooks, often to the same hosts), or on one of its own. */
  keepAlive: boolean
  /** Reads the answer and calls `finish` once; `abort` breaks the exchange off (the connection is closed). */
  read(response: http.IncomingMessage, finish: (result: T) => void, abort: (error: Error) => void): void
  failed(error: string, refused: boolean): T
}

const ERROR_BODY_CHARS = 200
const USER_AGENT = 'Leadline-Webhooks/1.0'

/** The system's resolver, as connections use it. */
export function systemResolver(hostname: string): Promise<readonly LookupAddress[]> {
  return new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => {
      if (error === null) resolve(addresses)
      else reject(error)
    })
  })
}

export function createOutboundClient(options: OutboundClientOptions): OutboundClient {
  const { allowPrivate } = options
  const resolve = options.resolve ?? systemResolver
  const agents = {
    http: new http.Agent({ keepAlive: true, maxSockets: 16, timeout: 30_000 }),
    https: new https.Agent({ keepAlive: true, maxSockets: 16, timeout: 30_000 }),
  }

  /** The net.connect lookup: every address of the name, refused when one of them is private. */
  const guardedLookup = (
    hostname: string,
    lookupOptions: LookupOptions,
    callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ): void => {
    resolve(hostname).then(
      (addresses) => {
        const wanted = addresses.filter((a) => !lookupOptions.family || a.family === lookupOptions.family)
        const [first] = wanted
        if (first === undefined) {
          callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '')
          return
        }
        const inside = allowPrivate ? undefined : privateAddressAmong(addresses)
        if (inside !== undefined) {
          callback(
            new OutboundRefusedError(`refused: ${hostname} resolves to ${inside.address}, a private address`),
            '',
          )
          return
        }
        if (lookupOptions.all === true) callback(null, wanted)
        else callback(null, first.address, first.family)
      },
      (error: unknown) => {
        callback(error instanceof Error ? error : new Error(String(error)), '')
      },
    )
  }

  /** Where a URL's request goes, or why it may not go anywhere. */
  const targetOf = (raw: string): Target | string => {
    let url: URL
    try {
      url = new URL(raw)
    } catch {
      return `not a URL: ${raw}`
    }
    const secure = url.protocol === 'https:'
    if (!secure && url.protocol !== 'http:') return `not an http(s) URL: ${raw}`
    // URL keeps an IPv6 literal's brackets in `hostname`.
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1')
    const literal = isIP(host) !== 0
    if (literal && !allowPrivate && isPrivateAddress(host)) return `refused: ${host} is a private address`
    return { url, host, literal, secure }
  }

  /**
   * Makes one request to a checked target and settles with what `read` makes of the answer, or with what `failed`
   * makes of a refusal, a network error or the timeout (which covers reading the answer too).
   */
  const exchange = <T>(spec: ExchangeSpec<T>): Promise<T> => {
    const { target } = spec
    return new Promise((settle) => {
      let settled = false
      const finish = (result: T) => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        settle(result)
      }
      const outgoing = (target.secure ? https : http).request(
        {
          method: spec.method,
          protocol: target.url.protocol,
          host: target.host,
          port: target.url.port === '' ? undefined : Number(target.url.port),
          path: `${target.url.pathname}${target.url.search}`,
          headers: { ...spec.headers, 'user-agent': USER_AGENT, host: target.url.host },
          agent: spec.keepAlive ? (target.secure ? agents.https : agents.http) : false,
          // A literal host is connected to as it is (checked above); a name goes through the guarded lookup.
          ...(target.literal ? {} : { lookup: guardedLookup, servername: target.host }),
          ...(target.secure
            ? { rejectUnauthorized: spec.verifyTls, ...(options.ca === undefined ? {} : { ca: options.ca }) }
            : {}),
        },
        (response) => {
          spec.read(response, finish, (error) => outgoing.destroy(error))
        },
      )
      const timer = setTimeout(() => {
        outgoing.destroy(new Error(`no answer within ${String(spec.timeoutMs / 1000)} s`))
      }, spec.timeoutMs)
      outgoing.on('error', (error) => {
        const refused = error instanceof OutboundRefusedError
        finish(spec.failed(refused ? error.message : describeError(error), refused))
      })
      outgoing.end(spec.body)
    })
  }

  const post = (request: OutboundPost): Promise<OutboundResult> => {
    const started = performance.now()
    const done = (statusCode: number | null, error: string | null): OutboundResult => ({
      ok: error === null,
      statusCode,
      durationMs: Math.round(performance.now() - started),
      error,
    })
    const target = targetOf(request.url)
    if (typeof target === 'string') return Promise.resolve(done(null, target))
    return exchange({
      method: 'POST',
      target,
      headers: {
        ...request.headers,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(request.body)),
      },
      body: request.body,
      timeoutMs: request.timeoutMs,
      verifyTls: request.verifyTls,
      keepAlive: true,
      read: (response, finish) => {
        const status = response.statusCode ?? 0
        let text = ''
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => {
          if (text.length < ERROR_BODY_CHARS) text += chunk
        })
        response.on('error', () => {
          finish(done(status, `the answer (${String(status)}) broke off`))
        })
        response.on('end', () => {
          if (status >= 200 && status < 300) finish(done(status, null))
          else if (status >= 300 && status < 400) finish(done(status, redirectError(status, response)))
          else {
            const words = text.slice(0, ERROR_BODY_CHARS).trim()
            finish(done(status, `answered ${String(status)}${words === '' ? '' : `: ${words}`}`))
          }
        })
      },
      failed: (error) => done(null, error),
    })
  }

  const get = (request: OutboundGet): Promise<OutboundDownload> => {
    const started = performance.now()
    const failure = (kind: DownloadFailure, statusCode: number | null, error: string): OutboundDownload => ({
      ok: false,
      statusCode,
      durationMs: Math.round(performance.now() - started),
      error,
      body: null,
      contentType: null,
      failure: kind,
    })
    const target = targetOf(request.url)
    if (typeof target === 'string') return Promise.resolve(failure('refused', null, target))
    const tooLarge = (status: number) =>
      failure('too_large', status, `the file is larger than ${String(request.maxBytes)} bytes`)
    return exchange({
      method: 'GET',
      target,
      headers: { accept: '*/*' },
      body: undefined,
      timeoutMs: request.timeoutMs,
      verifyTls: true,
      keepAlive: false,
      read: (response, finish, abort) => {
        const status = response.statusCode ?? 0
        if (status < 200 || status >= 300) {
          response.resume()
          const error = status >= 300 && status < 400 ? redirectError(status, response) : `answered ${String(status)}`
          finish(failure('status', status, error))
          abort(new Error('not read'))
          return
        }
        const declared = Number(response.headers['content-length'])
        if (declared > request.maxBytes) {
          finish(tooLarge(status))
          abort(new Error('too large'))
          return
        }
        const chunks: Buffer[] = []
        let size = 0
        response.on('data', (chunk: Buffer) => {
          size += chunk.length
          if (size > request.maxBytes) {
            finish(tooLarge(status))
            abort(new Error('too large'))
            return
          }
          chunks.push(chunk)
        })
        response.on('error', () => {
          finish(failure('network', status, `the answer (${String(status)}) broke off`))
        })
        response.on('end', () => {
          finish({
            ok: true,
            statusCode: status,
            durationMs: Math.round(performance.now() - started),
            error: null,
            body: Buffer.concat(chunks),
            contentType: response.headers['content-type'] ?? null,
            failure: null,
          })
        })
      },
      failed: (error, refused) => failure(refused ? 'refused' : 'network', null, error),
    })
  }

  return {
    post,
    get,
    close: () => {
      agents.http.destroy()
      agents.https.destroy()
    },
  }
}

/** A 3xx answer as a failure: where it pointed, and that it was not followed. */
function redirectError(status: number, response: http.IncomingMessage): string {
  const location = response.headers.location ?? 'nowhere'
  return `answered ${String(status)}, a redirect to ${location} (redirects are not followed)`
}

function describeError(error: Error): string {
  const code = 'code' in error && typeof error.code === 'string' ? error.code : undefined
  return code === undefined || error.message.includes(code) ? error.message : `${code}: ${error.message}`
}
