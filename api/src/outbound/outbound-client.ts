import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns'
import http from 'node:http'
import https from 'node:https'
import { isIP } from 'node:net'
import { performance } from 'node:perf_hooks'
import { isPrivateAddress } from './private-address.js'

// Requests to URLs that customers and operators give us (webhooks). The guard is at connect time: the client resolves
// the host itself and connects only when no address it resolves to is private (loopback, private ranges, link-local,
// cloud metadata), so a name that resolves to 127.0.0.1, or to a public address and a private one, cannot reach
// inside; IP-literal hosts are checked the same way. Redirects are never followed (a 3xx answer is a failure), so
// one cannot lead there either.

/** Resolves a host name to every address it has (dns.lookup with `all`, unless a test gives its own). */
export type Resolver = (hostname: string) => Promise<readonly LookupAddress[]>

export interface OutboundClientOptions {
  /** Whether private addresses may be reached (`outboundPrivateAllowed(config)`: local development and tests). */
  allowPrivate: boolean
  resolve?: Resolver
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

export interface OutboundClient {
  post(request: OutboundPost): Promise<OutboundResult>
  /** Closes the kept-alive connections. */
  close(): void
}

/** A host the guard will not connect to. */
export class OutboundRefusedError extends Error {
  override name = 'OutboundRefusedError'
}

const ERROR_BODY_CHARS = 200
const USER_AGENT = 'Leadline-Webhooks/1.0'

function systemResolver(hostname: string): Promise<readonly LookupAddress[]> {
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
        const inside = allowPrivate ? undefined : addresses.find((a) => isPrivateAddress(a.address))
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

  const post = (request: OutboundPost): Promise<OutboundResult> => {
    const started = performance.now()
    const done = (statusCode: number | null, error: string | null): OutboundResult => ({
      ok: error === null,
      statusCode,
      durationMs: Math.round(performance.now() - started),
      error,
    })
    let url: URL
    try {
      url = new URL(request.url)
    } catch {
      return Promise.resolve(done(null, `not a URL: ${request.url}`))
    }
    const secure = url.protocol === 'https:'
    if (!secure && url.protocol !== 'http:') return Promise.resolve(done(null, `not an http(s) URL: ${request.url}`))
    // URL keeps an IPv6 literal's brackets in `hostname`.
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1')
    const literal = isIP(host) !== 0
    if (literal && !allowPrivate && isPrivateAddress(host))
      return Promise.resolve(done(null, `refused: ${host} is a private address`))

    return new Promise((settle) => {
      let settled = false
      const finish = (result: OutboundResult) => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        settle(result)
      }
      const outgoing = (secure ? https : http).request(
        {
          method: 'POST',
          protocol: url.protocol,
          host,
          port: url.port === '' ? undefined : Number(url.port),
          path: `${url.pathname}${url.search}`,
          headers: {
            ...request.headers,
            'content-type': 'application/json',
            'content-length': String(Buffer.byteLength(request.body)),
            'user-agent': USER_AGENT,
            host: url.host,
          },
          agent: secure ? agents.https : agents.http,
          // A literal host is connected to as it is (checked above); a name goes through the guarded lookup.
          ...(literal ? {} : { lookup: guardedLookup, servername: host }),
          ...(secure ? { rejectUnauthorized: request.verifyTls } : {}),
        },
        (response) => {
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
            else if (status >= 300 && status < 400) {
              const location = response.headers.location ?? 'nowhere'
              finish(done(status, `answered ${String(status)}, a redirect to ${location} (redirects are not followed)`))
            } else {
              const words = text.slice(0, ERROR_BODY_CHARS).trim()
              finish(done(status, `answered ${String(status)}${words === '' ? '' : `: ${words}`}`))
            }
          })
        },
      )
      const timer = setTimeout(() => {
        outgoing.destroy(new Error(`no answer within ${String(request.timeoutMs / 1000)} s`))
      }, request.timeoutMs)
      outgoing.on('error', (error) => {
        finish(done(null, error instanceof OutboundRefusedError ? error.message : describeError(error)))
      })
      outgoing.end(request.body)
    })
  }

  return {
    post,
    close: () => {
      agents.http.destroy()
      agents.https.destroy()
    },
  }
}

function describeError(error: Error): string {
  const code = 'code' in error && typeof error.code === 'string' ? error.code : undefined
  return code === undefined || error.message.includes(code) ? error.message : `${code}: ${error.message}`
}
