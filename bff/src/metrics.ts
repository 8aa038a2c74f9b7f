import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import { DURATION_BUCKETS as SECONDS } from '@leadline/shared/metrics-server'

// What an operator's Prometheus scrapes from each BFF process, on `LEADLINE_BFF_METRICS_PORT` only (decision 0072):
// made only when that port is set, so that a BFF without it times nothing and keeps no registry.

/** Route labels kept per process; a path past them counts as `other`, so that no client can grow the label set. */
export const MAX_ROUTES = 200
const MAX_ROUTE_LENGTH = 120
const MAX_WORD = 24

export interface BffMetrics {
  readonly registry: Registry
  /** A request the BFF answered: its method, path (reduced by `route`) and status. */
  request(method: string | undefined, url: string, status: number, seconds: number): void
  /** A proxied call to the API: its status, or `error` when the API did not answer. */
  upstream(method: string | undefined, url: string, status: number | 'error', seconds: number): void
  signIn(result: 'succeeded' | 'failed'): void
  /** A statement of the session store (SQLite or Postgres): the store's method, and whether it answered. */
  sessionStore(operation: string, result: 'ok' | 'error', seconds: number): void
  /** A path reduced to a bounded label (`routePattern`), or `other` once MAX_ROUTES are known. */
  route(url: string): string
}

/** What the live-update streams count now, read at each scrape. */
export interface StreamCounts {
  readonly browsers: number
  readonly upstreams: number
}

export function createBffMetrics(streams: StreamCounts): BffMetrics {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry, prefix: 'leadline_bff_' })
  const requests = new Histogram({
    name: 'leadline_bff_http_request_duration_seconds',
    help: 'BFF requests by method, route pattern (ids replaced; `other` past 200 patterns) and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: SECONDS,
    registers: [registry],
  })
  const upstream = new Histogram({
    name: 'leadline_bff_upstream_duration_seconds',
    help: 'Proxied calls to the API by method, route pattern and its status code (`error`: no answer)',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: SECONDS,
    registers: [registry],
  })
  const sessionStore = new Histogram({
    name: 'leadline_bff_session_store_duration_seconds',
    help: 'Statements of the session store (sessions.db or LEADLINE_BFF_SESSION_URL) by operation and result',
    labelNames: ['operation', 'result'] as const,
    buckets: SECONDS,
    registers: [registry],
  })
  const signIns = new Counter({
    name: 'leadline_bff_sign_ins_total',
    help: 'Sign-ins by result: succeeded (a session began) or failed (a refused key, password or code)',
    labelNames: ['result'] as const,
    registers: [registry],
  })
  new Gauge({
    name: 'leadline_bff_event_streams',
    help: 'Browsers connected to /events on this process',
    registers: [registry],
    collect() {
      this.set(streams.browsers)
    },
  })
  new Gauge({
    name: 'leadline_bff_upstream_event_streams',
    help: 'Event streams this process holds open to the API (one per organization with a browser connected)',
    registers: [registry],
    collect() {
      this.set(streams.upstreams)
    },
  })
  const known = new Set<string>()
  const route = (url: string) => {
    const pattern = routePattern(url)
    if (pattern === undefined) return 'other'
    if (known.has(pattern)) return pattern
    if (known.size >= MAX_ROUTES) return 'other'
    known.add(pattern)
    return pattern
  }
  return {
    registry,
    route,
    request(method, url, status, seconds) {
      requests.observe({ method: methodLabel(method), route: route(url), status_code: String(status) }, seconds)
    },
    upstream(method, url, status, seconds) {
      upstream.observe({ method: methodLabel(method), route: route(url), status_code: String(status) }, seconds)
    },
    signIn(result) {
      signIns.inc({ result })
    },
    sessionStore(operation, result, seconds) {
      sessionStore.observe({ operation, result }, seconds)
    },
  }
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])

function methodLabel(method: string | undefined): string {
  return method !== undefined && METHODS.has(method) ? method : 'other'
}

/**
 * A path without its query, each segment that is not a short lowercase word (a letter, then letters, digits or `_`,
 * at most 24) replaced by `:id`: `/api/v1/lead/lead_7Hq…/` → `/api/v1/lead/:id/`. Undefined when too long.
 */
export function routePattern(url: string): string | undefined {
  const queryAt = url.indexOf('?')
  const path = queryAt === -1 ? url : url.slice(0, queryAt)
  let pattern = ''
  let start = 1
  while (start <= path.length) {
    let end = path.indexOf('/', start)
    if (end === -1) end = path.length
    pattern += '/'
    if (end > start) pattern += isWord(path, start, end) ? path.slice(start, end) : ':id'
    if (pattern.length > MAX_ROUTE_LENGTH) return undefined
    start = end + 1
  }
  return pattern === '' ? '/' : pattern
}

function isWord(text: string, start: number, end: number): boolean {
  if (end - start > MAX_WORD) return false
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i)
    const letter = c >= 97 && c <= 122
    if (!(letter || (i > start && ((c >= 48 && c <= 57) || c === 95)))) return false
  }
  return true
}
