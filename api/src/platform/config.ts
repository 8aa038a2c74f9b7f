import { isIP } from 'node:net'
import { drainSecondsFrom } from '@leadline/shared/drain-seconds'
import { streamSecretFrom } from '@leadline/shared/stream-secret'
import { metricsEndpointFrom, type MetricsEndpoint } from '@leadline/shared/metrics-server'
import { tracingWanted } from '@leadline/shared/tracing-switch'
import { DEFAULT_DATABASE_URL, DEFAULT_SQLITE_CACHE_MB } from './data/database.js'
import { secretBoxFrom, type SecretBox } from './security/secret-box.js'
import { webhookUrlProblem } from './security/outbound-url.js'

export interface Config {
  databaseUrl: string
  host: string
  port: number
  logLevel: string
  appUrl: string
  rateLimit: { points: number; windowSeconds: number }
  /**
   * `LEADLINE_TRUST_PROXY`: the addresses (comma-separated IPs, CIDRs or `loopback`, `linklocal`, `uniquelocal`) whose
   * `X-Forwarded-For` is believed for the client's address; `loopback` by default, where `npm start` runs the BFF.
   */
  trustProxy: string
  bodyLimitBytes: number
  /** How long a client may take to send a whole request, to send its headers, and to stay idle between requests. */
  timeouts: { requestSeconds: number; headersSeconds: number; keepAliveSeconds: number }
  /** How long after a request through the web app a user still counts as online. */
  presenceWindowSeconds: number
  /**
   * `LEADLINE_DRAIN_SECONDS`: after SIGTERM, how long `/readyz` answers 503 while the api still serves, before it
   * stops taking connections (a load balancer's checks see it leave first); 0 by default.
   */
  drainSeconds: number
  /** `LEADLINE_METRICS_PORT` / `_HOST`: where `GET /metrics` is served; unset port: nowhere (decision 0072). */
  metrics: MetricsEndpoint | null
  /** OpenTelemetry's standard variables ask for traces (`OTEL_EXPORTER_OTLP_ENDPOINT`; decision 0074). */
  tracing: boolean
  /** Memory for built views (leads, /me/) kept between requests. */
  viewCacheBytes: number
  /** Each SQLite connection's page cache in MB. */
  sqliteCacheMb: number
  /**
   * `LEADLINE_HEAP_GROWTH_PERCENT`: how far past the memory still in use after a full garbage collection the api's
   * JavaScript heap may grow before the next one (decision 0066); `v8` leaves it to V8 (up to 300 %).
   */
  heapGrowthPercent: number | 'v8'
  /**
   * `LEADLINE_LEAD_SEARCH`: what answers lead searches, `index` (the in-memory index where it can, decision 0061) or
   * `sql` (the database alone).
   */
  leadSearch: 'index' | 'sql'
  /**
   * `LEADLINE_LEAD_INDEX_WARMUP`: `1` (the default) builds the organizations' lead indexes when the api starts,
   * `/readyz` answering 503 until they are built; `0` leaves each to its organization's first search.
   */
  leadIndexWarmup: boolean
  /** Days a completed task other than a lead task is kept after its completion. */
  taskRetentionDays: number
  /** Days the event log keeps an event. */
  eventRetentionDays: number
  /** `LEADLINE_AUDIT_RETENTION_DAYS`: days the audit log keeps an entry (decision 0073). */
  auditRetentionDays: number
  /** The largest CSV file an import takes (`LEADLINE_IMPORT_MAX_BYTES`, 500 MiB); a 413 above it. */
  importMaxBytes: number
  /**
   * Shared with the BFF: any key of an organization presented with it may open the event stream (admins need no
   * secret). Undefined: only admins may stream.
   */
  streamSecret: string | undefined
  /** Outbound requests (webhooks) may go to loopback and private addresses: local development and tests only. */
  outboundAllowPrivate: boolean
  /** The lead webhook when the CLI has stored no setting (`LEADLINE_LEAD_WEBHOOK_URL`). */
  leadWebhookUrl: string | null
  /** Deliveries through the outbox (docs/decisions/0024-outbox-and-delivery.md). */
  outbox: OutboxConfig
  /** Where text messages are sent (docs/decisions/0026-sms-sending.md). */
  sms: SmsConfig
  /** How emails are retried (docs/decisions/0031-emails-and-sending.md). */
  email: EmailConfig
  /**
   * Seals the secrets the api stores and must use again (SMTP passwords, signature keys, inbound secrets) under
   * `LEADLINE_SECRET_KEY`; null when the server has none: then no password can be stored, and the keys the api makes
   * are stored in the clear until it starts with one (docs/decisions/0029-email-accounts.md, 0040).
   */
  secretBox: SecretBox | null
  /** The SMTP receiver for incoming mail (docs/decisions/0032-incoming-mail.md). */
  emailReceive: EmailReceiveConfig
  /** Where Leadline's own mail (invitations, password resets) goes. */
  systemMail: SystemMailConfig
}

