import { mkdtemp, rm } from 'node:fs/promises'
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { gzipSync } from 'node:zlib'
import { pino } from 'pino'
import { afterEach, beforeEach } from 'vitest'
import { createBffApp, REDACTED_PATHS } from '../app.js'
import type { ScreenRenderer } from '../screen-render.js'
import type { BffConfig } from '../env.js'
import type { LiveEvents, LiveTimings } from '../live-events.js'
import { SESSION_DB_FILE, SessionStore } from '../session.js'
import { gracefulStop } from '../shutdown.js'

export const KEY = 'api_4Tq9Zx1Vb7Nm3Lk5Jh8Gf2Ds6Aa0Pw9Eo4Ri7Uy'
export const DEMO_KEY = 'api_Demo0rep0Key0Zz1Yy2Xx3Ww4Vv5Uu6Tt7Ss8Rr'
/** A key whose every request the fake API takes and never answers. */
export const HANG_KEY = 'api_Hang0Key0Zz1Yy2Xx3Ww4Vv5Uu6Tt7Ss8Rr9Qq0P'
export const SECRET = Buffer.alloc(32, 7)
/** The keys the fake API mints for a session: for KEY's owner (by key or PASSWORD), and for the demo user. */
export const SESSION_KEY = 'apikey_SessAnn0Zz1Yy2Xx3.Ww4Vv5Uu6Tt7Ss8Rr9Qq0Pp1Oo2Nn3Mm4Ll5'
export const DEMO_SESSION_KEY = 'apikey_SessRep0Zz1Yy2Xx3.Ww4Vv5Uu6Tt7Ss8Rr9Qq0Pp1Oo2Nn3Mm4Ll5'
/** Ann's password at the fake API (ann@example.com); `locked@example.com` is always over its limit. */
export const PASSWORD = 'quiet lantern orbit 7 maple'
/**
 * Two-factor at the fake API: `two-factor@example.com` (PASSWORD) signs in with TWO_FACTOR_CODE only, as Ann;
 * `held@example.com` (PASSWORD) signs in, but their organization requires two-factor they have not turned on.
 */
export const TWO_FACTOR_CODE = '246810'
/** Every form of a key that would betray it. */
export const KEY_FORMS = [KEY, DEMO_KEY, SESSION_KEY, DEMO_SESSION_KEY].flatMap((key) => [
  key,
  Buffer.from(`${key}:`).toString('base64'),
])

export interface Recorded {
  method: string
  url: string
  headers: IncomingHttpHeaders
  body: string
}

export function basic(key: string): string {
  return `Basic ${Buffer.from(`${key}:`).toString('base64')}`
}

/** Who Ann is at the fake API now: a test changes her name or role as an admin or Ann herself would. */
export const annAtTheApi: { firstName: string; role: string; timeZone: string | null } = {
  firstName: 'Ann',
  role: 'admin',
  timeZone: null,
}

function me(userId: string, first: string, last: string, email: string, role: string, timeZone: string | null = null) {
  return {
    time_zone: timeZone,
    id: userId,
    email,
    first_name: first,
    last_name: last,
    display_name: `${first} ${last}`,
    organizations: [{ id: 'orga_test', name: 'Bluth Company' }],
    memberships: [{ id: 'memb_1', organization_id: 'orga_test', user_id: userId, role }],
    sip_user: { username: 'u', password: 'p' },
  }
}

interface FakeAnswer {
  status: number
  headers: Record<string, string | string[]>
  body: string | Buffer
}

function json(status: number, body: unknown, headers: Record<string, string | string[]> = {}): FakeAnswer {
  return { status, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) }
}

function sessionKeyAnswer(key: string, twoFactorSetupRequired = false): FakeAnswer {
  return json(200, {
    api_key_id: key.slice(0, key.indexOf('.')),
    api_key: key,
    user_id: key === SESSION_KEY ? 'user_ann' : 'user_rep',
    organization_id: 'orga_test',
    date_expires: '2030-01-01T00:00:00.000000+00:00',
    two_factor_setup_required: twoFactorSetupRequired,
  })
}

