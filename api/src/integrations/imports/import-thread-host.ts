import { existsSync } from 'node:fs'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { Worker } from 'node:worker_threads'
import type { SqliteDatabase } from 'kysely'
import type { Db } from '../../platform/data/database.js'
import type { Clock } from '../../platform/data/time.js'
import { releaseLeasesOf, workerName } from '../../platform/data/leased-jobs.js'
import type { WriteLock } from '../../platform/data/sqlite-write-lock.js'
import {
  startWalCheckpointer,
  walAutocheckpoint,
  WAL_BACKSTOP_PAGES,
  type WalCheckpointer,
} from '../../platform/data/wal-checkpointer.js'
import { onImportRequested } from './import-worker.js'

// The host of the import thread (decision 0053). An import makes a great deal of short-lived garbage, and V8 lets a
// heap grow by hundreds of megabytes between full collections when nothing bounds it: run on the api's own thread, a
// million rows took the process from 185 MB to over 600 MB of RSS. On a worker thread of its own, with its own
// database connection, its heap is bounded (`resourceLimits`) without bounding the api's. A thread that dies (an
// import that runs out of that heap ends the thread, not the api) has its leases given back and is started again:
// the job resumes after its last committed batch, and a job that keeps killing its thread ends in `error` after
// IMPORT_MAX_ATTEMPTS claims, as any interrupted job does.

/** What the thread is given: where the database is, and what the import worker needs to write. */
export interface ImportThreadData {
  databaseUrl: string
  sqliteCacheMb: number
  appUrl: string
  leadWebhookUrl: string | null
  /** The lease owner of this thread: the host gives its leases back if it dies. */
  owner: string
  /** SQLite: the write lock the thread's connection shares with the api's (sqlite-write-lock.ts). */
  writeLockBuffer: SharedArrayBuffer | undefined
  /** Rows a batch (tests); IMPORT_BATCH unless given. */
  batchSize?: number
  /**
   * SQLite, while a WAL checkpointer thread runs beside the import (decision 0085): the log's size in pages past
   * which the thread's connection checkpoints by itself all the same.
   */
  walBackstopPages?: number
}

export type ToImportThread = { type: 'requested' } | { type: 'stop' }
export type FromImportThread =
  | { type: 'started' }
  | { type: 'stopped' }
  | { type: 'error'; what: string; message: string; stack: string | undefined }

/**
 * The thread's heap. Old generation: the import's live data is a batch (1,500 rows with their rows, views and events)
 * and the modules it loads (25 MB used when it starts); the rest is room for garbage between full collections: at
 * 300,000 rows 64 MB ran as fast as 96 MB, 48 MB took 30% longer. Young generation: 24 MB (V8 takes up to 48 MB by
 * default on 64-bit); 16 MB with a 64 MB old generation was 60% slower when the batch was 3,000 rows. A process
 * started with `--max-semi-space-size` gives every thread that size (V8 reads the flag over `resourceLimits`): 24 MB is
 * three semi-spaces of 8 MB, npm start's (decision 0079); with 4 a million rows took 253 s against 213.
 */
export const IMPORT_THREAD_OLD_MB = 64
export const IMPORT_THREAD_YOUNG_MB = 24
/** The thread's SQLite page cache (at most LEADLINE_SQLITE_CACHE_MB): 8, 16 and 64 MB ran alike at 300,000 rows. */
export const IMPORT_THREAD_SQLITE_CACHE_MB = 8
/** Waits before a thread that died is started again: doubling while it keeps dying within a minute. */
const RESTART_MS = 1000
const RESTART_MAX_MS = 60_000
/**
 * How often the host looks for imports due (another process's, or one left by a restart), and how long none must
 * have been before the thread is stopped.
 */
const WATCH_MS = 2000
const IDLE_MS = 30_000
/** A thread asked to stop has this long to finish its batch and give its lease back before it is terminated. */
const STOP_GRACE_MS = 30_000

const compiledThread = fileURLToPath(new URL('./import-thread.js', import.meta.url))

/** The compiled thread's file when there is one (run from the TypeScript sources, as the tests are, there is none). */
export function importThreadFile(): string | undefined {
  return existsSync(compiledThread) ? compiledThread : undefined
}

/**
 * V8's flags for the heap and its collector that an api may be started with (`--max-semi-space-size=8`, decision
 * 0079): Node refuses a worker whose flags hold a V8 flag (ERR_WORKER_INVALID_EXEC_ARGV), and V8's flags are the
 * whole process's already.
 */
const V8_HEAP_FLAG =
  /^--(?:no-)?(?:max[-_]semi[-_]space[-_]size|min[-_]semi[-_]space[-_]size|max[-_]old[-_]space[-_]size|semi[-_]space[-_]growth[-_]factor|heap[-_]growing[-_]percent|expose[-_]gc|trace[-_]gc|stack[-_]size)(?:=|$)/

