import { randomUUID } from 'node:crypto'
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http'
import { join, sep } from 'node:path'
import accepts from 'accepts'
import compression from 'compression'
import expressStaticGzip from 'express-static-gzip'
import express, { type Express, type NextFunction, type Request, type Response } from 'express'
import { pino, type Logger } from 'pino'
import { Pool } from 'undici'
import {
  authRoutes,
  currentSession,
  FieldError,
  liveSession,
  sessionView,
  type AuthDeps,
  type CurrentSession,
} from './auth-routes.js'
import { AnswerHead, HttpError, proxyToApi, requestIdOf, upstreamPath, upstreamText } from './crm-proxy.js'
import { demoSeedFileInUse, type BffConfig } from './env.js'
import { signedInPage } from './app-page.js'
import { pageAnswersBlock, readPageAnswers } from './page-answers.js'
import { BuildFile } from './build-file.js'
import { PageStylesheet, styleNonce, styleRuleFor } from './page-stylesheet.js'
import { loadScreenRenderer, NO_SCREEN_RENDER, type ScreenRenderer } from './screen-render.js'
import { firstScreenRequests } from '@leadline/shared/first-screen-requests'
import { localDateIn } from '@leadline/shared/task-dates'
import { AssetCache, IMMUTABLE, sendCached } from './asset-cache.js'
import { RoutePreloads } from './route-preloads.js'
import { LiveEvents, type LiveTimings } from './live-events.js'
import { isRequestId, REQUEST_ID_HEADER } from '@leadline/shared/request-id'
import type { Tracing } from '@leadline/shared/tracing-switch'
import { createBffMetrics, routePattern, type BffMetrics } from './metrics.js'
import { setSpan, spanOf } from './request-spans.js'
import type { SessionStore } from './session.js'
import { SignInLimiter } from './sign-in-limiter.js'
import { ssoRoutes } from './sso-routes.js'
import { withDeadline } from '@leadline/shared/deadline'

export interface BffAppOptions {
  config: BffConfig
  store: SessionStore
  /** The time for session expiry and `X-TZ-Offset`; tests move it. */
  fetchClock?: () => Date
  /** Defaults to pino at `config.logLevel` on stdout. */
  logger?: Logger
  /** The live updates' heartbeat, ring and retry times, which tests shorten. */
  liveTimings?: Partial<LiveTimings>
  /** Where each request's spans go, when OpenTelemetry's variables ask for traces (decision 0074). */
  tracing?: Tracing | undefined
}

export interface BffApp {
  app: Express
  /**
   * What the HTTP server calls: a signed-in browser's read of `/api/v1/…` goes straight to the proxy (the fast lane),
   * everything else through `app`.
   */
  handle: RequestListener
  logger: Logger
  live: LiveEvents
  /** The web app's server render, loading as the app starts (tests wait for `loaded`). */
  screens: ScreenRenderer
  /** The figures `GET /metrics` shows, kept only when `LEADLINE_BFF_METRICS_PORT` is set (main.ts serves them). */
  metrics: BffMetrics | undefined
  /** Ends the browsers' live-update streams, which would otherwise hold a graceful stop to its deadline. */
  endStreams(): void
  /** From now on `/readyz` answers 503 (the first SIGTERM: main.ts), while everything else is served as before. */
  startDraining(): void
  /** Stops the purge timer, closes the upstream connection pool (aborting its requests if asked) and the session
   * store. */
  close(options?: { abortUpstream?: boolean }): Promise<void>
}

export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
  'api_key',
  '*.api_key',
  'apiKey',
  '*.apiKey',
]

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  // No 'unsafe-inline' and no data: images: the built app links one stylesheet and sets inline styles only through
  // the CSSOM (React's style prop, React Aria), which CSP does not govern; e2e/tests/auth-csp.spec.ts checks it.
  'content-security-policy': "default-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
}

