import { streamSecretFrom } from '@leadline/shared/stream-secret'
import { DEFAULT_DATABASE_URL, DEFAULT_SQLITE_CACHE_MB } from './db/database.js'
import { DEFAULT_EVENT_RETENTION_DAYS } from './events/event-retention.js'
import { parseLeadWebhookUrl } from './outbox/lead-webhook.js'
import { DEFAULT_TASK_RETENTION_DAYS } from './tasks/task-retention.js'

export interface Config {
  databaseUrl: string
  host: string
  port: number
  logLevel: string
  appUrl: string
  rateLimit: { points: number; windowSeconds: number }
  bodyLimitBytes: number
  /** How long a client may take to send a whole request, to send its headers, and to stay idle between requests. */
  timeouts: { requestSeconds: number; headersSeconds: number; keepAliveSeconds: number }
  /** How long after a request through the web app a user still counts as online. */
  presenceWindowSeconds: number
  /** Memory for built views (leads, /me/) kept between requests. */
  viewCacheBytes: number
  /** Each SQLite connection's page cache in MB. */
  sqliteCacheMb: number
  /** Days a completed task other than a lead task is kept after its completion. */
  taskRetentionDays: number
  /** Days the event log keeps an event. */
  eventRetentionDays: number
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

function positiveInt(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer, got "${raw}"`)
  return value
}

/** `LEADLINE_OUTBOUND_ALLOW_PRIVATE`: `1` lets outbound requests reach loopback and private addresses. */
export function outboundAllowPrivateFrom(env: NodeJS.ProcessEnv): boolean {
  return flag(env, 'LEADLINE_OUTBOUND_ALLOW_PRIVATE')
}

/** A switch: `1` on, `0` or unset off. */
function flag(env: NodeJS.ProcessEnv, name: string): boolean {
  const raw = env[name]
  if (raw === undefined || raw === '' || raw === '0') return false
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
  return {
    databaseUrl: env.DATABASE_URL ?? DEFAULT_DATABASE_URL,
    host: env.HOST ?? '127.0.0.1',
    port: positiveInt(env, 'API_PORT', 4000),
    logLevel,
    appUrl: (env.LEADLINE_APP_URL ?? 'http://localhost:3000').replace(/\/+$/, ''),
    rateLimit: {
      points: positiveInt(env, 'LEADLINE_RATE_LIMIT', 2400),
      windowSeconds: positiveInt(env, 'LEADLINE_RATE_WINDOW', 30),
    },
    bodyLimitBytes: 1024 * 1024,
    timeouts,
    presenceWindowSeconds: 300,
    viewCacheBytes: positiveInt(env, 'LEADLINE_VIEW_CACHE_MB', 64) * 1024 * 1024,
    sqliteCacheMb: positiveInt(env, 'LEADLINE_SQLITE_CACHE_MB', DEFAULT_SQLITE_CACHE_MB),
    taskRetentionDays: positiveInt(env, 'LEADLINE_TASK_RETENTION_DAYS', DEFAULT_TASK_RETENTION_DAYS),
    eventRetentionDays: positiveInt(env, 'LEADLINE_EVENT_RETENTION_DAYS', DEFAULT_EVENT_RETENTION_DAYS),
    streamSecret: streamSecretFrom(env),
    outboundAllowPrivate: outboundAllowPrivateFrom(env),
    leadWebhookUrl:
      env.LEADLINE_LEAD_WEBHOOK_URL === undefined || env.LEADLINE_LEAD_WEBHOOK_URL === ''
        ? null
        : parseLeadWebhookUrl(
            env.LEADLINE_LEAD_WEBHOOK_URL,
            outboundAllowPrivateFrom(env),
            'LEADLINE_LEAD_WEBHOOK_URL',
          ),
    outbox: {
      leaseSeconds: positiveInt(env, 'LEADLINE_OUTBOX_LEASE_SECONDS', 60),
      webhookRetrySeconds: positiveInt(env, 'LEADLINE_WEBHOOK_RETRY_SECONDS', 30),
      leadWebhookRetrySeconds: positiveInt(env, 'LEADLINE_LEAD_WEBHOOK_RETRY_SECONDS', 300),
      concurrency: positiveInt(env, 'LEADLINE_OUTBOX_CONCURRENCY', 8),
    },
  }
}
