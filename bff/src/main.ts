import { rmSync } from 'node:fs'
import { createServer } from 'node:http'
import { join } from 'node:path'
import { constants } from 'node:os'
import type { Logger } from 'pino'
import { closeMetrics, serveMetrics } from '@leadline/shared/metrics-server'
import { loadTracing, tracingWanted } from '@leadline/shared/tracing-switch'
import { createBffApp, type BffApp } from './app.js'
import { demoSeedFileInUse, loadBffConfig } from './env.js'
import { SESSION_DB_FILE, SessionStore } from './session.js'
import { gracefulStop } from './shutdown.js'

const SHUTDOWN_GRACE_MS = 10_000

async function main(): Promise<void> {
  const config = loadBffConfig(process.env)
  // Sessions of the JSON-file store, whose keys the secret alone could unseal: they cannot be carried over, and the
  // file is removed so that a copy of the data folder taken later holds no key.
  rmSync(join(config.dataDir, 'sessions.json'), { force: true })
  const store = await SessionStore.open({
    file: join(config.dataDir, SESSION_DB_FILE),
    postgresUrl: config.sessionUrl,
    secret: config.secret,
    idleMs: config.sessionIdleMs,
    maxAgeMs: config.sessionMaxAgeMs,
  })
  // Nothing of OpenTelemetry is loaded unless its variables ask for traces.
  const tracing = tracingWanted(process.env) ? await loadTracing('leadline-bff') : undefined
  const bff = createBffApp({ config, store, tracing })
  const server = createServer(bff.handle)
  const stopServing = gracefulStop(server, bff, SHUTDOWN_GRACE_MS)
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(config.port, config.host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const address = server.address()
  const port = typeof address === 'object' && address !== null ? address.port : config.port
  const host = config.host.includes(':') ? `[${config.host}]` : config.host
  bff.logger.info(
    {
      upstream: config.apiUrl,
      web_dist: config.webDist,
      demo_sign_in: demoSeedFileInUse(config) !== undefined,
      insecure_cookies: config.insecureCookies,
      trust_proxy: config.trustProxy,
      sessions: config.sessionUrl === undefined ? SESSION_DB_FILE : 'postgres',
      // Without the secret the API streams events only to admins' keys: reps' browsers get live updates only while
      // an admin of their organization is connected too.
      live_updates_for: config.streamSecret === undefined ? 'admins' : 'everyone',
    },
    `listening on http://${host}:${port}`,
  )
  // On a port of its own, opened only by LEADLINE_BFF_METRICS_PORT (decision 0072).
  const metrics =
    bff.metrics === undefined || config.metrics === null
      ? undefined
      : await serveMetrics(bff.metrics.registry, config.metrics)
  if (metrics !== undefined) bff.logger.info(`metrics on ${metrics.url}/metrics`)
  const stop = async () => {
    await stopServing()
    if (metrics !== undefined) await closeMetrics(metrics.server)
    // The spans of the last requests go out before the process ends.
    await tracing?.shutdown()
  }
  closeOnSignals(drainThen(stop, bff, config.drainSeconds), bff.logger)
}

/** `/readyz` turns 503 at once; `stop` follows after `seconds` (at once for 0), while requests are served as before. */
function drainThen(stop: () => Promise<void>, bff: BffApp, seconds: number): () => Promise<void> {
  return () => {
    bff.startDraining()
    if (seconds === 0) return stop()
    bff.logger.info(`not ready (/readyz answers 503); serving ${String(seconds)} s more, then closing`)
    return new Promise<void>((resolve) => setTimeout(resolve, seconds * 1000)).then(stop)
  }
}

/** The first SIGTERM or SIGINT finishes in-flight requests and exits 0; a second one exits at once. */
function closeOnSignals(stop: () => Promise<void>, logger: Logger): void {
  let stopping = false
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn(`${signal} received again; exiting without waiting`)
      process.exit(128 + constants.signals[signal])
    }
    stopping = true
    logger.info(`${signal} received; finishing in-flight requests (send it again to exit at once)`)
    stop().then(
      () => {
        logger.info('stopped')
        process.exit(0)
      },
      (error: unknown) => {
        logger.error({ err: error }, 'stopping failed')
        process.exit(1)
      },
    )
  }
  process.on('SIGTERM', onSignal)
  process.on('SIGINT', onSignal)
}

main().catch((error: unknown) => {
  console.error(`leadline bff: ${error instanceof Error ? error.message : String(error)}`)
  process.exit(1)
})