function signInAnswer(body: Buffer): FakeAnswer {
  let sent: unknown
  try {
    sent = JSON.parse(body.toString('utf8'))
  } catch {
    sent = undefined
  }
  const record = typeof sent === 'object' && sent !== null ? (sent as Record<string, unknown>) : {}
  if (record.email === 'locked@example.com')
    return json(429, { error: 'Too many failed attempts; try again in 2 minute(s).' }, { 'retry-after': '120' })
  if (record.email === 'ann@example.com' && record.password === PASSWORD) return sessionKeyAnswer(SESSION_KEY)
  if (record.email === 'held@example.com' && record.password === PASSWORD) return sessionKeyAnswer(SESSION_KEY, true)
  if (record.email === 'two-factor@example.com' && record.password === PASSWORD) {
    if (record.code === TWO_FACTOR_CODE) return sessionKeyAnswer(SESSION_KEY)
    const error =
      record.code === undefined
        ? 'Enter the code from your authenticator app, or a recovery code.'
        : 'That code is not right.'
    return json(401, { error, two_factor: 'required' })
  }
  return json(401, { error: 'That email and password do not match an account.' })
}

/** The token of the one good invitation and reset link at the fake API (for ann@example.com). */
export const LINK_TOKEN = 'Link0Token0Zz1Yy2Xx3Ww4Vv5Uu6Tt7Ss8Rr9Qq0Pp'
export const INVITATION_INVALID = 'This invitation link is not valid any more. Ask your admin for a new one.'
export const RESET_INVALID = 'This reset link is not valid any more. Ask for a new one.'

function parsed(body: Buffer): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(body.toString('utf8'))
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {}
  } catch {
    return {}
  }
}

/** The public link routes: a good token, or a refusal in the api's words; a short password is refused by field. */
function linkAnswer(path: string, body: Buffer): FakeAnswer | undefined {
  const sent = parsed(body)
  const good = sent.token === LINK_TOKEN
  const short = typeof sent.password === 'string' && sent.password.length < 12
  switch (path) {
    case '/api/v1/auth/invitation/lookup/':
      return good
        ? json(200, { email: 'ann@example.com', organization_name: 'Bluth Company', existing_user: false })
        : json(400, { error: INVITATION_INVALID })
    case '/api/v1/auth/invitation/accept/':
      if (!good) return json(400, { error: INVITATION_INVALID })
      if (short) return json(400, { errors: [], 'field-errors': { password: 'Use at least 12 characters.' } })
      return sessionKeyAnswer(SESSION_KEY)
    case '/api/v1/auth/password_reset/':
      return sent.email === 'locked@example.com'
        ? json(429, { error: 'Too many failed attempts; try again in 2 minute(s).' }, { 'retry-after': '120' })
        : json(200, {})
    case '/api/v1/auth/password_reset/complete/':
      if (!good) return json(400, { error: RESET_INVALID })
      if (short) return json(400, { errors: [], 'field-errors': { password: 'Use at least 12 characters.' } })
      return json(200, {})
    default:
      return undefined
  }
}

/** The state the fake API's single sign-on begins with, at a provider for `@sso.example` addresses. */
export const SSO_STATE = 'fakeState0Zz1Yy2Xx3Ww4Vv5Uu6Tt7Ss8Rr9Qq0Pp1'
export const SSO_AUTHORIZATION_URL = `https://idp.example/authorize?client_id=leadline&state=${SSO_STATE}`

function ssoAnswer(path: string, url: string, body: Buffer): FakeAnswer | undefined {
  if (path === '/api/v1/auth/sso/available/') {
    const email = new URLSearchParams(url.split('?')[1] ?? '').get('email') ?? ''
    return json(200, { available: email.endsWith('@sso.example') })
  }
  let sent: Record<string, unknown> = {}
  try {
    sent = JSON.parse(body.toString('utf8')) as Record<string, unknown>
  } catch {
    // Left empty: the fake answers it as a request naming nothing.
  }
  if (path === '/api/v1/auth/sso/start/') {
    if (typeof sent.email === 'string' && sent.email.endsWith('@sso.example'))
      return json(200, { authorization_url: SSO_AUTHORIZATION_URL })
    if (sent.invitation === 'good-invitation') return json(200, { authorization_url: SSO_AUTHORIZATION_URL })
    if (sent.invitation !== undefined) return json(400, { error: 'This invitation link is not valid any more.' })
    return json(400, { errors: [], 'field-errors': { email: 'Single sign-on is not set up for example.com.' } })
  }
  if (path === '/api/v1/auth/sso/finish/') {
    const code = typeof sent.callback_url === 'string' ? new URL(sent.callback_url).searchParams.get('code') : null
    if (code === 'good') return sessionKeyAnswer(SESSION_KEY)
    return json(401, { error: 'No member of this organization uses that address; ask an admin for an invitation.' })
  }
  return undefined
}