/**
 * The system mailer: the operator's own SMTP relay, for the mail Leadline itself sends (not a user's). It may be on
 * this machine or a private network: the operator named it, so the outbound guard does not apply to it.
 */
export interface SystemMailConfig {
  /** `LEADLINE_SYSTEM_SMTP_URL`, taken apart; null when unset: links are still made, their emails fail, saying why. */
  smtp: { host: string; port: number; secure: boolean; user: string | null; password: string | null } | null
  /** `LEADLINE_SYSTEM_MAIL_FROM`, by default `Leadline <no-reply@HOST>` with the app URL's host name. */
  from: string
}

/** The SMTP receiver for incoming mail (docs/decisions/0032-incoming-mail.md). */
export interface EmailReceiveConfig {
  /** Where it listens (on `HOST`); null: no receiver. */
  port: number | null
  /** PEM files for STARTTLS; null: STARTTLS is not offered. */
  tls: { certFile: string; keyFile: string } | null
  /** The largest message accepted, announced with SIZE; also the most an email sent may carry in files. */
  maxMessageBytes: number
  /**
   * The largest file a message may carry (a message with a larger one is refused), and the largest file uploaded or
   * fetched to be sent (docs/decisions/0034-outgoing-attachments.md).
   */
  maxAttachmentBytes: number
  /** Connections open at once, from everyone; the next one is answered `421` and closed. */
  maxClients: number
  /** Connections open at once from one address (an IPv6 address's /64); the next one is answered `421`. */
  maxClientsPerAddress: number
  /** Messages one address (an IPv6 address's /64) may start per `rateWindowSeconds`; more are answered `451 4.7.1`. */
  rateMessages: number
  rateWindowSeconds: number
  /** How long checking a message's sender (SPF, DKIM, DMARC lookups) may take before it is answered `451 4.4.3`. */
  senderCheckSeconds: number
}

export interface OutboxConfig {
  /** How long a claimed delivery stays reserved to the process that claimed it; a crashed one's wait this long. */
  leaseSeconds: number
  /** The first retry's delay of a failed webhook delivery; each next one waits about twice as long. */
  webhookRetrySeconds: number
  /** The wait between the lead webhook's (at most three) attempts. */
  leadWebhookRetrySeconds: number
  /** Deliveries one process makes at once. */
  concurrency: number
}

/** Where text messages go (docs/decisions/0026-sms-sending.md). */
export interface SmsConfig {
  /** `log`: written to the process log, nothing leaves the machine; `http`: POSTed, signed, to `url`. */
  provider: 'log' | 'http'
  /** The http provider's endpoint (null with `log`). */
  url: string | null
  /** The http provider's signing key, as 64 hex characters (from `LEADLINE_SMS_PROVIDER_SECRET`'s `whsec_…`). */
  signingKey: string | null
  /** The first retry's delay of a failed send; each next one waits about twice as long. */
  retrySeconds: number
}

/** How a failed email send is retried: after `retrySeconds`, doubling (up to 10 minutes), `maxAttempts` in all. */
export interface EmailConfig {
  retrySeconds: number
  maxAttempts: number
  /**
   * SMTP servers (`host:port`, host lower-cased) emails may be sent through even where they are on this machine or a
   * private network, which the outbound guard refuses otherwise: a relay beside the api, or the demo's mail catcher.
   */
  allowedSmtpServers: ReadonlySet<string>
}