/** SECURITY_HEADERS as names and values in turn, as an answer's head begins (AnswerHead). */
const SECURITY_FIELDS: readonly string[] = Object.entries(SECURITY_HEADERS).flat()
const PURGE_EVERY_MS = 10 * 60_000
const HSTS = 'max-age=31536000; includeSubDomains'
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Leadline</title></head>
<body><h1>The Leadline web app is not built</h1>
<p>Run <code>corepack pnpm --filter @leadline/web build</code> (or <code>npm start</code>) and reload this page.</p>
</body></html>
`

/** Where the app draws itself in the build's page: a server-drawn screen goes inside. */
const ROOT_OPENING = '<div id="root">'
const EMPTY_ROOT = `${ROOT_OPENING}</div>`

/** The BFF without a listening socket: main.ts listens, tests listen on port 0. */
export function createBffApp(options: BffAppOptions): BffApp {
  const { config, store } = options
  const now = options.fetchClock ?? (() => new Date())
  const logger =
    options.logger ?? pino({ level: config.logLevel, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } })
  const pool = new Pool(config.apiUrl, {
    connections: 64,
    keepAliveTimeout: 10_000,
    keepAliveMaxTimeout: 60_000,
    headersTimeout: config.apiTimeoutMs,
    bodyTimeout: config.apiTimeoutMs,
  })
  const screens =
    config.webServerRender === undefined ? NO_SCREEN_RENDER : loadScreenRenderer(config.webServerRender, logger)
  const demoSeedFile = demoSeedFileInUse(config)
  if (config.demoSeedFile !== undefined && demoSeedFile === undefined)
    logger.warn(
      { host: config.host },
      config.demoSignIn === 'off'
        ? 'LEADLINE_DEMO_SEED_FILE is set but demo sign-in is off: LEADLINE_DEMO_SIGN_IN=0'
        : 'LEADLINE_DEMO_SEED_FILE is set but demo sign-in is off: the BFF listens beyond loopback, where anyone ' +
            'could sign in as the demo admin (set LEADLINE_DEMO_SIGN_IN=1 to allow it anyway)',
    )
  const live = new LiveEvents({
    apiUrl: config.apiUrl,
    streamSecret: config.streamSecret,
    store,
    now,
    logger,
    apiTimeoutMs: config.apiTimeoutMs,
    ...(options.liveTimings === undefined ? {} : { timings: options.liveTimings }),
  })
  // Made only where `/metrics` is served: with no port, no request is timed (decision 0072).
  const metrics = config.metrics === null ? undefined : createBffMetrics(live)
  if (metrics !== undefined) {
    store.timeStatements((operation, result, seconds) => {
      metrics.sessionStore(operation, result, seconds)
    })
  }
  const observe: Observers = { logger, metrics, trustProxy: config.trustProxy, tracing: options.tracing }
  const limiter = new SignInLimiter({
    store,
    limit: config.signInAttempts,
    windowMs: config.signInWindowMs,
    ...(metrics === undefined
      ? {}
      : {
          onFailure: () => {
            metrics.signIn('failed')
          },
        }),
  })
  const deps: AuthDeps = {
    config,
    store,
    pool,
    now,
    demoSeedFile,
    limiter,
    onSessionEnded: (id) => {
      live.endSession(id)
    },
    ...(metrics === undefined
      ? {}
      : {
          onSignedIn: () => {
            metrics.signIn('succeeded')
          },
        }),
  }

  const app = express()
  app.disable('x-powered-by')
  // Trusted, the proxy's X-Forwarded-For / -Proto / -Host give req.ip, req.secure and req.host.
  app.set('trust proxy', config.trustProxy)
  const trustProxy = app.get('trust proxy fn') as (address: string | undefined, hop: number) => boolean

  app.use((req, res, next) => {
    beginRequest(req, res, req.secure, observe)
    // Absolute-form (`GET http://evil.example/…`) and `//host/…` targets are refused before any routing,
    // so nothing below ever interprets a foreign authority as a path.
    if (!req.url.startsWith('/') || req.url.startsWith('//') || req.url.includes('\\')) {
      res.status(400).json({ error: 'Invalid request path.' })
      return
    }
    if (!SAFE_METHODS.has(req.method) && isCrossSite(req, config.publicOrigin)) {
      res.status(403).json({ error: 'Requests from another site are refused.' })
      return
    }
    next()
  })

  // Server-sent events: before compression, which would hold them back to fill its buffers.
  app.get('/events', async (req, res) => {
    const current = await currentSession(req, res, deps)
    if (current === undefined) throw new HttpError(401, 'You are not signed in.')
    const lastEventId = req.get('last-event-id')
    live.attach(res, { id: current.id, organizationId: current.session.organizationId }, lastEventId)
  })

  // Not on /api/: the proxy gzips a short answer itself, sent whole, and puts this on a long one before it streams
  // (crm-proxy.ts, WHOLE_ANSWER_BYTES); wrapping every answer cost a lead read more than its gzip did.
  const compress = compression()
  app.use((req, res, next) => {
    if (req.path.startsWith('/api/')) next()
    else compress(req, res, next)
  })

  app.get('/healthz', async (_req, res) => {
    res.setHeader('cache-control', 'no-store')
    res.json({ status: 'ok', upstream: await upstreamState(pool) })
  })

  const READY_UPSTREAM_MS = 500
  const READY_SESSIONS_MS = 2000
  // Ready while its session store answers and it is not stopping. The API's state is shown, not counted: every BFF
  // shares the API, and taking them all out when it fails would only turn its errors into the balancer's.
  let draining = false
  app.get('/readyz', async (_req, res) => {
    // Postgres may take its connection timeout to fail: the balancer's check gets its answer sooner.
    const sessions = (await withDeadline(store.reachable(), READY_SESSIONS_MS, false)) ? 'ok' : 'unreachable'
    const ready = sessions === 'ok' && !draining
    res.setHeader('cache-control', 'no-store')
    res.status(ready ? 200 : 503).json({
      status: ready ? 'ready' : 'not ready',
      sessions,
      // Shown only: a hung API must not make the balancer's check of this BFF time out.
      upstream: await upstreamState(pool, READY_UPSTREAM_MS),
      draining,
    })
  })

  // Full-page navigations to and from the identity provider: no X-Requested-With (sso-routes.ts says what guards them).
  app.use('/auth/sso', ssoRoutes(deps))

  app.use(['/api', '/auth'], (req, res, next) => {
    res.setHeader('cache-control', 'no-store')
    if (!sentByTheApp(req) && !isDownload(req)) {
      res.status(403).json({ error: 'Requests to /api/ and /auth/ must send the header X-Requested-With: leadline.' })
      return
    }
    next()
  })

  app.use('/auth', express.json({ limit: '16kb' }), authRoutes(deps))

  /** One proxied call for a signed-in browser: the `/api` route and the fast lane both end here. */
  const proxy = async (
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    current: CurrentSession,
    head?: AnswerHead,
  ) => {
    const status = await proxyToApi({
      req,
      res,
      pool,
      path,
      apiKey: current.apiKey,
      timeZone: current.session.timeZone,
      now: now(),
      timeoutMs: config.apiTimeoutMs,
      clientAddress: clientAddressOf(req, trustProxy),
      uploadLimits: { attachment: config.attachmentMaxBytes, import: config.importMaxBytes },
      acceptsGzip: () => accepts(req).encodings(['gzip', 'identity']) === 'gzip',
      beforeStreaming: () => {
        // compression is connect middleware: it reads only what Node's own request and response have.
        compress(req as Request, res as Response, () => undefined)
      },
      ...(metrics === undefined
        ? {}
        : {
            onUpstream: (status: number | 'error', seconds: number) => {
              metrics.upstream(req.method, path, status, seconds)
            },
          }),
      ...(head === undefined ? {} : { head }),
    })
    // The key was revoked: the session is worthless, and the next request answers 401 and clears the cookie.
    if (status === 401) {
      await store.delete(current.id)
      live.endSession(current.id)
    }
  }

  app.use('/api', async (req, res) => {
    const path = upstreamPath(req.originalUrl)
    const current = await currentSession(req, res, deps)
    if (current === undefined) throw new HttpError(401, 'You are not signed in.')
    await proxy(req, res, path, current)
  })

  const assetsDir = join(config.webDist, 'assets') + sep
  const preloads = new RoutePreloads(config.webDist)
  const stylesheet = new PageStylesheet(config.webDist)
  const index = new BuildFile(join(config.webDist, 'index.html'), (text) => text)
  // The build writes each asset brotli'd and gzipped beside it (web/vite.config.ts): sent as they are, where the
  // compression middleware would squeeze each again per request (14 ms of a slow core for the app's entry alone).
  app.use(
    expressStaticGzip(config.webDist, {
      enableBrotli: true,
      orderPreference: ['br', 'gz'],
      index: false,
      serveStatic: {
        index: false,
        redirect: false,
        dotfiles: 'ignore',
        cacheControl: false,
        setHeaders(res, filePath) {
          res.setHeader('cache-control', filePath.startsWith(assetsDir) ? IMMUTABLE : 'no-cache')
        },
      },
    }),
  )

  app.use(async (req, res, next) => {
    // Browsers name text/html; curl and uptime checkers send `*/*` or no Accept at all, and get the app too.
    const wantsHtml = (req.method === 'GET' || req.method === 'HEAD') && req.accepts('html') !== false
    if (!wantsHtml || /^\/(assets|api|auth)(\/|$)/.test(req.path)) {
      next()
      return
    }
    const html = index.get()
    if (html === undefined) {
      res.status(503).type('html').setHeader('cache-control', 'no-store').send(NOT_BUILT_PAGE)
      return
    }
    // Signed in: the page carries who is signed in, so the app's first screen needs no round trip to learn it, and
    // preloads the screen's own code. Such a page is this person's alone, never stored by a cache.
    const current = await currentSession(req, res, deps)
    if (current !== undefined) {
      res.setHeader('cache-control', 'no-store')
      const view = sessionView(current.session)
      // Its stylesheet in it, so that it is painted as it arrives, under this page's nonce (page-stylesheet.ts).
      const nonce = styleNonce()
      const page = stylesheet.withStyles(signedInPage(html, view, preloads.filesFor(req.path)), nonce)
      res.setHeader('content-security-policy', `${SECURITY_HEADERS['content-security-policy']}; ${styleRuleFor(nonce)}`)
      const { session, apiKey } = current
      const query = req.originalUrl.indexOf('?')
      const search = new URLSearchParams(query === -1 ? '' : req.originalUrl.slice(query + 1))
      const viewer = {
        userId: session.userId,
        organizationId: session.organizationId,
        today: localDateIn(session.timeZone, deps.now()),
      }
      const paths = req.method === 'GET' ? firstScreenRequests(req.path, search, viewer) : []
      if (paths.length === 0) {
        res.type('html').send(page)
        return
      }
      // The page up to its screen goes at once (the browser fetches the app's code meanwhile); then the screen, drawn
      // from its first answers (read meanwhile with the person's key, page-answers.ts) where the server render can
      // (screen-render.ts), and the answers themselves, which the app starts from.
      const root = page.indexOf(EMPTY_ROOT)
      const split = root === -1 ? page.length : root + ROOT_OPENING.length
      const [head, tail] = [page.slice(0, split), page.slice(split)]
      res.type('html').write(head)
      // The compression middleware holds what is written until its buffer fills; the head is wanted now.
      res.flush()
      const answers = await readPageAnswers(paths, (path, timeoutMs) =>
        upstreamText(pool, path, apiKey, session.timeZone, deps.now(), timeoutMs, { origin: res }),
      )
      const screen = root === -1 ? undefined : await screens.render(req.originalUrl, view, answers)
      // Inert until the app has drawn it again in its place: seen at once, but nothing in it answers a click or a key
      // that the app, not yet running, would miss.
      const drawn = screen === undefined ? '' : `<div inert>${screen}</div>`
      const end = tail.lastIndexOf('</body>')
      const block = pageAnswersBlock(answers)
      res.end(end === -1 ? drawn + tail + block : drawn + tail.slice(0, end) + block + tail.slice(end))
      return
    }
    res.setHeader('cache-control', 'no-cache')
    res.sendFile(index.path, { cacheControl: false }, (error: unknown) => {
      if (error !== undefined && error !== null) next(error)
    })
  })

  app.use((_req, res) => {
    res.status(404).json({ error: 'Not found.' })
  })

  app.use((error: unknown, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) next(error)
    else sendError(error, req.originalUrl, res, logger)
  })

  // Express's per-request work (its request and response objects, eight layers of routing) cost a lead read through
  // the BFF more than the session and the proxy together: the commonest request, a signed-in browser's read, skips it.
  // Anything else, or anything the lane is unsure of (no session, a path the proxy refuses), goes through `app`, which
  // answers it as it always has.
  const assets = AssetCache.load(assetsDir)
  const handle: RequestListener = (req, res) => {
    const url = req.url ?? ''
    const cached = url.startsWith('/assets/') ? assets.find(req) : undefined
    if (cached !== undefined) {
      beginRequest(req, res, isSecure(req, trustProxy), observe)
      sendCached(req, res, cached)
      return
    }
    const path =
      (req.method === 'GET' || req.method === 'HEAD') && url.startsWith('/api/v1/') && sentByTheApp(req)
        ? checkedUpstreamPath(url)
        : undefined
    if (path === undefined) {
      app(req, res)
      return
    }
    // A session store that fails here answers through `app`, whose own look at the session reports the error.
    liveSession(req, deps).then(
      (current) => {
        if (current === undefined) {
          app(req, res)
          return
        }
        // Its head goes out with the API's answer, in one write (AnswerHead).
        const head = openRequest(req, res, isSecure(req, trustProxy), observe)
        head.add('cache-control', 'no-store')
        proxy(req, res, path, current, head).catch((error: unknown) => {
          if (res.headersSent) res.destroy()
          else {
            head.apply(res)
            sendError(error, url, res, logger)
          }
        })
      },
      () => {
        app(req, res)
      },
    )
  }

  const purge = setInterval(() => {
    Promise.all([limiter.purge(now()), store.purgeExpired(now())]).catch((error: unknown) => {
      logger.error({ err: error }, 'purging expired sessions failed')
    })
  }, PURGE_EVERY_MS)
  purge.unref()

  return {
    app,
    handle,
    logger,
    live,
    screens,
    metrics,
    startDraining() {
      draining = true
    },
    endStreams() {
      live.endStreams()
    },
    async close(options = {}) {
      clearInterval(purge)
      await live.close()
      if (options.abortUpstream === true) await pool.destroy()
      else await pool.close()
      await store.close()
    },
  }
}

