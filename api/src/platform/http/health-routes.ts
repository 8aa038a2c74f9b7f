import type { FastifyPluginAsync, FastifyReply } from 'fastify'
import { sql } from 'kysely'
import type { Db } from '../data/database.js'
import { migrationState } from '../data/migrate.js'
import { withDeadline } from '@leadline/shared/deadline'

// `/healthz` and `/readyz` (issue 35), outside `/api/v1` and open to anyone, as a load balancer or an orchestrator
// asks them: no key, no rate limit, no detail beyond the checks (never a database's error text).

/**
 * Whether the process is draining (set on the first SIGTERM, main.ts, after which `/readyz` answers 503) or still
 * building its organizations' lead indexes after a start (`/readyz` answers 503 until they are built).
 */
export interface Readiness {
  draining: boolean
  warming?: boolean
}

/** How long the database may take to answer `select 1` before `/readyz` calls it unreachable. */
export const DATABASE_CHECK_MS = 2_000

export interface ReadinessReport {
  status: 'ready' | 'not ready'
  database: 'ok' | 'unreachable'
  migrations: 'current' | 'pending' | 'newer' | 'unknown'
  draining: boolean
  warming: boolean
}

/**
 * The checks: the database answers, its migrations are this build's, and the process is neither draining nor still
 * building its lead indexes.
 */
export async function readinessReport(db: Db, readiness: Readiness, checkMs = DATABASE_CHECK_MS) {
  const answered = await withDeadline(
    sql`select 1`.execute(db).then(
      () => true,
      () => false,
    ),
    checkMs,
    'timeout' as const,
  )
  const reachable = answered === true
  const state = reachable
    ? await withDeadline(
        migrationState(db).catch(() => undefined),
        checkMs,
        'timeout' as const,
      )
    : undefined
  const migrations =
    state === undefined || state === 'timeout'
      ? 'unknown'
      : state.unknown.length > 0
        ? 'newer'
        : state.pending.length > 0
          ? 'pending'
          : 'current'
  const report: ReadinessReport = {
    status:
      reachable && migrations === 'current' && !readiness.draining && readiness.warming !== true
        ? 'ready'
        : 'not ready',
    database: reachable ? 'ok' : 'unreachable',
    migrations,
    draining: readiness.draining,
    warming: readiness.warming === true,
  }
  return report
}

function noStore(reply: FastifyReply): FastifyReply {
  return reply.header('cache-control', 'no-store')
}

export const healthRoutes: FastifyPluginAsync<{ db: Db; readiness: Readiness }> = async (app, { db, readiness }) => {
  const config = { public: true, countsOwnRequests: true }
  app.get('/healthz', { config, schema: { hide: true } }, async (_request, reply) => {
    noStore(reply)
    return { status: 'ok' }
  })
  app.get('/readyz', { config, schema: { hide: true } }, async (_request, reply) => {
    const report = await readinessReport(db, readiness)
    return noStore(reply)
      .code(report.status === 'ready' ? 200 : 503)
      .send(report)
  })
}
