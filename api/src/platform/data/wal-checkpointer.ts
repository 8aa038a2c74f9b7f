import { Worker } from 'node:worker_threads'
import type { SqliteDatabase } from 'kysely'

// SQLite's checkpoints on a thread of their own (decision 0085). In WAL mode a commit appends the pages it changed to
// the log, and by default the connection that commits past 1,000 pages of log copies them into the database file
// itself, inside that commit: a bulk writer (the import thread, decision 0053) spent a seventh of its time there. A
// checkpointer thread copies them instead, every WAL_CHECKPOINT_INTERVAL_MS, on the other core, while the writers'
// own checkpoints are held back to WAL_BACKSTOP_PAGES (should the thread stop, the log still stays bounded).

/** How often the thread checkpoints; with nothing in the log a checkpoint costs a few microseconds. */
export const WAL_CHECKPOINT_INTERVAL_MS = 100
/** The log, in pages, past which a writer checkpoints by itself while a checkpointer runs (64 MB of 4 KiB pages). */
export const WAL_BACKSTOP_PAGES = 16_384
/** The thread's heap: it holds one connection and a timer. */
const THREAD_OLD_MB = 8
const THREAD_YOUNG_MB = 2
/** A thread asked to stop has this long to make its last checkpoint and close before it is terminated. */
const STOP_GRACE_MS = 10_000

/**
 * A connection's own checkpoint threshold in pages, set to `pages` when given; the threshold it had. Straight on the
 * connection: a setting of this connection alone, it writes nothing, so it takes no write lock (sqlite-write-lock.ts),
 * for which a busy api could keep it waiting.
 */
export function walAutocheckpoint(connection: SqliteDatabase, pages?: number): number {
  const [before] = connection.prepare('pragma wal_autocheckpoint').all([]) as { wal_autocheckpoint: number }[]
  if (pages !== undefined) connection.prepare(`pragma wal_autocheckpoint = ${String(Math.trunc(pages))}`).all([])
  return before?.wal_autocheckpoint ?? 1000
}

/** What the thread is given. */
export interface WalCheckpointData {
  file: string
  intervalMs: number
}

export type ToWalCheckpointThread = { type: 'stop' }
export type FromWalCheckpointThread = { type: 'started' } | { type: 'error'; message: string }

export interface WalCheckpointerOptions {
  /** The SQLite file, in WAL mode already. */
  file: string
  /** The compiled `wal-checkpoint-thread.js`. */
  threadFile: string
  intervalMs?: number
  onError: (error: unknown) => void
}

export interface WalCheckpointer {
  /** Resolves once the thread has opened its connection. */
  started(): Promise<void>
  /**
   * Makes a last checkpoint, closes the thread's connection and waits for the thread to end: `stopped` when it ended
   * by itself, `terminated` when it had not within STOP_GRACE_MS and was ended.
   */
  stop(): Promise<'stopped' | 'terminated'>
}

export function startWalCheckpointer(options: WalCheckpointerOptions): WalCheckpointer {
  const data: WalCheckpointData = {
    file: options.file,
    intervalMs: options.intervalMs ?? WAL_CHECKPOINT_INTERVAL_MS,
  }
  const worker = new Worker(options.threadFile, {
    workerData: data,
    // None of the api's flags: V8's heap flags are refused by a worker, and nothing here needs a profiler.
    execArgv: [],
    resourceLimits: { maxOldGenerationSizeMb: THREAD_OLD_MB, maxYoungGenerationSizeMb: THREAD_YOUNG_MB },
  })
  const exited = new Promise<void>((resolve) => {
    worker.once('exit', () => {
      resolve()
    })
  })
  const started = new Promise<void>((resolve, reject) => {
    worker.on('message', (message: FromWalCheckpointThread) => {
      if (message.type === 'started') resolve()
      else options.onError(new Error(`WAL checkpointer: ${message.message}`))
    })
    void exited.then(() => {
      reject(new Error('WAL checkpointer: the thread ended before it started'))
    })
  })
  // Nobody may wait for the start; a thread that never started is reported through onError below.
  started.catch(() => undefined)
  worker.on('error', (error) => {
    options.onError(error)
  })
  let stopping: Promise<'stopped' | 'terminated'> | undefined
  return {
    started: () => started,
    stop() {
      stopping ??= (async () => {
        const ending = { terminated: false }
        worker.postMessage({ type: 'stop' } satisfies ToWalCheckpointThread)
        const grace = setTimeout(() => {
          ending.terminated = true
          void worker.terminate()
        }, STOP_GRACE_MS)
        await exited
        clearTimeout(grace)
        return ending.terminated ? 'terminated' : 'stopped'
      })()
      return stopping
    },
  }
}