/** What watches each request: the log, and the metrics when they are kept. */
interface Observers {
  logger: Logger
  metrics: BffMetrics | undefined
  /** Whether a proxy in front is trusted, and with it the request id and `traceparent` it sends. */
  trustProxy: boolean
  tracing: Tracing | undefined
}

/** `openRequest`, its head set on the response at once: for every answer but the fast lane's. */
function beginRequest(req: IncomingMessage, res: ServerResponse, secure: boolean, observe: Observers): void {
  openRequest(req, res, secure, observe).apply(res)
}

/**
 * The security headers every answer carries and the request's id (its trusted proxy's, or a new one: in the answer's
 * `X-Request-Id`, where the proxy and the log read it), as the answer's head; and its log line and timing once it is
 * answered.
 */
function openRequest(req: IncomingMessage, res: ServerResponse, secure: boolean, observe: Observers): AnswerHead {
  const sent = observe.trustProxy ? req.headers[REQUEST_ID_HEADER] : undefined
  const id = isRequestId(sent) ? sent : randomUUID()
  const head = new AnswerHead(
    id,
    secure
      ? [...SECURITY_FIELDS, 'strict-transport-security', HSTS, REQUEST_ID_HEADER, id]
      : [...SECURITY_FIELDS, REQUEST_ID_HEADER, id],
  )
  const { logger, metrics, tracing } = observe
  // Read now: Express rewrites req.url inside mounted routers.
  const url = req.url ?? ''
  const span = tracing?.server(req.method ?? 'GET', observe.trustProxy ? header(req, 'traceparent') : undefined)
  if (span !== undefined) {
    setSpan(res, span)
    res.once('close', () => {
      span.end(routePattern(url) ?? 'other', res.statusCode)
    })
  }
  const logs = logger.isLevelEnabled('info')
  if (!logs && metrics === undefined) return head
  const started = process.hrtime.bigint()
  res.once('finish', () => {
    const elapsed = process.hrtime.bigint() - started
    metrics?.request(req.method, url, res.statusCode, Number(elapsed) / 1e9)
    if (!logs) return
    // The path only: query strings may carry search text, and headers are never logged.
    logger.info(
      {
        reqId: id,
        ...(span === undefined ? {} : { trace_id: span.traceId, span_id: span.spanId }),
        method: req.method,
        path: url.split('?')[0],
        status: res.statusCode,
        ms: Number(elapsed / 1000n) / 1000,
      },
      'request',
    )
  })
  return head
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name]
  return typeof value === 'string' ? value : undefined
}

