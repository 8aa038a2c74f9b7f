import type { Config } from '../config.js'
import type { Resolver } from '../outbound/host-check.js'
import type { Db, Dialect, HotReader } from '../db/database.js'
import type { ViewCache } from './view-cache.js'
import type { MetaCache } from '../organizations/organization-meta.js'
import type { AuthCache } from '../api-keys/auth-cache.js'
import type { RateLimiter } from './rate-limit.js'
import type { Clock } from './time.js'

/** What every route plugin receives. */
export interface Deps {
  db: Db
  dialect: Dialect
  /** Point reads for hot paths (database.ts). */
  reader: HotReader
  clock: Clock
  config: Config
  rateLimiter: RateLimiter
  meta: MetaCache
  /** Built views by object id, shared by the resources that cache theirs. */
  views: ViewCache
  auth: AuthCache
  /** Host names to addresses, for checking a URL when it is saved (outbound/host-check.ts); tests give their own. */
  resolve: Resolver
}
