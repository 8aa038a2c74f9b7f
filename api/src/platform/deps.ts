import type { Config } from '../config.js'
import type { Db, Dialect } from '../db/database.js'
import type { RateLimiter } from './rate-limit.js'
import type { Clock } from './time.js'

/** What every route plugin receives. */
export interface Deps {
  db: Db
  dialect: Dialect
  clock: Clock
  config: Config
  rateLimiter: RateLimiter
}