/** Whether the request carries `X-Requested-With: leadline`, which only the app's own scripts send (a CSRF guard). */
function sentByTheApp(req: IncomingMessage): boolean {
  return req.headers['x-requested-with'] === 'leadline'
}

/**
 * Express's `req.ip` for a request it may not have seen: the socket's address, or behind a trusted proxy the first
 * X-Forwarded-For entry (the client as the proxy saw it), as the sign-in limit counts it.
 */
function clientAddressOf(
  req: IncomingMessage,
  trustProxy: (address: string | undefined, hop: number) => boolean,
): string {
  const own = req.socket.remoteAddress ?? 'unknown'
  if (!trustProxy(own, 0)) return own
  const header = req.headers['x-forwarded-for']
  const first = (typeof header === 'string' ? header.split(',')[0] : undefined)?.trim()
  return first === undefined || first === '' ? own : first
}

/** Express's `req.secure` for a request it has not seen: TLS here, or a trusted proxy's X-Forwarded-Proto. */
function isSecure(req: IncomingMessage, trustProxy: (address: string | undefined, hop: number) => boolean): boolean {
  const own = 'encrypted' in req.socket && req.socket.encrypted === true ? 'https' : 'http'
  if (!trustProxy(req.socket.remoteAddress, 0)) return own === 'https'
  const header = req.headers['x-forwarded-proto']
  const first = (typeof header === 'string' && header !== '' ? header : own).split(',')[0] ?? ''
  return first.trim() === 'https'
}

