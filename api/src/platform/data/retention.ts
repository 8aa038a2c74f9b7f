// Periodic purges of what is kept for a while only (archived system tasks, the event log).

export const RETENTION_INTERVAL_MS = 60 * 60 * 1000

export interface RetentionOptions {
  /** Deletes what is due and answers how many rows went. */
  purge: () => Promise<number>
  intervalMs?: number
  onPurged: (deleted: number) => void
  onError: (error: unknown) => void
}

export interface Retention {
  /** Stops the timer and waits for a purge under way. */
  stop(): Promise<void>
}

/** Purges now and then every `intervalMs` (an hour), one purge at a time; the timer keeps no process alive. */
export function scheduleRetention(options: RetentionOptions): Retention {
  let running: Promise<void> | undefined
  const run = () => {
    if (running !== undefined) return
    running = options
      .purge()
      .then(options.onPurged, options.onError)
      .finally(() => {
        running = undefined
      })
  }
  run()
  const timer = setInterval(run, options.intervalMs ?? RETENTION_INTERVAL_MS)
  timer.unref()
  return {
    stop: async () => {
      clearInterval(timer)
      await running
    },
  }
}
