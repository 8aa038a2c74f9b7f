import { describe, expect, it } from 'vitest'
import { TestClock } from '../../tooling/test-support/test-app.js'
import { leaseChunk, leasingRateLimiter, type Lease, type LeaseStore, type RateLimitOutcome } from './rate-limit.js'

// The leasing limiter's bookkeeping against a store that does in memory what the Postgres statement does in one
// row update; rate-limit.postgres.test.ts runs the real statement.

class ModelStore implements LeaseStore {
  rows = new Map<string, Lease>()
  leases: { key: string; points: number }[] = []
  private held: (() => void)[] | undefined

  /** Leases wait until `release()`: lets a test see what piles up behind one in flight. */
  hold(): void {
    this.held = []
  }

  release(): void {
    const held = this.held ?? []
    this.held = undefined
    for (const go of held) go()
  }

  async lease(key: string, points: number, limit: number, nowMs: number, windowMs: number): Promise<Lease> {
    this.leases.push({ key, points })
    const held = this.held
    if (held !== undefined) await new Promise<void>((resolve) => held.push(resolve))
    const row = this.rows.get(key)
    const next: Lease =
      row === undefined || row.expiresAt <= nowMs
        ? { consumed: Math.min(points, limit), granted: Math.min(points, limit), expiresAt: nowMs + windowMs }
        : (() => {
            const granted = Math.min(points, Math.max(limit - row.consumed, 0))
            return { consumed: row.consumed + granted, granted, expiresAt: row.expiresAt }
          })()
    this.rows.set(key, next)
    return next
  }

  deleteEnded(beforeMs: number): Promise<number> {
    let deleted = 0
    for (const [key, row] of this.rows) {
      if (row.expiresAt < beforeMs) {
        this.rows.delete(key)
        deleted += 1
      }
    }
    return Promise.resolve(deleted)
  }
}

const allowedCount = (outcomes: RateLimitOutcome[]) => outcomes.filter((o) => o.allowed).length

describe('leaseChunk', () => {
  it('is a fiftieth of the limit, at least 1 and at most 100', () => {
    expect([1, 3, 6, 99, 100, 2400, 5000, 1_000_000_000].map(leaseChunk)).toEqual([1, 1, 1, 1, 2, 48, 100, 100])
  })
})

