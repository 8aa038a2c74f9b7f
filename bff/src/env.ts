import { randomBytes } from 'node:crypto'
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { BlockList, isIP } from 'node:net'
import { dirname, isAbsolute, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { streamSecretFrom } from '@leadline/shared/stream-secret'
import { drainSecondsFrom } from '@leadline/shared/drain-seconds'
import { metricsEndpointFrom, type MetricsEndpoint } from '@leadline/shared/metrics-server'

/** The BFF's configuration, read once from the environment at start-up. */
export interface BffConfig {
  port: number
  host: string
  /** The API's origin, e.g. `http://127.0.0.1:4000`; the only upstream. */
  apiUrl: string
  /** 32 bytes; the salt of each session's sealing key, which is derived from the session's cookie. */
  secret: Buffer
  /** Where `bff-secret` and `sessions.db` live. */
  dataDir: string
  /**
   * `LEADLINE_BFF_SESSION_URL`: a Postgres database that holds the sessions and failed sign-ins of BFF processes on
   * several machines, instead of `sessions.db` in the data folder.
   */
  sessionUrl: string | undefined
  /** Plain-http deployments on a non-local host: no `Secure` flag, so no `__Host-` cookie name either. */
  insecureCookies: boolean
  /** Behind a reverse proxy: the client address, protocol and host come from its X-Forwarded-* headers. */
  trustProxy: boolean
  /** The origin browsers use (e.g. `https://crm.example.com`), accepted besides the request's own. */
  publicOrigin: string | undefined
  sessionIdleMs: number
  /** A session ends this long after sign-in, however active. */
  sessionMaxAgeMs: number
  /** Failed sign-ins allowed per client address within `signInWindowMs` before answering 429. */
  signInAttempts: number
  signInWindowMs: number
  /** The JSON written by `leadline seed demo --json`; demo one-click sign-in is off without it. */
  demoSeedFile: string | undefined
  /** `loopback`: demo sign-in only while listening on a loopback address; `on` / `off` override that. */
  demoSignIn: 'loopback' | 'on' | 'off'
  /** How long the API may take to start answering before the browser gets a 504. */
  apiTimeoutMs: number
  /** `LEADLINE_DRAIN_SECONDS`: after SIGTERM, how long `/readyz` answers 503 while the BFF still serves. */
  drainSeconds: number
  /** `LEADLINE_EMAIL_ATTACHMENT_MAX_BYTES`, the API's too: the largest file the browser may upload for an email. */
  attachmentMaxBytes: number
  /** `LEADLINE_IMPORT_MAX_BYTES`, the API's too: the largest CSV file the browser may upload to import. */
  importMaxBytes: number
  /** The built SPA. */
  webDist: string
  /**
   * `LEADLINE_WEB_SERVER_RENDER`: the web app's server render (`web/dist-server/server-render.js` beside the SPA by
   * default), which draws a signed-in page's first screen; `off`: none, the browser draws every screen.
   */
  webServerRender: string | undefined
  /**
   * `LEADLINE_STREAM_SECRET`, shared with the API: with it any signed-in user's key may open the organization's
   * event stream for live updates; without it only an admin's can.
   */
  streamSecret: string | undefined
  logLevel: string
  /**
   * `LEADLINE_BFF_METRICS_PORT` / `_HOST`: where `GET /metrics` is served (loopback unless the host says otherwise);
   * unset port: nowhere, and nothing is measured. The BFF's own variables: `npm start` gives api and BFF one
   * environment, where the api's `LEADLINE_METRICS_PORT` is taken.
   */
  metrics: MetricsEndpoint | null
}

const LOG_LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])