function checkedUpstreamPath(url: string): string | undefined {
  try {
    return upstreamPath(url)
  } catch {
    return undefined
  }
}

/** The answer to a request that failed: the error's own status and message where it has one, else a logged 500. */
function sendError(error: unknown, url: string, res: ServerResponse, logger: Logger): void {
  const answer = errorAnswer(error)
  if (answer === undefined)
    logger.error(
      { reqId: requestIdOf(res), trace_id: spanOf(res)?.traceId, err: error, path: url.split('?')[0] },
      'unhandled error',
    )
  const { status, body } = answer ?? { status: 500, body: { error: 'Internal server error' } }
  // An unread oversized body would otherwise be parsed as the next request on this connection.
  if (status === 413) res.setHeader('connection', 'close')
  const text = JSON.stringify(body)
  res.statusCode = status
  res.setHeader('content-type', 'application/json; charset=utf-8')
  res.setHeader('content-length', Buffer.byteLength(text))
  res.end(text)
}

function errorAnswer(error: unknown): { status: number; body: object } | undefined {
  if (error instanceof FieldError)
    return { status: 400, body: { errors: [], 'field-errors': { [error.field]: error.message } } }
  if (error instanceof HttpError) return { status: error.status, body: { ...error.fields, error: error.message } }
  const parserError = bodyParserError(error)
  return parserError === undefined ? undefined : { status: parserError.status, body: { error: parserError.message } }
}

