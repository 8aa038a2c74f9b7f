import type { FailureBounds } from './session-rows.js'

/** Where failed sign-ins are counted: the session store, which every BFF process on the data folder shares. */
export interface SignInFailureStore {
  signInFailures(address: string, sinceMs: number, limit: number): Promise<number[]>
  recordSignInFailure(address: string, atMs: number, bounds: FailureBounds): Promise<void>
  purgeSignInFailures(sinceMs: number): Promise<void>
}

/**
 * Failed sign-ins per client address, counted in the shared session store: with N processes behind a load balancer
 * an address still gets the limit once, and a restart forgets nothing (docs/decisions/0020).
 */
export class SignInLimiter {
  readonly #store: SignInFailureStore
  readonly #limit: number
  readonly #windowMs: number
  readonly #maxFailures: number
  readonly #onFailure: (() => void) | undefined

  constructor({
    store,
    limit,
    windowMs,
    maxFailures = 100_000,
    onFailure,
  }: {
    store: SignInFailureStore
    limit: number
    windowMs: number
    /** The most failures kept in all; the oldest are forgotten first. */
    maxFailures?: number
    /** Told of each failure recorded (the BFF's metrics count them). */
    onFailure?: () => void
  }) {
    this.#store = store
    this.#limit = limit
    this.#windowMs = windowMs
    this.#maxFailures = maxFailures
    this.#onFailure = onFailure
  }

  /** Seconds until the address may try again, or 0 when it may try now. */
  async retryAfterSeconds(address: string, now: Date): Promise<number> {
    const nowMs = now.getTime()
    const recent = await this.#store.signInFailures(address, nowMs - this.#windowMs, this.#limit)
    // Newest first: when the last `limit` failures all fall in the window, the oldest of them decides.
    const oldest = recent[this.#limit - 1]
    if (oldest === undefined) return 0
    return Math.max(1, Math.ceil((oldest + this.#windowMs - nowMs) / 1000))
  }

  recordFailure(address: string, now: Date): Promise<void> {
    this.#onFailure?.()
    const nowMs = now.getTime()
    // Only the newest `limit` failures decide when the address may try again.
    return this.#store.recordSignInFailure(address, nowMs, {
      keep: this.#limit,
      sinceMs: nowMs - this.#windowMs,
      maxRows: this.#maxFailures,
    })
  }

  /** Forgets failures that have left the window; the app calls it on a timer. */
  purge(now: Date): Promise<void> {
    return this.#store.purgeSignInFailures(now.getTime() - this.#windowMs)
  }
}
