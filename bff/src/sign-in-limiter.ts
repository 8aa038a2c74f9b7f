/**
 * Failed sign-ins per client address, in this process's memory: each BFF process keeps its own count, so with N
 * processes behind a load balancer an address may try up to N times the limit (docs/decisions/0020).
 */
export class SignInLimiter {
  readonly #failures = new Map<string, number[]>()
  readonly #limit: number
  readonly #windowMs: number
  readonly #maxAddresses: number

  constructor({ limit, windowMs, maxAddresses = 100_000 }: { limit: number; windowMs: number; maxAddresses?: number }) {
    this.#limit = limit
    this.#windowMs = windowMs
    this.#maxAddresses = maxAddresses
  }

  /** Seconds until the address may try again, or 0 when it may try now. */
  retryAfterSeconds(address: string, now: Date): number {
    const recent = this.#recent(address, now.getTime())
    if (recent.length < this.#limit) return 0
    const oldest = recent[recent.length - this.#limit] ?? now.getTime()
    return Math.max(1, Math.ceil((oldest + this.#windowMs - now.getTime()) / 1000))
  }

  recordFailure(address: string, now: Date): void {
    const recent = this.#recent(address, now.getTime())
    recent.push(now.getTime())
    // Only the newest `limit` failures decide when the address may try again.
    if (recent.length > this.#limit) recent.splice(0, recent.length - this.#limit)
    this.#failures.delete(address)
    this.#failures.set(address, recent)
    // Bounded memory under a spray from many addresses: the least recently failing ones are forgotten first.
    for (const oldest of this.#failures.keys()) {
      if (this.#failures.size <= this.#maxAddresses) break
      this.#failures.delete(oldest)
    }
  }

  /** Forgets addresses whose failures have all left the window; the app calls it on a timer. */
  purge(now: Date): void {
    for (const address of [...this.#failures.keys()]) this.#recent(address, now.getTime())
  }

  get addresses(): number {
    return this.#failures.size
  }

  #recent(address: string, nowMs: number): number[] {
    const all = this.#failures.get(address)
    if (all === undefined) return []
    const recent = all.filter((at) => nowMs - at < this.#windowMs)
    if (recent.length === 0) this.#failures.delete(address)
    else this.#failures.set(address, recent)
    return recent
  }
}