function fakeAnswer(
  method: string,
  url: string,
  auth: string | undefined,
  body: Buffer,
  requestId?: string,
): FakeAnswer {
  const path = url.split('?')[0] ?? ''
  if (path === '/api/v1/openapi.json') return json(200, {})
  const sso = path.startsWith('/api/v1/auth/sso/') ? ssoAnswer(path, url, body) : undefined
  if (sso !== undefined) return sso
  if (path === '/api/v1/auth/sign_in/' && method === 'POST') return signInAnswer(body)
  const link = method === 'POST' ? linkAnswer(path, body) : undefined
  if (link !== undefined) return link
  const ann = auth === basic(KEY) || auth === basic(SESSION_KEY)
  const rep = auth === basic(DEMO_KEY) || auth === basic(DEMO_SESSION_KEY)
  if (!ann && !rep)
    return json(401, { error: 'Missing or invalid API key.' }, { 'www-authenticate': 'Basic realm="api"' })
  if (path === '/api/v1/auth/session/' && method === 'POST') {
    // As the api: a session's own key makes no other session.
    if (auth === basic(SESSION_KEY) || auth === basic(DEMO_SESSION_KEY))
      return json(403, {
        error: 'A session’s key cannot start another session; sign in with an API key or a password.',
      })
    return sessionKeyAnswer(ann ? SESSION_KEY : DEMO_SESSION_KEY)
  }
  if (path.startsWith('/api/v1/auth/session/') && method === 'DELETE') return json(200, {})
  switch (path) {
    case '/api/v1/me/':
      return json(
        200,
        ann
          ? me('user_ann', annAtTheApi.firstName, 'Veal', 'ann@example.com', annAtTheApi.role, annAtTheApi.timeZone)
          : me('user_rep', 'Rita', 'Rep', 'rep@demo.example', 'user'),
      )
    case '/api/v1/lead/':
      return json(
        200,
        { method, url, body: body.toString('utf8') },
        {
          'set-cookie': ['upstream_session=abc; Path=/', 'other=1'],
          'x-rate-limit-limit': '2400',
          connection: 'keep-alive, x-secret-hop',
          'x-secret-hop': 'hop',
          'www-authenticate': 'Basic realm="api"',
          'keep-alive': 'timeout=72',
          'proxy-authenticate': 'Basic realm="proxy"',
          server: 'leadline-api/0.1',
          'x-powered-by': 'Fastify',
          'content-security-policy': 'default-src *',
          'strict-transport-security': 'max-age=1',
        },
      )
    case FIELDS_PATH:
      // Fields the BFF's own head names too (the request id it sent, a cache rule), a Vary, a repeated field; with a
      // length (sent on whole), or without (streamed) for `?stream`.
      return json(
        200,
        { ok: true },
        {
          'x-request-id': requestId ?? 'none',
          'cache-control': 'private, max-age=5',
          vary: 'Origin',
          'x-repeated': ['one', 'two'],
          ...(url.endsWith('?stream') ? {} : { 'content-length': String(JSON.stringify({ ok: true }).length) }),
        },
      )
    case '/api/v1/missing/':
      return json(404, { error: 'Lead not found.' })
    case '/api/v1/invalid/':
      return json(400, { errors: [], 'field-errors': { name: 'This field is required.' } })
    case '/api/v1/boom-json/':
      return json(500, { error: 'Internal server error', request_id: 'req_1' })
    case '/api/v1/boom-html/':
      return {
        status: 500,
        headers: { 'content-type': 'text/html' },
        body: '<html><pre>TypeError: x is undefined\n    at Object.<anonymous> (/srv/api/app.js:1:1)</pre></html>',
      }
    case EXPORT_DOWNLOAD: {
      // As the api serves an export's file: stored gzip, sent with Content-Encoding whatever the client accepts.
      const file = gzipSync(EXPORT_CSV)
      return {
        status: 200,
        headers: {
          'content-type': 'text/csv; charset=utf-8',
          'content-encoding': 'gzip',
          'content-length': String(file.length),
          'content-disposition': 'attachment; filename="leads-leads-expo_1.csv"',
        },
        body: file,
      }
    }
    case '/api/v1/revoked/':
      return json(401, { error: 'API key revoked.' }, { 'www-authenticate': 'Basic realm="api"' })
    default:
      return json(200, { ok: true, url })
  }
}

