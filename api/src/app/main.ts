import { realpathSync } from 'node:fs'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { constants } from 'node:os'
import { fileURLToPath } from 'node:url'
import type { FastifyInstance } from 'fastify'
import { pino } from 'pino'
import { buildApp, REDACTED_PATHS } from './app.js'
import { loadConfig, type Config } from '../platform/config.js'
import { isPostgresUrl, openDatabase, sqliteFile, type DatabaseHandle, type Db } from '../platform/data/database.js'
import { createWriteLockBuffer, writeLock } from '../platform/data/sqlite-write-lock.js'
import { migrateToLatest } from '../platform/data/migrate.js'
import { resealSecrets } from '../platform/security/stored-secrets.js'
import { ensureLeadSearchCurrent, SEARCH_DOCUMENT_VERSION } from '../crm/leads/lead-search-index.js'
import { leadIndexWarmingPlan, warmLeadIndexes, type WarmingPlan } from '../crm/leads/lead-index-warm.js'
import { systemClock } from '../platform/data/time.js'
import { purgeOldAuditEntries, purgeOldEvents } from '../integrations/events/event-retention.js'
import { scheduleRetention } from '../platform/data/retention.js'
import { ENDED_SESSION_DAYS, purgeEndedSessionKeys } from '../accounts/session-retention.js'
import { purgeArchivedTasks } from '../crm/tasks/task-retention.js'
import { createDispatcher } from '../integrations/outbox/outbox-dispatcher.js'
import { purgeDeliveredOutbox } from '../integrations/outbox/outbox-retention.js'
import { purgeOldReceipts, RECEIPT_RETENTION_DAYS } from '../telephony/inbound/inbound-repo.js'
import { createOutboundClient } from '../integrations/outbound/outbound-client.js'
import { SMS_SEND_KIND, smsSendHandler } from '../telephony/sms/sms-send.js'
import { smsProviderFrom } from '../telephony/sms/sms-provider.js'
import { EMAIL_SEND_KIND, emailSendHandler } from '../email/send/email-send.js'
import { verificationSendHandler } from '../email/send/email-verification-send.js'
import { EMAIL_VERIFY_KIND } from '../email/accounts/email-address-verification.js'
import { accountMailHandlers } from '../accounts/account-mail.js'
import { NO_SYSTEM_MAILER } from '../accounts/system-mail.js'
import { startEmailReceiver, type EmailReceiver } from '../email/receive/email-receiver.js'
import { purgeUnboundUploads, UPLOAD_RETENTION_HOURS } from '../email/attachments/email-attachment-repo.js'
import { createExportWorker } from '../integrations/exports/export-worker.js'
import { purgeOldExports } from '../integrations/exports/export-repo.js'
import { createImportWorker } from '../integrations/imports/import-worker.js'
import {
  createImportThreadHost,
  IMPORT_THREAD_SQLITE_CACHE_MB,
  importThreadFile,
  type ImportThreadHost,
} from '../integrations/imports/import-thread-host.js'
import { createBulkActionWorker } from '../integrations/bulk-actions/bulk-action-worker.js'
import { purgeOldBulkActions } from '../integrations/bulk-actions/bulk-action-repo.js'
import { purgeOldImports } from '../integrations/imports/import-repo.js'
import { pruneLeadTombstones, TOMBSTONE_RETENTION_DAYS } from '../crm/leads/lead-changes.js'
import type { Readiness } from '../platform/http/health-routes.js'
import { metrics, startMetrics, watchOutbox } from '../platform/metrics.js'
import { closeMetrics, serveMetrics } from '@leadline/shared/metrics-server'
import { loadTracing, type Tracing } from '@leadline/shared/tracing-switch'
import type { LogEvent } from 'kysely'
import type { Resolver } from '../platform/security/host-check.js'

export interface ServeOptions {
  config: Config
  /** Overrides `config.port`; 0 picks a free port. */
  port?: number
  /** Overrides `config.host`. */
  host?: string
  /** Where the request log goes; stderr keeps stdout free for `leadline serve --json`. */
  logTo?: 'stdout' | 'stderr'
  /** How often archived system tasks and old events are purged; an hour unless a test wants sooner. */
  retentionIntervalMs?: number
  /**
   * The compiled import thread (`import-thread.js`) imports run on; by default the one beside the compiled api, and
   * none (imports on the api's own thread) when the api runs from its TypeScript sources. Null: none.
   */
  importThreadFile?: string | null
  /** Rows a batch of the import thread (tests use small ones); IMPORT_BATCH unless given. */
  importBatchSize?: number
  /** Tests: how often the import thread's host looks for imports due, and how long an idle thread lives. */
  importThreadTiming?: { watchMs: number; idleMs: number }
  /** Tests: how host names are resolved when a URL is saved (the system's resolver otherwise). */
  resolve?: Resolver
}