describe('leasing rate limiter', () => {
  it('has concurrent requests of one key wait on one lease, then grants exactly the limit', async () => {
    const store = new ModelStore()
    const limiter = leasingRateLimiter(store, { points: 3, windowSeconds: 60 }, new TestClock())
    store.hold()
    const pending = Array.from({ length: 10 }, () => limiter.consume('k'))
    expect(store.leases).toEqual([{ key: 'k', points: 1 }])
    store.release()
    const outcomes = await Promise.all(pending)
    expect(outcomes.map((o) => o.allowed)).toEqual([true, true, true, false, false, false, false, false, false, false])
    expect(outcomes.map((o) => o.remaining)).toEqual([2, 1, 0, 0, 0, 0, 0, 0, 0, 0])
    // The nine that waited were asked for in one lease, which found two points left.
    expect(store.leases).toEqual([
      { key: 'k', points: 1 },
      { key: 'k', points: 9 },
    ])
    // The window is spent: later requests are refused without asking the store again.
    const later = await limiter.consume('k')
    expect(later.allowed).toBe(false)
    expect(later.resetSeconds).toBeGreaterThan(59)
    expect(later.resetSeconds).toBeLessThanOrEqual(60)
    expect(store.leases).toHaveLength(2)
    expect(store.rows.get('k')?.consumed).toBe(3)
  })

  it('spends a leased chunk locally and counts remaining as the limit less what was used', async () => {
    const store = new ModelStore()
    const limiter = leasingRateLimiter(store, { points: 1000, windowSeconds: 60 }, new TestClock())
    const outcomes: RateLimitOutcome[] = []
    for (let i = 0; i < 50; i++) outcomes.push(await limiter.consume('k'))
    expect(allowedCount(outcomes)).toBe(50)
    expect(outcomes.map((o) => o.remaining)).toEqual(Array.from({ length: 50 }, (_, i) => 999 - i))
    expect(store.leases).toEqual([
      { key: 'k', points: 20 },
      { key: 'k', points: 20 },
      { key: 'k', points: 20 },
    ])
    expect(store.rows.get('k')?.consumed).toBe(60)
  })

  it('opens a new window once the last one ended, reusing the key', async () => {
    const store = new ModelStore()
    const clock = new TestClock()
    const limiter = leasingRateLimiter(store, { points: 2, windowSeconds: 30 }, clock)
    const first = [await limiter.consume('k'), await limiter.consume('k'), await limiter.consume('k')]
    expect(first.map((o) => o.allowed)).toEqual([true, true, false])
    clock.advance(29_000)
    expect((await limiter.consume('k')).allowed).toBe(false)
    clock.advance(1_000)
    const next = await limiter.consume('k')
    expect(next).toMatchObject({ allowed: true, remaining: 1 })
    expect(next.resetSeconds).toBeGreaterThan(29.9)
    expect(store.rows.get('k')?.consumed).toBe(1)
  })

  it('drops unspent points of an ended window', async () => {
    const store = new ModelStore()
    const clock = new TestClock()
    const limiter = leasingRateLimiter(store, { points: 500, windowSeconds: 30 }, clock)
    expect((await limiter.consume('k')).remaining).toBe(499)
    clock.advance(30_000)
    // The nine points left of the first lease belonged to the first window: a new lease opens the second.
    expect((await limiter.consume('k')).remaining).toBe(499)
    expect(store.leases).toHaveLength(2)
  })

  it('never grants more than the limit to several processes sharing one store', async () => {
    const store = new ModelStore()
    const clock = new TestClock()
    const processes = [0, 1, 2].map(() => leasingRateLimiter(store, { points: 400, windowSeconds: 60 }, clock))
    const outcomes = await Promise.all(
      Array.from({ length: 600 }, (_, i) => processes[i % 3]?.consume('k') ?? Promise.reject(new Error('none'))),
    )
    const allowed = allowedCount(outcomes)
    expect(allowed).toBeLessThanOrEqual(400)
    // At most a chunk less one per process stays leased and unspent.
    expect(allowed).toBeGreaterThanOrEqual(400 - 3 * (leaseChunk(400) - 1))
    expect(store.rows.get('k')?.consumed).toBe(400)
  })

  it('fails the requests waiting on a lease that fails, and leases again for the next', async () => {
    const store = new ModelStore()
    let failures = 1
    const flaky: LeaseStore = {
      lease: (...args) => (failures-- > 0 ? Promise.reject(new Error('connection lost')) : store.lease(...args)),
      deleteEnded: (beforeMs) => store.deleteEnded(beforeMs),
    }
    const limiter = leasingRateLimiter(flaky, { points: 3, windowSeconds: 60 }, new TestClock())
    const results = await Promise.allSettled([limiter.consume('k'), limiter.consume('k')])
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected'])
    expect(await limiter.consume('k')).toMatchObject({ allowed: true, remaining: 2 })
  })

  it('forgets ended windows and deletes rows idle for a whole window more', async () => {
    const store = new ModelStore()
    const clock = new TestClock()
    const limiter = leasingRateLimiter(store, { points: 5, windowSeconds: 30 }, clock)
    await limiter.consume('old')
    clock.advance(45_000)
    await limiter.consume('recent')
    clock.advance(20_000)
    // `old` ended 35 s ago, `recent` 5 s ago: only the first is past a whole window.
    await limiter.sweep()
    expect([...store.rows.keys()]).toEqual(['recent'])
    expect((await limiter.consume('old')).remaining).toBe(4)
  })
})
