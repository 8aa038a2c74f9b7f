import { performance } from 'node:perf_hooks'

// One deadline for every step of a send (docs/decisions/0037-who-sends-clean-headers-send-deadline.md): the name's
// lookup, the connection, TLS, the SMTP dialogue, fetching files, a gateway's answer. Each step gets what is left of
// it, and the signal aborts whatever is under way when it passes, so a send ends well within its lease.

/** A send's deadline: what is left of it, and a signal that aborts at it. */
export interface SendDeadline {
  readonly signal: AbortSignal
  /** Milliseconds left (0 once it has passed). */
  left(): number
  /** `step`'s promise, or a rejection with a `DeadlineError` once the deadline passes first. */
  within<T>(step: Promise<T>, what: string): Promise<T>
}

/** A step cut off by the send's deadline. */
export class DeadlineError extends Error {
  override name = 'DeadlineError'
}

/** A deadline `ms` from now. */
export function sendDeadline(ms: number): SendDeadline {
  const end = performance.now() + ms
  const signal = AbortSignal.timeout(Math.max(ms, 0))
  const seconds = `${String(Math.round(ms / 100) / 10)} s`
  return {
    signal,
    left: () => Math.max(0, Math.floor(end - performance.now())),
    within<T>(step: Promise<T>, what: string): Promise<T> {
      if (signal.aborted) return Promise.reject(new DeadlineError(`${what}: the send’s ${seconds} had run out`))
      return new Promise<T>((resolve, reject) => {
        const onAbort = () => {
          reject(new DeadlineError(`${what} took longer than the send’s ${seconds}`))
        }
        signal.addEventListener('abort', onAbort, { once: true })
        step.then(
          (value) => {
            signal.removeEventListener('abort', onAbort)
            resolve(value)
          },
          (error: unknown) => {
            signal.removeEventListener('abort', onAbort)
            reject(error instanceof Error ? error : new Error(String(error)))
          },
        )
      })
    },
  }
}