export interface Server {
  app: FastifyInstance
  /** The bound URL, e.g. `http://127.0.0.1:4000`. */
  url: string
  /** The SMTP receiver, when `LEADLINE_SMTP_RECEIVE_PORT` is set. */
  emailReceiver: EmailReceiver | undefined
  /** The thread imports run on, when they run on one (docs/decisions/0053). */
  importThread: ImportThreadHost | undefined
  /** Where `GET /metrics` is served, when `LEADLINE_METRICS_PORT` is set. */
  metricsUrl: string | undefined
  /** Stops accepting connections, lets in-flight requests finish, then closes the database. */
  close(): Promise<void>
  /**
   * What SIGTERM does: `/readyz` answers 503 at once, the api serves on for `LEADLINE_DRAIN_SECONDS`, then closes as
   * `close` does.
   */
  drain(): Promise<void>
}

/**
 * Opens and migrates the database, rebuilds search documents in an older format, builds the app and listens.
 * Logs `listening on <url>` once bound, then purges archived system tasks, and again every hour.
 */
export async function serve(options: ServeOptions): Promise<Server> {
  const { config } = options
  // Before the first query and request it would count; not at all when no port serves the figures.
  if (config.metrics !== null) startMetrics()
  // Imports run on a thread of their own, with its own connection and a bounded heap (docs/decisions/0053), unless
  // there is no compiled thread to run or the database is an in-memory SQLite one (no other connection can open
  // it). On SQLite the two connections take turns to write through a lock they share (sqlite-write-lock.ts).
  const threadFile = options.importThreadFile === undefined ? importThreadFile() : options.importThreadFile
  const useThread = threadFile !== null && threadFile !== undefined && !config.databaseUrl.endsWith(':memory:')
  const writeLockBuffer = useThread && !isPostgresUrl(config.databaseUrl) ? createWriteLockBuffer() : undefined
  const database = openDatabase(config.databaseUrl, {
    sqliteCacheMb: config.sqliteCacheMb,
    ...(config.metrics === null
      ? {}
      : {
          log: (event: LogEvent) => {
            if (event.level === 'query') metrics.query(event.query.sql, event.queryDurationMillis)
          },
        }),
    ...(writeLockBuffer === undefined ? {} : { writeLock: { buffer: writeLockBuffer, party: 'api' as const } }),
  })
  // Log lines are written in the background: a slow terminal or pipe must not hold up the requests being logged.
  const logDestination = pino.destination({ dest: options.logTo === 'stderr' ? 2 : 1, sync: false })
  const flushLog = () => {
    try {
      logDestination.flushSync()
    } catch {
      // Nothing written yet, or the stream is gone: nothing to flush.
    }
  }
  const readiness: Readiness = { draining: false }
  // Nothing of OpenTelemetry is loaded unless its variables ask for traces.
  let tracing: Tracing | undefined
  let app: FastifyInstance
  let url: string
  let emailReceiver: EmailReceiver | undefined
  let metricsServer: Awaited<ReturnType<typeof serveMetrics>> | undefined
  let warming: WarmingPlan | undefined
  try {
    await migrateToLatest(database.db)
    // Secrets stored in the clear while the server had no key are sealed once it has one (decision 0040).
    const box = config.secretBox
    if (box !== null) await database.db.transaction().execute((tx) => resealSecrets(tx, null, box, true))
    tracing = config.tracing ? await loadTracing('leadline-api') : undefined
    app = await buildApp({
      database,
      config,
      readiness,
      tracing,
      ...(options.resolve === undefined ? {} : { resolve: options.resolve }),
      logger: pino({ level: config.logLevel, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, logDestination),
    })
    try {
      await rebuildStaleSearch(app, database.db)
      // Chosen before the port opens, so that `/readyz` says not ready from the first probe until they are built.
      warming =
        config.leadSearch === 'index' && config.leadIndexWarmup
          ? await leadIndexWarmingPlan(database.db, database.dialect)
          : undefined
      if (warming !== undefined && warming.organizationIds.length > 0) readiness.warming = true
      url = await app.listen({
        port: options.port ?? config.port,
        host: options.host ?? config.host,
        listenTextResolver: (address) => `listening on ${address}`,
      })
      emailReceiver = await receiveEmail(app, database.db, config, options.host ?? config.host)
      if (config.metrics !== null) {
        watchOutbox(database.db, () => systemClock.now())
        metricsServer = await serveMetrics(startMetrics(), config.metrics)
        app.log.info(`metrics on ${metricsServer.url}/metrics`)
      }
    } catch (error) {
      await app.close()
      throw error
    }
  } catch (error) {
    await database.close()
    flushLog()
    throw error
  }

  const interval = options.retentionIntervalMs === undefined ? {} : { intervalMs: options.retentionIntervalMs }
  /** A periodic purge that logs what it deleted (`purged(n)` says it), or why it failed (`what` failed). */
  const purging = (purge: () => Promise<number>, purged: (deleted: number) => string, what: string) =>
    scheduleRetention({
      purge,
      ...interval,
      onPurged: (deleted) => {
        if (deleted > 0) app.log.info(purged(deleted))
      },
      onError: (error) => {
        app.log.error({ err: error }, `purging ${what} failed`)
      },
    })
  const retentions = [
    purging(
      () => purgeEndedSessionKeys(database.db, systemClock),
      (n) => `deleted ${n} keys of sessions that ended over ${ENDED_SESSION_DAYS} days ago`,
      'ended sessions',
    ),
    purging(
      () => purgeArchivedTasks(database.db, systemClock, config.taskRetentionDays),
      (n) => `deleted ${n} tasks archived over ${config.taskRetentionDays} days ago`,
      'archived tasks',
    ),
    purging(
      () => purgeOldEvents(database.db, systemClock, config.eventRetentionDays),
      (n) => `deleted ${n} events over ${config.eventRetentionDays} days old`,
      'old events',
    ),
    purging(
      () => purgeOldAuditEntries(database.db, systemClock, config.auditRetentionDays),
      (n) => `deleted ${n} audit log entries over ${config.auditRetentionDays} days old`,
      'old audit log entries',
    ),
    purging(
      () => purgeDeliveredOutbox(database.db, systemClock, config.eventRetentionDays),
      (n) => `deleted ${n} deliveries made over ${config.eventRetentionDays} days ago`,
      'delivered outbox rows',
    ),
    purging(
      () => purgeUnboundUploads(database.db, systemClock),
      (n) => `deleted ${n} uploaded files no email took within ${UPLOAD_RETENTION_HOURS} hours`,
      'unused uploads',
    ),
    purging(
      () => purgeOldExports(database.db, systemClock, config.eventRetentionDays),
      (n) => `deleted ${n} exports made over ${config.eventRetentionDays} days ago`,
      'old exports',
    ),
    purging(
      () => purgeOldImports(database.db, systemClock, config.eventRetentionDays),
      (n) => `deleted ${n} imports made over ${config.eventRetentionDays} days ago (they can no longer be undone)`,
      'old imports',
    ),
    purging(
      () => purgeOldBulkActions(database.db, systemClock, config.eventRetentionDays),
      (n) => `deleted ${n} bulk actions made over ${config.eventRetentionDays} days ago (they can no longer be undone)`,
      'old bulk actions',
    ),
    purging(
      () => pruneLeadTombstones(database.db, database.dialect, systemClock.now(), TOMBSTONE_RETENTION_DAYS),
      (n) => `forgot ${n} deleted leads' tombstones over ${TOMBSTONE_RETENTION_DAYS} day old`,
      'lead tombstones',
    ),
    purging(
      () => purgeOldReceipts(database.db, systemClock),
      (n) => `forgot ${n} inbound webhook-ids over ${RECEIPT_RETENTION_DAYS} days old`,
      'inbound receipts',
    ),
  ]

  // Texts go through the outbox too (docs/decisions/0026): by default to the log, so nothing leaves the machine.
  const smsProvider = smsProviderFrom(config.sms, {
    log: (fields, line) => {
      app.log.info(fields, line)
    },
    client: () => createOutboundClient({ allowPrivate: config.outboundAllowPrivate }),
  })
  // Every api process delivers webhooks; on Postgres they share the work (docs/decisions/0024).
  const dispatcher = createDispatcher({
    db: database.db,
    dialect: database.dialect,
    clock: systemClock,
    config,
    onError: (error, what) => {
      app.log.error({ err: error }, `outbox: ${what} failed`)
    },
    handlers: {
      [SMS_SEND_KIND]: smsSendHandler({
        db: database.db,
        dialect: database.dialect,
        clock: systemClock,
        config,
        provider: smsProvider,
      }),
      // Emails go out through the SMTP server of their user's account (docs/decisions/0031).
      [EMAIL_SEND_KIND]: emailSendHandler({
        db: database.db,
        dialect: database.dialect,
        clock: systemClock,
        config,
      }),
      // Links that verify an address go out through the account's SMTP server too (docs/decisions/0038).
      [EMAIL_VERIFY_KIND]: verificationSendHandler({ db: database.db, clock: systemClock, config }),
      // Invitations and password resets go out through the operator's system mailer.
      ...accountMailHandlers({ db: database.db, clock: systemClock, config }),
    },
  })
  dispatcher.start()
  // The leased job workers (exports, imports, bulk actions): the same database, clock and links, their failures logged.
  const jobOptions = (jobs: string) => ({
    db: database.db,
    dialect: database.dialect,
    reader: database.reader,
    clock: systemClock,
    appUrl: config.appUrl,
    onError: (error: unknown, what: string) => {
      app.log.error({ err: error }, `${jobs}: ${what} failed`)
    },
  })
  // Every api process makes exports; on Postgres they share the work, one export per claim (docs/decisions/0052).
  const exportWorker = createExportWorker(jobOptions('exports'))
  exportWorker.start()
  // Every api process runs imports too; a job is resumed by whichever claims it (docs/decisions/0053).
  const importJobs = jobOptions('imports')
  const importThread = !useThread
    ? undefined
    : createImportThreadHost({
        db: database.db,
        clock: systemClock,
        file: threadFile,
        ...(writeLockBuffer === undefined ? {} : { writeLock: writeLock(writeLockBuffer, 'api') }),
        ...(database.sqlite === undefined
          ? {}
          : { wal: { file: sqliteFile(config.databaseUrl), apiConnection: database.sqlite } }),
        data: {
          databaseUrl: config.databaseUrl,
          sqliteCacheMb: Math.min(config.sqliteCacheMb, IMPORT_THREAD_SQLITE_CACHE_MB),
          appUrl: config.appUrl,
          leadWebhookUrl: config.leadWebhookUrl,
          writeLockBuffer,
          ...(options.importBatchSize === undefined ? {} : { batchSize: options.importBatchSize }),
        },
        ...options.importThreadTiming,
        onError: importJobs.onError,
      })
  const importWorker = importThread ?? createImportWorker({ ...importJobs, sink: app.eventSink })
  importWorker.start()
  // And bulk actions, each taken up again where it stopped by whichever claims it (docs/decisions/0057).
  const bulkActionWorker = createBulkActionWorker({ ...jobOptions('bulk actions'), sink: app.eventSink })
  bulkActionWorker.start()
  if (config.systemMail.smtp === null) {
    app.log.warn(`${NO_SYSTEM_MAILER}: invitation and password-reset emails are not sent`)
  }
  // The lead indexes built in the background while the api serves (a search meanwhile waits for its organization's
  // build, as it would have); stopped between organizations when the api closes.
  const stopWarming = new AbortController()
  const warmed = warming === undefined ? undefined : warmInBackground(app, database, warming, readiness, stopWarming)

  // The latest response on each open connection (kept per connection: a listener per request costs every request).
  const latest = new Map<Socket, ServerResponse>()
  app.server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const { socket } = request
    if (!latest.has(socket)) socket.once('close', () => latest.delete(socket))
    latest.set(socket, response)
  })

  let closing: Promise<void> | undefined
  const close = () => {
    // A keep-alive connection whose request is still running would otherwise stay open, and keep close() waiting,
    // until the client or the keep-alive timeout ends it.
    for (const response of latest.values()) if (!response.headersSent) response.setHeader('connection', 'close')
    if (closing === undefined) {
      // Graceful has a limit: a client that never reads its response must not hold the process forever.
      const deadline = setTimeout(() => {
        app.server.closeAllConnections()
      }, SHUTDOWN_GRACE_MS)
      deadline.unref()
      // A purge or a delivery under way finishes (and is recorded) before the database closes under it.
      stopWarming.abort()
      closing = Promise.all([
        ...retentions.map((r) => r.stop()),
        warmed,
        dispatcher.stop().finally(() => {
          smsProvider.close()
        }),
        exportWorker.stop(),
        importWorker.stop(),
        bulkActionWorker.stop(),
        // A handler whose client left runs on after its connection closed: the database stays open until it ends.
        app.close().then(async () => {
          if (!(await app.handlersInFlight.idle(SHUTDOWN_GRACE_MS))) {
            app.log.warn(`closing the database under ${String(app.handlersInFlight.running)} requests still running`)
          }
        }),
        emailReceiver?.close(),
        metricsServer === undefined ? undefined : closeMetrics(metricsServer.server),
      ])
        .then(() => undefined)
        .finally(async () => {
          clearTimeout(deadline)
          await database.close()
          // The spans of the last requests go out before the process ends.
          await tracing?.shutdown()
          flushLog()
        })
    }
    return closing
  }
  let draining: Promise<void> | undefined
  const drain = () => {
    if (draining === undefined) {
      readiness.draining = true
      const seconds = config.drainSeconds
      if (seconds > 0) app.log.info(`not ready (/readyz answers 503); serving ${String(seconds)} s more, then closing`)
      // With no wait, closing starts at once: a request in flight is told `Connection: close` before it ends.
      draining =
        seconds === 0 ? close() : new Promise<void>((resolve) => setTimeout(resolve, seconds * 1000)).then(close)
    }
    return draining
  }
  return { app, url, emailReceiver, importThread, close, drain, metricsUrl: metricsServer?.url }
}

