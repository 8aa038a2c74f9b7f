/**
 * The route handlers still running. Closing waits for them before the database closes: a handler outlives its
 * connection when the client leaves first, and `app.close()` waits for connections only, so without this a handler
 * still writing met a database already closed ("driver has already been destroyed").
 */
export class HandlersInFlight {
  #running = 0
  #waiting = new Set<() => void>()
  readonly #settled = () => {
    this.#running -= 1
    if (this.#running > 0) return
    for (const wake of this.#waiting) wake()
    this.#waiting.clear()
  }

  /** Counts `result` while it is a promise that has not settled; answers it unchanged. */
  track<T>(result: T): T {
    if (!(result instanceof Promise)) return result
    this.#running += 1
    // A rejection still reaches whoever awaits `result`; this branch only counts it.
    result.then(this.#settled, this.#settled)
    return result
  }

  get running(): number {
    return this.#running
  }

  /** Resolves true once no handler runs, or false after `timeoutMs` with some still running. */
  idle(timeoutMs: number): Promise<boolean> {
    if (this.#running === 0) return Promise.resolve(true)
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer)
        resolve(true)
      }
      const timer = setTimeout(() => {
        this.#waiting.delete(wake)
        resolve(false)
      }, timeoutMs)
      timer.unref()
      this.#waiting.add(wake)
    })
  }
}
