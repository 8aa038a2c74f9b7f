import { LRUCache } from 'lru-cache'
import type { Db } from '../data/database.js'
import type { Clock } from '../data/time.js'
import { verifyApiKey, type KeyOwner } from './api-key-repo.js'

/** How long a verified key is trusted without asking the database again: a revocation elsewhere takes this long. */
export const AUTH_CACHE_SECONDS = 5
const MAX_KEYS = 10_000

export interface AuthCache {
  /** The owner of a presented key, or undefined for an unknown, wrong or revoked key. */
  verify(presented: string): Promise<KeyOwner | undefined>
  /** The owner of a key verified less than the trusted time ago, without asking anything; else undefined. */
  cached(presented: string): KeyOwner | undefined
  /** Forgets the verified keys whose owner matches, so this process refuses them at once (a sign-out, a revocation). */
  forget(matches: (owner: KeyOwner) => boolean): void
}

/**
 * Verified keys for a few seconds: hashing and the database lookup are most of an uncached request's cost. Only
 * keys that verified are kept, so a wrong or revoked key always reaches the database.
 */
export function createAuthCache(db: Db, clock: Clock, ttlSeconds = AUTH_CACHE_SECONDS): AuthCache {
  const ttl = ttlSeconds * 1000
  // Expiry is checked against the injected clock (lru-cache's ttl would read performance.now) and reads use peek,
  // so the key verified first is the first forgotten: lru-cache only bounds the number of keys.
  const entries = new LRUCache<string, { owner: KeyOwner; verified: number }>({ max: MAX_KEYS })
  const cached = (presented: string, now: number) => {
    const hit = entries.peek(presented)
    // A verification "in the future" means the clock stepped back: trusting it would stretch the window.
    const trusted = hit !== undefined && hit.verified <= now && now < hit.verified + ttl
    return trusted && now < (hit.owner.refusedFrom ?? Infinity) ? hit.owner : undefined
  }
  return {
    cached: (presented) => cached(presented, clock.now().getTime()),
    forget(matches) {
      const forgotten = [...entries.entries()]
        .filter(([, entry]) => matches(entry.owner))
        .map(([presented]) => presented)
      for (const presented of forgotten) entries.delete(presented)
    },
    async verify(presented) {
      const now = clock.now().getTime()
      const hit = cached(presented, now)
      if (hit !== undefined) return hit
      const owner = await verifyApiKey(db, presented, new Date(now))
      if (owner === undefined) {
        entries.delete(presented)
        return undefined
      }
      entries.set(presented, { owner, verified: now })
      return owner
    },
  }
}