/**
 * Whether a browser sent this request from another site: `Sec-Fetch-Site: cross-site`, or an Origin that is neither
 * this server's (the request's protocol and Host) nor the configured public origin. Clients that send neither
 * header (curl, scripts) are not browsers acting for a foreign page, and pass.
 */
export function isCrossSite(req: Request, publicOrigin: string | undefined): boolean {
  if (req.headers['sec-fetch-site'] === 'cross-site') return true
  const origin = req.headers.origin
  if (origin === undefined) return false
  const own = `${req.protocol}://${req.host}`.toLowerCase()
  const sent = origin.toLowerCase()
  return sent !== own && sent !== publicOrigin?.toLowerCase()
}

const DOWNLOAD_PATH =
  /^\/api\/v1\/(?:email_attachment\/[^/?]+|export\/[^/?]+\/download|import\/[^/?]+\/failed_rows|audit_log\/csv)\/(?:\?|$)/

/**
 * Whether a request is the browser following a download link, which cannot send X-Requested-With: an email
 * attachment's (`GET /api/v1/email_attachment/{id}/`), an export's file (`GET /api/v1/export/{id}/download/`), an
 * import's failed rows (`GET /api/v1/import/{id}/failed_rows/`) or the audit log's CSV (`GET /api/v1/audit_log/csv/`),
 * from this app's own pages, or typed in. It needs none: the session cookie is SameSite=Strict, a GET changes nothing,
 * and the answer is always a download (docs/decisions/0032-incoming-mail.md, 0052-exports.md); a Sec-Fetch-Site
 * other than same-origin or none (another site's, or a sibling subdomain's page) still needs it.
 */
