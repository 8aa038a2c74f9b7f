import type pg from 'pg'
import type { Clock } from '../data/time.js'

export interface RateLimitOutcome {
  allowed: boolean
  limit: number
  remaining: number
  /** Seconds until the window resets. */
  resetSeconds: number
}

export interface RateLimiter {
  /** Counts one request under `key`: at once where the counters are in this process, through a promise if shared. */
  consume(key: string): RateLimitOutcome | Promise<RateLimitOutcome>
}

export interface RateLimitSettings {
  points: number
  windowSeconds: number
}

/**
 * One process: counters in memory (the SQLite deployment is one process by design), counted as rate-limiter-flexible
 * counts them: a key's window starts with its first request and lasts `windowSeconds`; the next request after it
 * starts a new one. Counted here without a promise, which every request paid for through the library's memory
 * limiter; ended windows are dropped once a window.
 */
export function memoryRateLimiter(settings: RateLimitSettings, clock: Clock): RateLimiter {
  const windowMs = settings.windowSeconds * 1000
  const windows = new Map<string, { count: number; endsAt: number }>()
  let sweepAt = 0
  return {
    consume(key) {
      const now = clock.now().getTime()
      if (now >= sweepAt) {
        for (const [k, ended] of windows) if (ended.endsAt <= now) windows.delete(k)
        sweepAt = now + windowMs
      }
      let window = windows.get(key)
      if (window === undefined || window.endsAt <= now) {
        window = { count: 0, endsAt: now + windowMs }
        windows.set(key, window)
      }
      window.count += 1
      return {
        allowed: window.count <= settings.points,
        limit: settings.points,
        remaining: Math.max(0, settings.points - window.count),
        resetSeconds: (window.endsAt - now) / 1000,
      }
    },
  }
}

/** What one lease statement answers: the key's shared count and window after it, and how many points it granted. */
export interface Lease {
  /** Points handed out in the window so far, by every process, this lease's included; never above the limit. */
  consumed: number
  granted: number
  /** When the window ends, in ms since the epoch (the clock of the process that opened the window). */
  expiresAt: number
}

/** The shared counters: one row per key, leased from in chunks (docs/decisions/0012-shared-rate-limit-leases.md). */
export interface LeaseStore {
  /**
   * Atomically takes up to `points` from the key's window, opening a new window of `windowMs` when the key has none
   * or its last one ended by `nowMs`; grants fewer (down to none) when the window has fewer than that left.
   */
  lease(key: string, points: number, limit: number, nowMs: number, windowMs: number): Promise<Lease>
  /** Deletes the rows of windows that ended before `beforeMs`; resolves how many. */
  deleteEnded(beforeMs: number): Promise<number>
}

/**
 * Points a process leases at once: small enough that few go unused when a window ends (a fiftieth of the limit, at
 * most 100), and 1 for small limits, where counting stays exact.
 */
export function leaseChunk(limit: number): number {
  return Math.max(1, Math.min(100, Math.floor(limit / 50)))
}

interface Waiter {
  resolve(outcome: RateLimitOutcome): void
  reject(error: unknown): void
}

/** One key's state in this process. */
interface Bucket {
  /** End of the window the points below belong to (ms); 0 before the first lease. */
  expiresAt: number
  /** The shared count as of this process's last lease. */
  consumed: number
  /** Leased and not yet spent by this process. */
  unspent: number
  /** The last lease found the window spent: nothing is left for anyone until it ends. */
  spent: boolean
  /** Requests waiting for the lease in flight (at most one per key). */
  waiters: Waiter[]
  leasing: boolean
}

export interface LeasingRateLimiter extends RateLimiter {
  /** Always through a promise: a lease may have to be taken from the shared store first. */
  consume(key: string): Promise<RateLimitOutcome>
  /** Forgets this process's ended windows and deletes rows whose window ended more than a window ago. */
  sweep(): Promise<void>
}

/**
 * Spends points leased from a shared store, one lease per key in flight at a time: concurrent requests of one key
 * wait on that lease and never issue their own. We write our own because rate-limiter-flexible has no leasing: its
 * Postgres limiter writes the key's row on every request, and concurrent requests of one key queue on that row.
 */