/**
 * Builds the lead indexes of `plan` (docs/decisions/0061), logs how long they took, and turns `/readyz` ready again;
 * a failure is logged and leaves the rest to their first searches. Never rejects.
 */
async function warmInBackground(
  app: FastifyInstance,
  database: DatabaseHandle,
  plan: WarmingPlan,
  readiness: Readiness,
  stop: AbortController,
): Promise<void> {
  if (plan.organizationIds.length === 0) return
  const started = performance.now()
  try {
    const warmed = await warmLeadIndexes(database.db, database.dialect, plan, {
      now: () => systemClock.now(),
      signal: stop.signal,
    })
    const seconds = ((performance.now() - started) / 1000).toFixed(1)
    app.log.info(
      `lead search indexes built for ${String(warmed)} organizations (${String(plan.leads)} leads) in ${seconds} s`,
    )
  } catch (error) {
    if (!stop.signal.aborted) app.log.warn({ err: error }, 'building the lead search indexes at start failed')
  } finally {
    readiness.warming = false
  }
}

/** Starts the SMTP receiver for incoming mail when a port is configured (docs/decisions/0032). */
async function receiveEmail(
  app: FastifyInstance,
  db: Db,
  config: Config,
  host: string,
): Promise<EmailReceiver | undefined> {
  if (config.emailReceive.port === null) return undefined
  const receiver = await startEmailReceiver({
    db,
    clock: systemClock,
    config: config.emailReceive,
    leadWebhookEnvUrl: config.leadWebhookUrl,
    host,
    log: app.log,
  })
  app.log.info(`receiving email on ${host}:${String(receiver.port)}`)
  return receiver
}