/** A read whose answer names fields the BFF sets too. */
export const FIELDS_PATH = '/api/v1/fields/'

/** An export's download link at the fake API, and the CSV its gzip file holds. */
export const EXPORT_DOWNLOAD = '/api/v1/export/expo_1/download/'
export const EXPORT_CSV = `display_name,status_label\r\n${'Bluth Company,Potential\r\n'.repeat(2000)}`

/** How long the fake API takes over `/api/v1/slow/…`. */
export const SLOW_MS = 400

/** A stand-in for the API on port 0 that records every request it gets. */
export async function startFakeUpstream() {
  const requests: Recorded[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const url = req.url ?? ''
      requests.push({
        method: req.method ?? '',
        url,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      })
      // An API that has stopped answering: the request is taken and never answered.
      if (url.startsWith('/api/v1/hang/') || req.headers.authorization === basic(HANG_KEY)) return
      const sentId = req.headers['x-request-id']
      const answer = fakeAnswer(
        req.method ?? '',
        url,
        req.headers.authorization,
        Buffer.concat(chunks),
        typeof sentId === 'string' ? sentId : undefined,
      )
      setTimeout(
        () => {
          res.writeHead(answer.status, answer.headers)
          res.end(answer.body)
        },
        url.startsWith('/api/v1/slow/') ? SLOW_MS : 0,
      )
    })
  })
  await listen(server)
  return {
    url: `http://127.0.0.1:${port(server)}`,
    requests,
    close: () => closeServer(server),
  }
}

export function listen(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', resolve)
  })
}

export function port(server: Server): number {
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('the server is not listening on TCP')
  return address.port
}

export function closeServer(server: Server): Promise<void> {
  server.closeAllConnections()
  return new Promise((resolve) => {
    server.close(() => {
      resolve()
    })
  })
}

/** A TCP port nothing listens on. */
export async function deadPort(): Promise<number> {
  const server = createServer()
  await listen(server)
  const free = port(server)
  await closeServer(server)
  return free
}

export async function tempDir(): Promise<{ path: string; remove: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), 'leadline-bff-'))
  return { path, remove: () => rm(path, { recursive: true, force: true }) }
}

export function testConfig(overrides: Partial<BffConfig> & { apiUrl: string; dataDir: string }): BffConfig {
  return {
    port: 0,
    host: '127.0.0.1',
    secret: SECRET,
    sessionUrl: undefined,
    insecureCookies: false,
    trustProxy: false,
    publicOrigin: undefined,
    sessionIdleMs: 60 * 60_000,
    sessionMaxAgeMs: 30 * 24 * 60 * 60_000,
    signInAttempts: 10,
    signInWindowMs: 15 * 60_000,
    demoSeedFile: undefined,
    demoSignIn: 'loopback',
    apiTimeoutMs: 30_000,
    drainSeconds: 0,
    attachmentMaxBytes: 10 * 1024 * 1024,
    importMaxBytes: 500 * 1024 * 1024,
    webDist: join(overrides.dataDir, 'no-web-dist'),
    webServerRender: undefined,
    logLevel: 'info',
    streamSecret: undefined,
    metrics: null,
    ...overrides,
  }
}

export interface Clock {
  now: Date
}

export interface Response {
  status: number
  headers: Headers
  text: string
  json: unknown
  setCookies: string[]
}

export interface StartedBff {
  url: string
  /** Stops the BFF as SIGTERM does (the grace given to startBff, 0 by default); `close` is the same. */
  stop(): Promise<void>
  clock: Clock
  logs: string[]
  store: SessionStore
  live: LiveEvents
  /** The web app's server render, loading as the BFF starts. */
  screens: ScreenRenderer
  /** `/readyz` answers 503 from now on, as after the first SIGTERM. */
  startDraining(): void
  /** fetch with `X-Requested-With: leadline` unless headers override it; every answer is checked for the key. */
  call(path: string, init?: RequestInit & { cookie?: string }): Promise<Response>
  close(): Promise<void>
}