export function leasingRateLimiter(store: LeaseStore, settings: RateLimitSettings, clock: Clock): LeasingRateLimiter {
  const limit = settings.points
  const windowMs = settings.windowSeconds * 1000
  const chunk = leaseChunk(limit)
  // Ended windows are swept at most once a window (and at least once a minute, for long windows' sake).
  const sweepEveryMs = Math.min(windowMs, 60_000)
  const buckets = new Map<string, Bucket>()
  let nextSweep = clock.now().getTime() + sweepEveryMs
  let sweeping: Promise<void> | undefined

  const allowed = (bucket: Bucket, now: number): RateLimitOutcome => ({
    allowed: true,
    limit,
    // Points other processes leased count as used: remaining never promises more than the window has left.
    remaining: Math.max(0, limit - bucket.consumed + bucket.unspent),
    resetSeconds: Math.max(0, bucket.expiresAt - now) / 1000,
  })
  const denied = (bucket: Bucket, now: number): RateLimitOutcome => ({
    allowed: false,
    limit,
    remaining: 0,
    resetSeconds: Math.max(0, bucket.expiresAt - now) / 1000,
  })

  function lease(key: string, bucket: Bucket): void {
    bucket.leasing = true
    // Everyone already waiting gets a point from this one lease; a lone request leases a chunk for those to come.
    const wanted = Math.max(chunk, bucket.waiters.length)
    store.lease(key, wanted, limit, clock.now().getTime(), windowMs).then(
      (answer) => {
        bucket.leasing = false
        // Unspent points of an ended window are void; a lease in the current one only comes when none are left.
        bucket.expiresAt = answer.expiresAt
        bucket.consumed = answer.consumed
        bucket.unspent = answer.granted
        bucket.spent = answer.consumed >= limit
        const now = clock.now().getTime()
        while (bucket.waiters.length > 0 && bucket.unspent > 0) {
          bucket.unspent -= 1
          bucket.waiters.shift()?.resolve(allowed(bucket, now))
        }
        if (bucket.waiters.length === 0) return
        if (bucket.spent) {
          for (const waiter of bucket.waiters.splice(0)) waiter.resolve(denied(bucket, now))
        } else {
          // More requests arrived while the lease was in flight than it brought points for.
          lease(key, bucket)
        }
      },
      (error: unknown) => {
        bucket.leasing = false
        for (const waiter of bucket.waiters.splice(0)) waiter.reject(error)
      },
    )
  }

  async function sweep(): Promise<void> {
    const now = clock.now().getTime()
    for (const [key, bucket] of buckets) {
      if (bucket.expiresAt <= now && !bucket.leasing) buckets.delete(key)
    }
    // A row whose window ended is reused by its key's next lease; one idle for a whole window more is deleted.
    await store.deleteEnded(now - windowMs)
  }

  return {
    consume(key) {
      const now = clock.now().getTime()
      if (now >= nextSweep && sweeping === undefined) {
        nextSweep = now + sweepEveryMs
        sweeping = sweep()
          .catch((error: unknown) => {
            process.stderr.write(`rate limit: deleting ended windows failed: ${String(error)}\n`)
          })
          .finally(() => {
            sweeping = undefined
          })
      }
      let bucket = buckets.get(key)
      if (bucket === undefined) {
        bucket = { expiresAt: 0, consumed: 0, unspent: 0, spent: false, waiters: [], leasing: false }
        buckets.set(key, bucket)
      }
      if (!bucket.leasing && now < bucket.expiresAt) {
        if (bucket.unspent > 0) {
          bucket.unspent -= 1
          return Promise.resolve(allowed(bucket, now))
        }
        if (bucket.spent) return Promise.resolve(denied(bucket, now))
      }
      const waiting = bucket
      return new Promise<RateLimitOutcome>((resolve, reject) => {
        waiting.waiters.push({ resolve, reject })
        if (!waiting.leasing) lease(key, waiting)
      })
    },
    sweep,
  }
}

// UPDATE's right-hand sides all read the row as it was, so `granted` and `consumed` agree. $1 key, $2 points wanted,
// $3 limit, $4 now (ms), $5 window (ms).
const LEASE_SQL = `INSERT INTO rate_limit_lease AS l (key, consumed, granted, expires_at)
VALUES ($1, LEAST($2::integer, $3::integer), LEAST($2::integer, $3::integer), $4::bigint + $5::bigint)
ON CONFLICT (key) DO UPDATE SET
  consumed = CASE WHEN l.expires_at <= $4::bigint THEN excluded.consumed
    ELSE l.consumed + LEAST($2::integer, GREATEST($3::integer - l.consumed, 0)) END,
  granted = CASE WHEN l.expires_at <= $4::bigint THEN excluded.granted
    ELSE LEAST($2::integer, GREATEST($3::integer - l.consumed, 0)) END,
  expires_at = CASE WHEN l.expires_at <= $4::bigint THEN excluded.expires_at ELSE l.expires_at END
RETURNING consumed, granted, expires_at`

const DELETE_ENDED_SQL = 'DELETE FROM rate_limit_lease WHERE expires_at < $1::bigint'

/** The shared counters in Postgres (migration 0008's `rate_limit_lease`), one named statement per lease. */
export function postgresLeaseStore(pool: pg.Pool): LeaseStore {
  return {
    async lease(key, points, limit, nowMs, windowMs) {
      const result = await pool.query<{ consumed: number; granted: number; expires_at: string }>({
        name: 'leadline_rate_lease',
        text: LEASE_SQL,
        values: [key, points, limit, nowMs, windowMs],
      })
      const row = result.rows[0]
      if (row === undefined) throw new Error('rate limit lease returned no row')
      return { consumed: row.consumed, granted: row.granted, expiresAt: Number(row.expires_at) }
    },
    async deleteEnded(beforeMs) {
      const result = await pool.query({
        name: 'leadline_rate_delete_ended',
        text: DELETE_ENDED_SQL,
        values: [beforeMs],
      })
      return result.rowCount ?? 0
    },
  }
}

/** Several api processes on one Postgres share these counters; each leases points from them in chunks. */
export function postgresRateLimiter(pool: pg.Pool, settings: RateLimitSettings, clock: Clock): LeasingRateLimiter {
  return leasingRateLimiter(postgresLeaseStore(pool), settings, clock)
}