/** `LEADLINE_SMTP_ALLOW_HOSTS`: `host:port` pairs, separated by commas or spaces. */
function allowedSmtpServersFrom(env: NodeJS.ProcessEnv): ReadonlySet<string> {
  const raw = env.LEADLINE_SMTP_ALLOW_HOSTS ?? ''
  const servers = new Set<string>()
  for (const item of raw.split(/[\s,]+/).filter((part) => part !== '')) {
    const match = /^([a-z0-9.-]+|\[[0-9a-f:.]+\]):(\d{1,5})$/i.exec(item)
    const port = Number(match?.[2])
    if (match === null || port < 1 || port > 65_535)
      throw new Error(`LEADLINE_SMTP_ALLOW_HOSTS takes host:port pairs (e.g. localhost:25), got "${item}"`)
    servers.add(`${(match[1] ?? '').toLowerCase()}:${String(port)}`)
  }
  return servers
}

/** The `allowedSmtpServers` key of an account's SMTP server. */
export function smtpServerKey(host: string, port: number): string {
  const bare = host.toLowerCase()
  return `${bare.includes(':') && !bare.startsWith('[') ? `[${bare}]` : bare}:${String(port)}`
}

function positiveInt(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer, got "${raw}"`)
  return value
}

/** `LEADLINE_HEAP_GROWTH_PERCENT`: 30 unless set; `v8` for V8's own choice. */
function heapGrowthPercent(env: NodeJS.ProcessEnv): number | 'v8' {
  const raw = env.LEADLINE_HEAP_GROWTH_PERCENT
  if (raw === 'v8') return 'v8'
  const value = raw === undefined || raw === '' ? 30 : Number(raw)
  if (!Number.isInteger(value) || value <= 0 || value > 1000) {
    throw new Error(`LEADLINE_HEAP_GROWTH_PERCENT must be a whole number from 1 to 1000, or v8; got "${String(raw)}"`)
  }
  return value
}

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal'])

function trustedProxies(env: NodeJS.ProcessEnv): string {
  const raw = (env.LEADLINE_TRUST_PROXY ?? 'loopback').trim()
  const items = raw.split(',').map((item) => item.trim())
  for (const item of items) {
    const [address, bits, extra] = item.split('/')
    const known =
      PROXY_NAMES.has(item) ||
      (address !== undefined &&
        isIP(address) !== 0 &&
        extra === undefined &&
        (bits === undefined || /^\d{1,3}$/.test(bits)))
    if (!known) {
      throw new Error(
        `LEADLINE_TRUST_PROXY takes IP addresses, CIDR ranges or loopback, linklocal, uniquelocal, comma-separated; got "${item}"`,
      )
    }
  }
  return items.join(',')
}

/** `LEADLINE_OUTBOUND_ALLOW_PRIVATE`: `1` lets outbound requests reach loopback and private addresses. */
export function outboundAllowPrivateFrom(env: NodeJS.ProcessEnv): boolean {
  return flag(env, 'LEADLINE_OUTBOUND_ALLOW_PRIVATE')
}

/**
 * `LEADLINE_OUTBOUND_ALLOW_PRIVATE=1` lifts the guard, for local development and tests: as the given api config
 * says, or, without one, as this process's environment says.
 */
export function outboundPrivateAllowed(config?: Pick<Config, 'outboundAllowPrivate'>): boolean {
  return config?.outboundAllowPrivate ?? outboundAllowPrivateFrom(process.env)
}

export const DEFAULT_EVENT_RETENTION_DAYS = 30

export const DEFAULT_AUDIT_RETENTION_DAYS = 365

export const DEFAULT_TASK_RETENTION_DAYS = 90

/** A URL setting the outbound guard accepts (`webhookUrlProblem`), else an error naming the variable. */
function checkedUrl(name: string, raw: string, allowPrivate: boolean): string {
  const problem = webhookUrlProblem(raw, allowPrivate)
  if (problem !== undefined) throw new Error(`${name}: ${problem}`)
  return raw
}

/** A switch: `1` on, `0` off, unset or empty as `unset` says (off unless given). */
function flag(env: NodeJS.ProcessEnv, name: string, unset = false): boolean {
  const raw = env[name]
  if (raw === undefined || raw === '') return unset
  if (raw === '0') return false
  if (raw === '1') return true
  throw new Error(`${name} must be 1 or 0, got "${raw}"`)
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const logLevel = env.LOG_LEVEL ?? 'info'
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new Error(`LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent; got "${logLevel}"`)
  }
  const timeouts = {
    requestSeconds: positiveInt(env, 'LEADLINE_REQUEST_TIMEOUT', 60),
    headersSeconds: positiveInt(env, 'LEADLINE_HEADERS_TIMEOUT', 20),
    keepAliveSeconds: positiveInt(env, 'LEADLINE_KEEP_ALIVE_TIMEOUT', 72),
  }
  // Node refuses a server whose headers may take longer than the whole request.
  if (timeouts.headersSeconds > timeouts.requestSeconds) {
    throw new Error(
      `LEADLINE_HEADERS_TIMEOUT (${timeouts.headersSeconds}) must not exceed LEADLINE_REQUEST_TIMEOUT (${timeouts.requestSeconds})`,
    )
  }
  const appUrl = (env.LEADLINE_APP_URL ?? 'http://localhost:3000').replace(/\/+$/, '')
  return {
    databaseUrl: env.DATABASE_URL ?? DEFAULT_DATABASE_URL,
    host: env.HOST ?? '127.0.0.1',
    port: positiveInt(env, 'API_PORT', 4000),
    logLevel,
    appUrl,
    rateLimit: {
      points: positiveInt(env, 'LEADLINE_RATE_LIMIT', 2400),
      windowSeconds: positiveInt(env, 'LEADLINE_RATE_WINDOW', 30),
    },
    trustProxy: trustedProxies(env),
    bodyLimitBytes: 1024 * 1024,
    timeouts,
    presenceWindowSeconds: 300,
    drainSeconds: drainSecondsFrom(env),
    metrics: metricsEndpointFrom(env, 'LEADLINE_METRICS_PORT', 'LEADLINE_METRICS_HOST'),
    tracing: tracingWanted(env),
    viewCacheBytes: positiveInt(env, 'LEADLINE_VIEW_CACHE_MB', 64) * 1024 * 1024,
    sqliteCacheMb: positiveInt(env, 'LEADLINE_SQLITE_CACHE_MB', DEFAULT_SQLITE_CACHE_MB),
    heapGrowthPercent: heapGrowthPercent(env),
    leadSearch: leadSearchFrom(env),
    leadIndexWarmup: flag(env, 'LEADLINE_LEAD_INDEX_WARMUP', true),
    taskRetentionDays: positiveInt(env, 'LEADLINE_TASK_RETENTION_DAYS', DEFAULT_TASK_RETENTION_DAYS),
    eventRetentionDays: positiveInt(env, 'LEADLINE_EVENT_RETENTION_DAYS', DEFAULT_EVENT_RETENTION_DAYS),
    auditRetentionDays: positiveInt(env, 'LEADLINE_AUDIT_RETENTION_DAYS', DEFAULT_AUDIT_RETENTION_DAYS),
    importMaxBytes: positiveInt(env, 'LEADLINE_IMPORT_MAX_BYTES', 500 * 1024 * 1024),
    streamSecret: streamSecretFrom(env),
    outboundAllowPrivate: outboundAllowPrivateFrom(env),
    leadWebhookUrl:
      env.LEADLINE_LEAD_WEBHOOK_URL === undefined || env.LEADLINE_LEAD_WEBHOOK_URL === ''
        ? null
        : checkedUrl('LEADLINE_LEAD_WEBHOOK_URL', env.LEADLINE_LEAD_WEBHOOK_URL, outboundAllowPrivateFrom(env)),
    outbox: {
      leaseSeconds: positiveInt(env, 'LEADLINE_OUTBOX_LEASE_SECONDS', 60),
      webhookRetrySeconds: positiveInt(env, 'LEADLINE_WEBHOOK_RETRY_SECONDS', 30),
      leadWebhookRetrySeconds: positiveInt(env, 'LEADLINE_LEAD_WEBHOOK_RETRY_SECONDS', 300),
      concurrency: positiveInt(env, 'LEADLINE_OUTBOX_CONCURRENCY', 8),
    },
    sms: smsConfigFrom(env, outboundAllowPrivateFrom(env)),
    email: {
      retrySeconds: positiveInt(env, 'LEADLINE_EMAIL_RETRY_SECONDS', 30),
      maxAttempts: positiveInt(env, 'LEADLINE_EMAIL_MAX_ATTEMPTS', 6),
      allowedSmtpServers: allowedSmtpServersFrom(env),
    },
    secretBox: secretBoxFrom(env),
    emailReceive: emailReceiveConfigFrom(env),
    systemMail: systemMailConfigFrom(env, appUrl),
  }
}

function leadSearchFrom(env: NodeJS.ProcessEnv): 'index' | 'sql' {
  const value = env.LEADLINE_LEAD_SEARCH ?? 'index'
  if (value === 'index' || value === 'sql') return value
  throw new Error(`LEADLINE_LEAD_SEARCH must be index or sql, not ${JSON.stringify(value.slice(0, 40))}`)
}

/**
 * `LEADLINE_SYSTEM_SMTP_URL`: `smtp://[user:pass@]host[:port]` (port 25 by default; STARTTLS when offered) or
 * `smtps://…` (TLS from the start, port 465 by default); `LEADLINE_SYSTEM_MAIL_FROM`: `address` or `Name <address>`.
 * An error never repeats the URL, which may hold a password.
 */
function systemMailConfigFrom(env: NodeJS.ProcessEnv, appUrl: string): SystemMailConfig {
  const raw = env.LEADLINE_SYSTEM_SMTP_URL ?? ''
  let smtp: SystemMailConfig['smtp'] = null
  if (raw !== '') {
    const problem = 'LEADLINE_SYSTEM_SMTP_URL must be smtp://[user:password@]host[:port] or smtps://…'
    let url: URL
    try {
      url = new URL(raw)
    } catch {
      throw new Error(`${problem}; it is not a URL`)
    }
    const secure = url.protocol === 'smtps:'
    if (!secure && url.protocol !== 'smtp:') throw new Error(`${problem}; its scheme is ${url.protocol}`)
    if (url.hostname === '') throw new Error(`${problem}; it names no host`)
    if ((url.pathname !== '' && url.pathname !== '/') || url.search !== '' || url.hash !== '')
      throw new Error(`${problem}; it has a path, query or fragment`)
    const decode = (part: string) => {
      try {
        return decodeURIComponent(part)
      } catch {
        throw new Error(`${problem}; its user name or password is not well percent-encoded`)
      }
    }
    smtp = {
      // An IPv6 literal comes bracketed from URL; the socket wants it bare.
      host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: url.port === '' ? (secure ? 465 : 25) : Number(url.port),
      secure,
      user: url.username === '' ? null : decode(url.username),
      password: url.password === '' ? null : decode(url.password),
    }
  }
  const rawFrom = (env.LEADLINE_SYSTEM_MAIL_FROM ?? '').trim()
  if (rawFrom === '') {
    let host = 'localhost'
    try {
      host = new URL(appUrl).hostname.replace(/^\[(.*)\]$/, '$1') || host
    } catch {
      // A bad LEADLINE_APP_URL is reported where it is used; the default sender need not fail too.
    }
    return { smtp, from: `Leadline <no-reply@${host}>` }
  }
  // An address, or a display name and an address in angle brackets; never a line break (a header of its own).
  const address = /^[^<>\r\n]*<([^<>\s]+)>$/.exec(rawFrom)?.[1] ?? rawFrom
  if (/[\s<>]/.test(address) || !/^[^@]+@[^@]+$/.test(address)) {
    throw new Error(
      `LEADLINE_SYSTEM_MAIL_FROM must be an address or Name <address>, e.g. Leadline <no-reply@example.com>; got "${rawFrom}"`,
    )
  }
  return { smtp, from: rawFrom }
}

/**
 * `LEADLINE_SMTP_RECEIVE_PORT` (unset: no receiver), `LEADLINE_SMTP_TLS_CERT` and `LEADLINE_SMTP_TLS_KEY` (both or
 * neither), `LEADLINE_SMTP_MAX_MESSAGE_BYTES` (25 MiB), `LEADLINE_EMAIL_ATTACHMENT_MAX_BYTES` (10 MiB), and the
 * receiver's limits (docs/decisions/0039-receiver-limits-and-sender-checks.md): `LEADLINE_SMTP_RECEIVE_MAX_CLIENTS`
 * (100), `LEADLINE_SMTP_RECEIVE_MAX_CLIENTS_PER_ADDRESS` (10), `LEADLINE_SMTP_RECEIVE_RATE_MESSAGES` (60) per
 * `LEADLINE_SMTP_RECEIVE_RATE_WINDOW` seconds (60), `LEADLINE_SMTP_RECEIVE_SENDER_CHECK_TIMEOUT` seconds (15).
 */
function emailReceiveConfigFrom(env: NodeJS.ProcessEnv): EmailReceiveConfig {
  const rawPort = env.LEADLINE_SMTP_RECEIVE_PORT ?? ''
  const port = rawPort === '' ? null : positiveInt(env, 'LEADLINE_SMTP_RECEIVE_PORT', 0)
  if (port !== null && port > 65_535) {
    throw new Error(`LEADLINE_SMTP_RECEIVE_PORT must be a port number, got "${rawPort}"`)
  }
  const certFile = env.LEADLINE_SMTP_TLS_CERT ?? ''
  const keyFile = env.LEADLINE_SMTP_TLS_KEY ?? ''
  if ((certFile === '') !== (keyFile === '')) {
    throw new Error('LEADLINE_SMTP_TLS_CERT and LEADLINE_SMTP_TLS_KEY go together: set both or neither')
  }
  return {
    port,
    tls: certFile === '' ? null : { certFile, keyFile },
    maxMessageBytes: positiveInt(env, 'LEADLINE_SMTP_MAX_MESSAGE_BYTES', 25 * 1024 * 1024),
    maxAttachmentBytes: positiveInt(env, 'LEADLINE_EMAIL_ATTACHMENT_MAX_BYTES', 10 * 1024 * 1024),
    maxClients: positiveInt(env, 'LEADLINE_SMTP_RECEIVE_MAX_CLIENTS', 100),
    maxClientsPerAddress: positiveInt(env, 'LEADLINE_SMTP_RECEIVE_MAX_CLIENTS_PER_ADDRESS', 10),
    rateMessages: positiveInt(env, 'LEADLINE_SMTP_RECEIVE_RATE_MESSAGES', 60),
    rateWindowSeconds: positiveInt(env, 'LEADLINE_SMTP_RECEIVE_RATE_WINDOW', 60),
    senderCheckSeconds: positiveInt(env, 'LEADLINE_SMTP_RECEIVE_SENDER_CHECK_TIMEOUT', 15),
  }
}

/**
 * `LEADLINE_SMS_PROVIDER` (`log` or `http`; a URL without it means `http`), `LEADLINE_SMS_PROVIDER_URL` (a lead
 * webhook URL's rules: https, not private, unless `allowPrivate`), `LEADLINE_SMS_PROVIDER_SECRET` (`whsec_` and the
 * base64 of 24 to 64 bytes, as Standard Webhooks libraries take it) and `LEADLINE_SMS_RETRY_SECONDS`.
 */
function smsConfigFrom(env: NodeJS.ProcessEnv, allowPrivate: boolean): SmsConfig {
  const retrySeconds = positiveInt(env, 'LEADLINE_SMS_RETRY_SECONDS', 15)
  const named = env.LEADLINE_SMS_PROVIDER ?? ''
  const rawUrl = env.LEADLINE_SMS_PROVIDER_URL ?? ''
  const rawSecret = env.LEADLINE_SMS_PROVIDER_SECRET ?? ''
  if (named !== '' && named !== 'log' && named !== 'http') {
    throw new Error(`LEADLINE_SMS_PROVIDER must be log or http, got "${named}"`)
  }
  const provider = named === '' ? (rawUrl === '' ? 'log' : 'http') : named
  if (provider === 'log') {
    // Set but unused, they would make an operator believe texts go out.
    if (rawUrl !== '' || rawSecret !== '') {
      throw new Error('LEADLINE_SMS_PROVIDER_URL and LEADLINE_SMS_PROVIDER_SECRET need LEADLINE_SMS_PROVIDER=http')
    }
    return { provider, url: null, signingKey: null, retrySeconds }
  }
  if (rawUrl === '') throw new Error('LEADLINE_SMS_PROVIDER_URL is required when LEADLINE_SMS_PROVIDER is http')
  checkedUrl('LEADLINE_SMS_PROVIDER_URL', rawUrl, allowPrivate)
  if (rawSecret === '') throw new Error('LEADLINE_SMS_PROVIDER_SECRET is required when LEADLINE_SMS_PROVIDER is http')
  const encoded = rawSecret.startsWith('whsec_') ? rawSecret.slice('whsec_'.length) : ''
  const key = Buffer.from(encoded, 'base64')
  const canonical = /^[A-Za-z0-9+/]+={0,2}$/.test(encoded) && key.toString('base64') === encoded
  if (!canonical || key.length < 24 || key.length > 64) {
    throw new Error('LEADLINE_SMS_PROVIDER_SECRET must be whsec_ followed by the base64 of 24 to 64 random bytes')
  }
  return { provider, url: rawUrl, signingKey: key.toString('hex'), retrySeconds }
}
