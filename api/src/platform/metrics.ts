import { createRequire } from 'node:module'
import type { Counter, Gauge, Histogram, Registry } from 'prom-client'
import type PromClient from 'prom-client'
import type { Db } from './data/database.js'
import { DURATION_BUCKETS as SECONDS } from '@leadline/shared/metrics-server'

// What an operator's Prometheus scrapes from each api process (issue 35), on a port of its own that only
// `LEADLINE_METRICS_PORT` opens (decision 0072): request durations by route and status, database query durations,
// the outbox's backlog and the age of its oldest waiting row, deliveries by result, open event streams, and
// prom-client's process metrics (RSS, event-loop lag, heap, GC). One registry a process, made by `startMetrics`
// when the port is set, before the api serves: without it prom-client is never loaded (with the OpenTelemetry API
// it brings, some 2 MB of heap), its event-loop and GC watchers never run, and each observation is a no-op.

const require = createRequire(import.meta.url)

interface Instruments {
  registry: Registry
  prom: typeof PromClient
  requests: Histogram<'method' | 'route' | 'status_code'>
  queries: Histogram<'kind'>
  deliveries: Counter<'kind' | 'result'>
  streams: Gauge
}

let instruments: Instruments | undefined

function makeInstruments(prom: typeof PromClient): Instruments {
  const registry = new prom.Registry()
  prom.collectDefaultMetrics({ register: registry, prefix: 'leadline_' })
  return {
    registry,
    prom,
    requests: new prom.Histogram({
      name: 'leadline_http_request_duration_seconds',
      help: 'API requests by method, route pattern (unmatched: no route) and status code',
      labelNames: ['method', 'route', 'status_code'] as const,
      buckets: SECONDS,
      registers: [registry],
    }),
    queries: new prom.Histogram({
      name: 'leadline_db_query_duration_seconds',
      help: 'Database statements by kind (select, insert, update, delete, other)',
      labelNames: ['kind'] as const,
      buckets: SECONDS,
      registers: [registry],
    }),
    deliveries: new prom.Counter({
      name: 'leadline_outbox_deliveries_total',
      help: 'Outbox delivery attempts by kind (webhook, sms_send, …) and result (delivered, retry, failed, lease_lost)',
      labelNames: ['kind', 'result'] as const,
      registers: [registry],
    }),
    streams: new prom.Gauge({
      name: 'leadline_event_streams',
      help: 'Event streams (server-sent events) open on this process',
      registers: [registry],
    }),
  }
}

function started(): Instruments {
  instruments ??= makeInstruments(require('prom-client') as typeof PromClient)
  return instruments
}

/** Starts keeping this process's metrics (once; later calls answer the same registry). */
export function startMetrics(): Registry {
  return started().registry
}

const QUERY_KINDS = new Set(['select', 'insert', 'update', 'delete'])

/** The statement's first keyword, one of five, so that the label's values stay bounded whatever the SQL. */
export function queryKind(sqlText: string): string {
  const word = /^\s*(\w{1,10})/.exec(sqlText)?.[1]?.toLowerCase() ?? 'other'
  return QUERY_KINDS.has(word) ? word : word === 'with' ? 'select' : 'other'
}

/** The observations; each does nothing until `startMetrics`. */
export const metrics = {
  request(method: string, route: string | undefined, statusCode: number, seconds: number): void {
    instruments?.requests.observe({ method, route: route ?? 'unmatched', status_code: String(statusCode) }, seconds)
  },
  query(sqlText: string, milliseconds: number): void {
    instruments?.queries.observe({ kind: queryKind(sqlText) }, milliseconds / 1000)
  },
  delivery(kind: string, result: 'delivered' | 'retry' | 'failed' | 'lease_lost'): void {
    instruments?.deliveries.inc({ kind, result })
  },
  streamOpened(): void {
    instruments?.streams.inc()
  },
  streamClosed(): void {
    instruments?.streams.dec()
  },
}

/** The outbox gauges, read from the database at each scrape (the backlog is every process's, not this one's). */
export function watchOutbox(db: Db, now: () => Date): void {
  const { registry, prom } = started()
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
  new prom.Gauge({
    name: 'leadline_outbox_backlog',
    help: 'Outbox deliveries waiting (pending), of every process',
    registers: [registry],
    async collect() {
      this.set(Number((await read())?.n ?? 0))
    },
  })
  new prom.Gauge({
    name: 'leadline_outbox_oldest_pending_age_seconds',
    help: 'Age of the oldest outbox delivery still waiting; 0 when none waits',
    registers: [registry],
    async collect() {
      const oldest = (await read())?.oldest
      this.set(typeof oldest === 'string' ? Math.max(0, (now().getTime() - Date.parse(oldest)) / 1000) : 0)
    },
  })
}
