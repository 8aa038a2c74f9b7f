import type pg from 'pg'
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible'

export interface RateLimitOutcome {
  allowed: boolean
  limit: number
  remaining: number
  /** Seconds until the window resets. */
  resetSeconds: number
}

export interface RateLimiter {
  consume(key: string): Promise<RateLimitOutcome>
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

/** One process: counters in memory (the SQLite deployment is one process by design). */
export function memoryRateLimiter(settings: RateLimitSettings): RateLimiter {
  return wrap(new RateLimiterMemory({ points: settings.points, duration: settings.windowSeconds }), settings.points)
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