/**
 * The api's node flags for the thread (`--cpu-prof` profiles it too), but for `--conditions` (the compiled thread
 * loads compiled packages, and the condition the tests run under would send it to TypeScript sources it cannot load)
 * and V8's heap flags (V8_HEAP_FLAG), which a worker refuses.
 */
export function threadExecArgv(execArgv: readonly string[]): string[] {
  const kept: string[] = []
  for (let i = 0; i < execArgv.length; i += 1) {
    const flag = execArgv[i] ?? ''
    if (flag === '--conditions' || flag === '-C') i += 1
    else if (!flag.startsWith('--conditions=') && !flag.startsWith('-C=') && !V8_HEAP_FLAG.test(flag)) kept.push(flag)
  }
  return kept
}

export interface ImportThreadOptions {
  /** The api's own connection: gives back the leases of a thread that died. */
  db: Db
  /** SQLite: the api's side of the write lock, freed if the thread dies holding it. */
  writeLock?: WriteLock
  clock: Clock
  data: Omit<ImportThreadData, 'owner'>
  /** The compiled `import-thread.js`. */
  file: string
  /**
   * SQLite on a file: the file, whose write-ahead log a checkpointer thread copies into it while the import thread runs
   * (decision 0085), when the compiled `wal-checkpoint-thread.js` is where the build puts it beside `file`; and the
   * api's own connection, whose checkpoints are held back meanwhile.
   */
  wal?: { file: string; apiConnection: SqliteDatabase }
  oldGenerationMb?: number
  youngGenerationMb?: number
  restartMs?: number
  /** Tests: how often imports due are looked for, and how long an idle thread lives. */
  watchMs?: number
  idleMs?: number
  onError: (error: unknown, what: string) => void
}

export interface ImportThreadHost {
  start(): void
  /** Asks the thread to stop (its job gives its lease back) and waits for it to end; it is not started again. */
  stop(): Promise<void>
  /** The thread's lease owner while one runs. */
  owner(): string | undefined
  /** Ends the thread at once, as running out of heap would (tests); the host starts another. */
  kill(): Promise<void>
  /** Resolves once a thread (a new one, after a death) has started its worker. */
  started(): Promise<void>
}

/**
 * Whether an import has a job to do or under way (a dry run, a run, an undo), in this process or another: the thread
 * runs while there is, so an api with no import to do carries no second heap (some 30 MB of RSS when idle).
 */
async function importsDue(db: Db): Promise<boolean> {
  const row = await db
    .selectFrom('data_import')
    .select('id')
    .where('status', 'in', ['checking', 'queued', 'running', 'undoing'])
    .limit(1)
    .executeTakeFirst()
  return row !== undefined
}

/** The compiled checkpointer thread, in the build's tree beside the compiled import thread `importThread`. */
function checkpointThreadBeside(importThread: string): string | undefined {
  const file = fileURLToPath(new URL('../../platform/data/wal-checkpoint-thread.js', pathToFileURL(importThread)))
  return existsSync(file) ? file : undefined
}