export async function startBff(
  config: BffConfig,
  clock: Clock = { now: new Date() },
  { graceMs = 0, liveTimings }: { graceMs?: number; liveTimings?: Partial<LiveTimings> } = {},
): Promise<StartedBff> {
  const store = await SessionStore.open({
    file: join(config.dataDir, SESSION_DB_FILE),
    postgresUrl: config.sessionUrl,
    secret: config.secret,
    idleMs: config.sessionIdleMs,
    maxAgeMs: config.sessionMaxAgeMs,
  })
  const logs: string[] = []
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(chunk.toString('utf8'))
      done()
    },
  })
  const logger = pino({ level: 'info', redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, sink)
  const bff = createBffApp({
    config,
    store,
    fetchClock: () => clock.now,
    logger,
    ...(liveTimings === undefined ? {} : { liveTimings }),
  })
  const server = createServer(bff.handle)
  const stop = gracefulStop(server, bff, graceMs)
  await listen(server)
  const url = `http://127.0.0.1:${port(server)}`
  return {
    url,
    stop,
    clock,
    logs,
    store,
    live: bff.live,
    screens: bff.screens,
    startDraining: () => {
      bff.startDraining()
    },
    async call(path, init = {}) {
      const headers = new Headers(init.headers)
      if (!headers.has('x-requested-with')) headers.set('x-requested-with', 'leadline')
      if (init.cookie !== undefined) headers.set('cookie', init.cookie)
      const response = await fetch(url + path, { ...init, headers, redirect: 'manual' })
      const text = await response.text()
      const result: Response = {
        status: response.status,
        headers: response.headers,
        text,
        json:
          text !== '' && (response.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : undefined,
        setCookies: response.headers.getSetCookie(),
      }
      assertNoKey(result)
      return result
    },
    close: stop,
  }
}

export function assertNoKey(response: Pick<Response, 'text' | 'headers'>): void {
  const everything = [response.text, ...[...response.headers].map(([name, value]) => `${name}: ${value}`)].join('\n')
  for (const form of KEY_FORMS) {
    if (everything.includes(form)) throw new Error(`an API key reached the browser:\n${everything}`)
  }
}

/** The `name=value` pair of the session cookie in a Set-Cookie list. */
export function sessionPair(setCookies: string[]): string {
  const cookie = setCookies.find((c) => c.includes('leadline_session='))
  if (cookie === undefined) throw new Error(`no session cookie in ${JSON.stringify(setCookies)}`)
  return cookie.split(';')[0] ?? ''
}

export const NEW_YORK = 'America/New_York'

export async function signIn(bff: StartedBff, timeZone = NEW_YORK): Promise<string> {
  const response = await bff.call('/auth/session', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: KEY, time_zone: timeZone }),
  })
  if (response.status !== 200) throw new Error(`sign-in failed: ${response.status} ${response.text}`)
  return sessionPair(response.setCookies)
}

/** A request with an arbitrary request target (fetch would normalize `..` and refuses absolute-form). */
export function rawRequest(
  url: string,
  target: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<{ status: number; body: string; headers: IncomingHttpHeaders }> {
  const { hostname, port: urlPort } = new URL(url)
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: hostname, port: Number(urlPort), method, path: target, headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), headers: res.headers })
      })
    })
    req.on('error', reject)
    req.end()
  })
}

/**
 * A BFF against the fake API with a data folder of its own, started before each test of the file that calls this
 * and stopped after it: read `bff` and `upstream` inside the tests.
 */
export function bffOnFakeApi(overrides: Partial<BffConfig> = {}): {
  readonly bff: StartedBff
  readonly upstream: Awaited<ReturnType<typeof startFakeUpstream>>
} {
  let started: { bff: StartedBff; upstream: Awaited<ReturnType<typeof startFakeUpstream>> } | undefined
  let dir: Awaited<ReturnType<typeof tempDir>> | undefined
  beforeEach(async () => {
    const upstream = await startFakeUpstream()
    dir = await tempDir()
    started = { upstream, bff: await startBff(testConfig({ apiUrl: upstream.url, dataDir: dir.path, ...overrides })) }
  })
  afterEach(async () => {
    await started?.bff.close()
    await started?.upstream.close()
    await dir?.remove()
  })
  const current = () => {
    if (started === undefined) throw new Error('bffOnFakeApi: read it inside a test')
    return started
  }
  return {
    get bff() {
      return current().bff
    },
    get upstream() {
      return current().upstream
    },
  }
}
