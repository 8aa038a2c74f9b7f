import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import type { Db } from './data/database.js'
import { DURATION_BUCKETS as SECONDS } from '@leadline/shared/metrics-server'

// What an operator's Prometheus scrapes from each api process (issue 35), on a port of its own that only
// `LEADLINE_METRICS_PORT` opens (decision 0072): request durations by route and status, database query durations,
// the outbox's backlog and the age of its oldest waiting row, deliveries by result, open event streams, and
// prom-client's process metrics (RSS, event-loop lag, heap, GC). One registry a process: the counters are always
// kept (an observation costs well under a microsecond), the port is what is off by default.

export const registry = new Registry()
collectDefaultMetrics({ register: registry, prefix: 'leadline_' })

const requests = new Histogram({
  name: 'leadline_http_request_duration_seconds',
  help: 'API requests by method, route pattern (unmatched: no route) and status code',
  labelNames: ['method', 'route', 'status_code'] as const,
  buckets: SECONDS,
  registers: [registry],
})

const queries = new Histogram({
  name: 'leadline_db_query_duration_seconds',
  help: 'Database statements by kind (select, insert, update, delete, other)',
  labelNames: ['kind'] as const,
  buckets: SECONDS,
  registers: [registry],
})

const deliveries = new Counter({
  name: 'leadline_outbox_deliveries_total',
  help: 'Outbox delivery attempts by kind (webhook, sms_send, …) and result (delivered, retry, failed, lease_lost)',
  labelNames: ['kind', 'result'] as const,
  registers: [registry],
})

const streams = new Gauge({
  name: 'leadline_event_streams',
  help: 'Event streams (server-sent events) open on this process',
  registers: [registry],
})

const QUERY_KINDS = new Set(['select', 'insert', 'update', 'delete'])

/** The statement's first keyword, one of five, so that the label's values stay bounded whatever the SQL. */
export function queryKind(sqlText: string): string {
  const word = /^\s*(\w{1,10})/.exec(sqlText)?.[1]?.toLowerCase() ?? 'other'
  return QUERY_KINDS.has(word) ? word : word === 'with' ? 'select' : 'other'
}

export const metrics = {
  request(method: string, route: string | undefined, statusCode: number, seconds: number): void {
    requests.observe({ method, route: route ?? 'unmatched', status_code: String(statusCode) }, seconds)
  },
  query(sqlText: string, milliseconds: number): void {
    queries.observe({ kind: queryKind(sqlText) }, milliseconds / 1000)
  },
  delivery(kind: string, result: 'delivered' | 'retry' | 'failed' | 'lease_lost'): void {
    deliveries.inc({ kind, result })
  },
  streamOpened(): void {
    streams.inc()
  },
  streamClosed(): void {
    streams.dec()
  },
}

/** The outbox gauges, read from the database at each scrape (the backlog is every process's, not this one's). */
export function watchOutbox(db: Db, now: () => Date): void {
  registry.removeSingleMetric('leadline_outbox_backlog')
  registry.removeSingleMetric('leadline_outbox_oldest_pending_age_seconds')
  const pending = () =>
    db
      .selectFrom('outbox')
      .select((eb) => [eb.fn.countAll<number | string>().as('n'), eb.fn.min('date_created').as('oldest')])
      .where('status', '=', 'pending')
      .executeTakeFirst()
  let last: Promise<Awaited<ReturnType<typeof pending>>> | undefined
  // Both gauges are set from one read per scrape.
  const read = () => {
    last ??= pending().finally(() => {
      setImmediate(() => (last = undefined))
    })
    return last
  }
  new Gauge({
    name: 'leadline_outbox_backlog',
    help: 'Outbox deliveries waiting (pending), of every process',
    registers: [registry],
    async collect() {
      this.set(Number((await read())?.n ?? 0))
    },
  })
  new Gauge({
    name: 'leadline_outbox_oldest_pending_age_seconds',
    help: 'Age of the oldest outbox delivery still waiting; 0 when none waits',
    registers: [registry],
    async collect() {
      const oldest = (await read())?.oldest
      this.set(typeof oldest === 'string' ? Math.max(0, (now().getTime() - Date.parse(oldest)) / 1000) : 0)
    },
  })
}