/** Throws an Error naming the variable and what is wrong with it; main.ts prints it and exits. */
export function loadBffConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): BffConfig {
  const port = Number(env.PORT ?? '3000')
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`PORT must be a TCP port, got "${env.PORT ?? ''}"`)

  let apiUrl: URL
  try {
    apiUrl = new URL(env.LEADLINE_API_URL ?? 'http://127.0.0.1:4000')
  } catch {
    throw new Error(`LEADLINE_API_URL must be an http(s) URL, got "${env.LEADLINE_API_URL ?? ''}"`)
  }
  if (apiUrl.protocol !== 'http:' && apiUrl.protocol !== 'https:')
    throw new Error('LEADLINE_API_URL must be an http(s) URL')
  if (apiUrl.pathname !== '/' || apiUrl.search !== '' || apiUrl.username !== '' || apiUrl.password !== '')
    throw new Error('LEADLINE_API_URL must be an origin only, like http://127.0.0.1:4000 (no path, query or user)')

  const dataDir = resolve(cwd, nonEmpty(env.LEADLINE_BFF_DATA_DIR) ?? 'data')
  const secretText = nonEmpty(env.LEADLINE_BFF_SECRET)
  const sessionUrl = parseSessionUrl(nonEmpty(env.LEADLINE_BFF_SESSION_URL))
  // Each session's key is sealed under this secret: every process that opens the shared sessions needs the same one,
  // which a data folder of its own would not give it.
  if (sessionUrl !== undefined && secretText === undefined)
    throw new Error(
      'LEADLINE_BFF_SESSION_URL needs LEADLINE_BFF_SECRET too: the same 64 hex digits on every BFF process that shares it',
    )
  const secret = secretText === undefined ? loadOrCreateSecret(dataDir) : parseSecret(secretText, 'LEADLINE_BFF_SECRET')

  const insecureCookies = flag(env, 'LEADLINE_BFF_INSECURE_COOKIES')
  const trustProxy = flag(env, 'LEADLINE_BFF_TRUST_PROXY')
  const publicOrigin = parseOrigin(nonEmpty(env.LEADLINE_BFF_ORIGIN))

  const idleMinutes = wholeNumber(env, 'LEADLINE_SESSION_IDLE_MINUTES', 720, 1, 60 * 24 * 365, 'minutes')
  const maxDays = wholeNumber(env, 'LEADLINE_SESSION_MAX_DAYS', 30, 1, 3650, 'days')
  const signInAttempts = wholeNumber(env, 'LEADLINE_SIGN_IN_ATTEMPTS', 10, 1, 100_000, 'attempts')
  const signInWindowMinutes = wholeNumber(env, 'LEADLINE_SIGN_IN_MINUTES', 15, 1, 24 * 60, 'minutes')

  const seedText = nonEmpty(env.LEADLINE_DEMO_SEED_FILE)
  const demoText = env.LEADLINE_DEMO_SIGN_IN ?? ''
  if (demoText !== '0' && demoText !== '1' && demoText !== '')
    throw new Error(`LEADLINE_DEMO_SIGN_IN must be 1 or 0, got "${demoText}"`)

  const timeoutSeconds = wholeNumber(env, 'LEADLINE_API_TIMEOUT_SECONDS', 30, 1, 3600, 'seconds')
  const webDistText = nonEmpty(env.LEADLINE_WEB_DIST)
  // dist/env.js → bff/dist → ../../web/dist
  const webDist =
    webDistText === undefined
      ? fileURLToPath(new URL('../../web/dist', import.meta.url))
      : isAbsolute(webDistText)
        ? webDistText
        : resolve(cwd, webDistText)
  const attachmentMaxBytes = wholeNumber(
    env,
    'LEADLINE_EMAIL_ATTACHMENT_MAX_BYTES',
    10 * 1024 * 1024,
    1,
    Number.MAX_SAFE_INTEGER,
    'bytes',
  )
  const importMaxBytes = wholeNumber(
    env,
    'LEADLINE_IMPORT_MAX_BYTES',
    500 * 1024 * 1024,
    1,
    Number.MAX_SAFE_INTEGER,
    'bytes',
  )

  const logLevel = env.LOG_LEVEL ?? 'info'
  if (!LOG_LEVELS.has(logLevel))
    throw new Error(`LOG_LEVEL must be one of ${[...LOG_LEVELS].join(', ')}, got "${logLevel}"`)

  return {
    port,
    host: nonEmpty(env.HOST) ?? '127.0.0.1',
    apiUrl: apiUrl.origin,
    secret,
    dataDir,
    sessionUrl,
    insecureCookies,
    trustProxy,
    publicOrigin,
    sessionIdleMs: idleMinutes * 60_000,
    sessionMaxAgeMs: maxDays * 24 * 60 * 60_000,
    signInAttempts,
    signInWindowMs: signInWindowMinutes * 60_000,
    demoSeedFile: seedText === undefined ? undefined : resolve(cwd, seedText),
    demoSignIn: demoText === '1' ? 'on' : demoText === '0' ? 'off' : 'loopback',
    apiTimeoutMs: timeoutSeconds * 1000,
    drainSeconds: drainSecondsFrom(env),
    attachmentMaxBytes,
    importMaxBytes,
    webDist,
    webServerRender: serverRenderFrom(env, cwd, webDist),
    logLevel,
    streamSecret: streamSecretFrom(env),
    metrics: metricsEndpointFrom(env, 'LEADLINE_BFF_METRICS_PORT', 'LEADLINE_BFF_METRICS_HOST'),
  }
}