/** Search documents in an older format miss what the current search looks for: rebuild them before serving. */
async function rebuildStaleSearch(app: FastifyInstance, db: Db): Promise<void> {
  let shownTenth = -1
  const rebuilt = await ensureLeadSearchCurrent(db, {
    onProgress: (done, total) => {
      const tenth = Math.floor((done * 10) / total)
      if (tenth === shownTenth) return
      if (shownTenth === -1) app.log.info(`lead search documents are in an older format; rebuilding ${total}`)
      shownTenth = tenth
      app.log.info(`rebuilt the search documents of ${done}/${total} leads`)
    },
  })
  if (rebuilt !== undefined && rebuilt > 0) {
    app.log.info(`lead search documents rebuilt (format ${SEARCH_DOCUMENT_VERSION})`)
  }
}

/**
 * The first SIGTERM or SIGINT drains the server (`/readyz` 503, then closing gracefully) and exits 0 (1 if closing fails);
 * a second one exits at once.
 */
const SHUTDOWN_GRACE_MS = 10_000

export function closeOnSignals(server: Server): void {
  let stopping = false
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      server.app.log.warn(`${signal} received again; exiting without waiting`)
      process.exit(128 + constants.signals[signal])
    }
    stopping = true
    server.app.log.info(`${signal} received; finishing in-flight requests (send it again to exit at once)`)
    server.drain().then(
      () => {
        server.app.log.info('stopped')
        process.exit(0)
      },
      (error: unknown) => {
        server.app.log.error({ err: error }, 'stopping failed')
        process.exit(1)
      },
    )
  }
  process.on('SIGTERM', onSignal)
  process.on('SIGINT', onSignal)
}

async function main(): Promise<void> {
  const server = await serve({ config: loadConfig(process.env) })
  closeOnSignals(server)
}

// cli.ts imports serve() from here; only `node dist/main.js` starts a server.
function isEntryPoint(): boolean {
  const entry = process.argv[1]
  if (entry === undefined) return false
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url))
  } catch {
    return false
  }
}

if (isEntryPoint()) {
  main().catch((error: unknown) => {
    console.error(`leadline: ${error instanceof Error ? error.message : String(error)}`)
    process.exit(1)
  })
}
