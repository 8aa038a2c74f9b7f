import type { Config } from './config.js'
import type { Resolver } from './security/host-check.js'
import type { Db, Dialect, HotReader } from './data/database.js'
import type { ViewCache } from './data/view-cache.js'
import type { AuthCache } from './security/auth-cache.js'
import type { RateLimiter } from './http/rate-limit.js'
import type { Clock } from './data/time.js'

/** What the platform gives every route plugin; domains add theirs (crm/deps.ts). */
export interface PlatformDeps {
  db: Db
  dialect: Dialect
  /** Point reads for hot paths (database.ts). */
  reader: HotReader
  clock: Clock
  config: Config
  rateLimiter: RateLimiter
  /** Built views by object id, shared by the resources that cache theirs. */
  views: ViewCache
  auth: AuthCache
  /** Host names to addresses, for checking a URL when it is saved (platform/security/host-check.ts); tests give their own. */
  resolve: Resolver
}