export function createImportThreadHost(options: ImportThreadOptions): ImportThreadHost {
  const checkpointThread = options.wal === undefined ? undefined : checkpointThreadBeside(options.file)
  const walCheckpoint =
    options.wal === undefined || checkpointThread === undefined ? undefined : { ...options.wal, checkpointThread }
  let checkpointer: { thread: WalCheckpointer; restoreApi: () => void } | undefined
  let running = false
  let current: { worker: Worker; owner: string; exited: Promise<void>; idleStop: boolean } | undefined
  let watchTimer: NodeJS.Timeout | undefined
  let lastDueAt = 0
  let restartTimer: NodeJS.Timeout | undefined
  let quickDeaths = 0
  let unlisten: (() => void) | undefined
  const startedWaiters: (() => void)[] = []

  const post = (message: ToImportThread) => {
    current?.worker.postMessage(message)
  }

  /**
   * Starts the checkpointer and holds the api's own connection's checkpoints back to the backstop too: left at
   * SQLite's 1,000 pages, an api write that commits while the log holds a batch's pages would copy them on the api's
   * thread. What the api's connection had is put back when the checkpointer stops.
   */
  function startCheckpointer(wal: { file: string; apiConnection: SqliteDatabase; checkpointThread: string }): void {
    const thread = startWalCheckpointer({
      file: wal.file,
      threadFile: wal.checkpointThread,
      onError: (error) => {
        options.onError(error, 'the WAL checkpointer')
      },
    })
    const apiPages = walAutocheckpoint(wal.apiConnection, WAL_BACKSTOP_PAGES)
    checkpointer = { thread, restoreApi: () => walAutocheckpoint(wal.apiConnection, apiPages) }
  }

  /** Stops the checkpointer, the api's connection checkpointing as it did before. */
  async function stopCheckpointer(): Promise<void> {
    const stopping = checkpointer
    if (stopping === undefined) return
    checkpointer = undefined
    stopping.restoreApi()
    await stopping.thread.stop()
  }

  function spawn(): void {
    const owner = workerName()
    if (walCheckpoint !== undefined && checkpointer === undefined) startCheckpointer(walCheckpoint)
    const data: ImportThreadData = {
      ...options.data,
      owner,
      ...(walCheckpoint === undefined ? {} : { walBackstopPages: WAL_BACKSTOP_PAGES }),
    }
    const worker = new Worker(options.file, {
      workerData: data,
      execArgv: threadExecArgv(process.execArgv),
      resourceLimits: {
        maxOldGenerationSizeMb: options.oldGenerationMb ?? IMPORT_THREAD_OLD_MB,
        maxYoungGenerationSizeMb: options.youngGenerationMb ?? IMPORT_THREAD_YOUNG_MB,
      },
    })
    const bornAt = Date.now()
    // Ended once what its end asks of the api (the write lock and leases given back) is done too.
    const exited = new Promise<void>((resolve) => {
      worker.once('exit', (code) => {
        const idleStop = current?.worker === worker && current.idleStop
        if (current?.worker === worker) current = undefined
        void afterExit(owner, code, Date.now() - bornAt, idleStop).finally(resolve)
      })
    })
    current = { worker, owner, exited, idleStop: false }
    worker.on('message', (message: FromImportThread) => {
      if (message.type === 'started') {
        for (const waiter of startedWaiters.splice(0)) waiter()
      } else if (message.type === 'error') {
        const error = new Error(message.message)
        if (message.stack !== undefined) error.stack = message.stack
        options.onError(error, message.what)
      }
    })
    // Out of heap (ERR_WORKER_OUT_OF_MEMORY), or an error nothing caught: the thread ends, and 'exit' follows.
    worker.on('error', (error) => {
      options.onError(error, 'the import thread')
    })
  }

  async function afterExit(owner: string, code: number, livedMs: number, idleStop: boolean): Promise<void> {
    // Whatever the thread held, it no longer writes: the write lock (its transaction rolled back as its connection
    // closed) first, as giving back its leases is a write; then its leases, free for the next claim at once.
    options.writeLock?.releaseIfHeldBy('import')
    try {
      await releaseLeasesOf(options.db, options.clock, 'data_import', owner)
    } catch (error) {
      options.onError(error, `giving back the leases of the import thread ${owner}`)
    }
    if (!running || idleStop) {
      await stopCheckpointer().catch((error: unknown) => {
        options.onError(error, 'stopping the WAL checkpointer')
      })
      return
    }
    options.onError(new Error(`it ended (exit code ${String(code)}); starting another`), 'the import thread')
    quickDeaths = livedMs < RESTART_MAX_MS ? quickDeaths + 1 : 1
    const delay = Math.min((options.restartMs ?? RESTART_MS) * 2 ** (quickDeaths - 1), RESTART_MAX_MS)
    restartTimer = setTimeout(() => {
      restartTimer = undefined
      if (running) spawn()
    }, delay)
    restartTimer.unref()
  }

  /** Starts the thread when an import is due, and stops it once none has been for IDLE_MS. */
  async function watch(): Promise<void> {
    const due = await importsDue(options.db)
    if (!running) return
    const now = Date.now()
    if (due) lastDueAt = now
    if (due && current === undefined && restartTimer === undefined) spawn()
    else if (!due && current !== undefined && !current.idleStop && now - lastDueAt >= (options.idleMs ?? IDLE_MS)) {
      current.idleStop = true
      post({ type: 'stop' })
    }
  }

  const watchSoon = () => {
    void watch().catch((error: unknown) => {
      options.onError(error, 'looking for imports to do')
    })
  }

  return {
    start() {
      if (running) return
      running = true
      unlisten = onImportRequested(() => {
        lastDueAt = Date.now()
        if (current === undefined && restartTimer === undefined) spawn()
        else post({ type: 'requested' })
      })
      watchSoon()
      watchTimer = setInterval(watchSoon, options.watchMs ?? WATCH_MS)
      watchTimer.unref()
    },
    async stop() {
      running = false
      unlisten?.()
      unlisten = undefined
      if (watchTimer !== undefined) clearInterval(watchTimer)
      if (restartTimer !== undefined) clearTimeout(restartTimer)
      const thread = current
      if (thread === undefined) {
        await stopCheckpointer()
        return
      }
      post({ type: 'stop' })
      const grace = setTimeout(() => void thread.worker.terminate(), STOP_GRACE_MS)
      await thread.exited
      clearTimeout(grace)
    },
    owner: () => current?.owner,
    async kill() {
      const thread = current
      if (thread === undefined) return
      await thread.worker.terminate()
      await thread.exited
    },
    started() {
      return new Promise((resolve) => {
        startedWaiters.push(resolve)
      })
    },
  }
}