export function isDownload(req: Request): boolean {
  const site = req.headers['sec-fetch-site']
  return (
    (req.method === 'GET' || req.method === 'HEAD') &&
    DOWNLOAD_PATH.test(req.originalUrl) &&
    (site === undefined || site === 'same-origin' || site === 'none')
  )
}

/** Whether the API answers a HEAD within `timeoutMs`. */
async function upstreamState(pool: Pool, timeoutMs = 2000): Promise<'ok' | 'error' | 'unreachable'> {
  try {
    const answer = await pool.request({
      path: '/api/v1/openapi.json',
      method: 'HEAD',
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    })
    await answer.body.dump()
    return answer.statusCode < 500 ? 'ok' : 'error'
  } catch {
    return 'unreachable'
  }
}

function bodyParserError(error: unknown): { status: number; message: string } | undefined {
  if (typeof error !== 'object' || error === null || !('type' in error)) return undefined
  if (error.type === 'entity.parse.failed') return { status: 400, message: 'The request body is not valid JSON.' }
  if (error.type === 'entity.too.large') return { status: 413, message: 'The request body is too large.' }
  if (error.type === 'encoding.unsupported' || error.type === 'charset.unsupported')
    return { status: 415, message: 'Send the body as UTF-8 JSON.' }
  return undefined
}
