import type pg from 'pg'
import { RateLimiterPostgres, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible'
import type { Clock } from './time.js'

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

function outcome(res: RateLimiterRes, limit: number, allowed: boolean): RateLimitOutcome {
  return { allowed, limit, remaining: Math.max(0, res.remainingPoints), resetSeconds: res.msBeforeNext / 1000 }
}

function wrap(limiter: RateLimiterAbstract, limit: number): RateLimiter {
  return {
    async consume(key) {
      try {
        return outcome(await limiter.consume(key), limit, true)
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) return outcome(rejection, limit, false)
        throw rejection
      }
    },
  }
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

/** Several api processes on one Postgres share these counters. */
export async function postgresRateLimiter(pool: pg.Pool, settings: RateLimitSettings): Promise<RateLimiter> {
  const limiter = await new Promise<RateLimiterPostgres>((resolve, reject) => {
    const created: RateLimiterPostgres = new RateLimiterPostgres(
      {
        storeClient: pool,
        storeType: 'pool',
        tableName: 'leadline_rate_limit',
        points: settings.points,
        duration: settings.windowSeconds,
        clearExpiredByTimeout: false,
      },
      (err?: Error) => {
        if (err) reject(err)
        else resolve(created)
      },
    )
  })
  return wrap(limiter, settings.points)
}