/** A `postgres://` or `postgresql://` URL naming a database, or undefined. */
function parseSessionUrl(text: string | undefined): string | undefined {
  if (text === undefined) return undefined
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw new Error('LEADLINE_BFF_SESSION_URL must be a postgres:// URL, like postgres://bff@db.internal/leadline')
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:')
    throw new Error(
      `LEADLINE_BFF_SESSION_URL must be a postgres:// URL (sessions are in sessions.db without it), got ${url.protocol}`,
    )
  if (url.hostname === '' && !url.searchParams.has('host'))
    throw new Error('LEADLINE_BFF_SESSION_URL must name the database server, like postgres://bff@db.internal/leadline')
  return text
}

const LOOPBACK = new BlockList()
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4')
LOOPBACK.addAddress('::1', 'ipv6')

/** Whether a listen address only accepts connections from this machine (`::ffff:127.0.0.1` included). */
export function isLoopbackHost(host: string): boolean {
  if (host.toLowerCase() === 'localhost') return true
  const family = isIP(host)
  return family !== 0 && LOOPBACK.check(host, family === 4 ? 'ipv4' : 'ipv6')
}

/**
 * The seed file when one-click demo sign-in may be offered, else undefined. It signs anyone who reaches the BFF in
 * as the demo admin without a password, so it stays off on a non-loopback address unless explicitly turned on.
 */
export function demoSeedFileInUse(config: BffConfig): string | undefined {
  if (config.demoSignIn === 'off') return undefined
  if (config.demoSignIn === 'loopback' && !isLoopbackHost(config.host)) return undefined
  return config.demoSeedFile
}

function flag(env: NodeJS.ProcessEnv, name: string): boolean {
  const text = env[name] ?? ''
  if (text !== '0' && text !== '1' && text !== '') throw new Error(`${name} must be 1 or 0, got "${text}"`)
  return text === '1'
}

function wholeNumber(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  min: number,
  max: number,
  unit: string,
): number {
  const text = env[name] ?? String(fallback)
  const value = Number(text)
  if (!/^\d+$/.test(text) || value < min || value > max)
    throw new Error(`${name} must be a whole number of ${unit} (${min} to ${max}), got "${text}"`)
  return value
}

function parseOrigin(text: string | undefined): string | undefined {
  if (text === undefined) return undefined
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw new Error(`LEADLINE_BFF_ORIGIN must be an http(s) origin like https://crm.example.com, got "${text}"`)
  }
  const originOnly = url.pathname === '/' && url.search === '' && url.hash === '' && url.username === ''
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !originOnly || url.password !== '')
    throw new Error(`LEADLINE_BFF_ORIGIN must be an http(s) origin like https://crm.example.com, got "${text}"`)
  return url.origin
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim()
}

/** 64 hex characters, or base64 / base64url of exactly 32 bytes. */
export function parseSecret(text: string, source: string): Buffer {
  const trimmed = text.trim()
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, 'hex')
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed)) {
    const bytes = Buffer.from(trimmed.replace(/-/g, '+').replace(/_/g, '/'), 'base64')
    if (bytes.length === 32) return bytes
  }
  throw new Error(`${source} must be 32 random bytes as 64 hex characters or base64 (e.g. \`openssl rand -hex 32\`)`)
}

/** The secret from `<dataDir>/bff-secret`, created (mode 0600) on the first start. */
function loadOrCreateSecret(dataDir: string): Buffer {
  const file = join(dataDir, 'bff-secret')
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  // Written whole under another name, then linked into place: BFF processes starting together on a new data folder
  // agree on one secret, and none reads a half-written file.
  const temp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`
  writeFileSync(temp, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' })
  try {
    linkSync(temp, file)
  } catch (error) {
    if (!(error instanceof Error && 'code' in error && error.code === 'EEXIST')) throw error
  } finally {
    rmSync(temp, { force: true })
  }
  return parseSecret(readFileSync(file, 'utf8'), file)
}

/** The server render's module: `off` for none, a path, or the build's, beside the SPA's directory. */
function serverRenderFrom(env: NodeJS.ProcessEnv, cwd: string, webDist: string): string | undefined {
  const text = nonEmpty(env.LEADLINE_WEB_SERVER_RENDER)
  if (text === 'off') return undefined
  if (text === undefined) return join(dirname(webDist), 'dist-server', 'server-render.js')
  return isAbsolute(text) ? text : resolve(cwd, text)
}
