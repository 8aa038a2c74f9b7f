import { LRUCache } from 'lru-cache'
import type { KeyOwner } from '../../platform/security/api-key-repo.js'
import type { ClientType, PresenceRecorder } from '../../platform/http/platform.js'
import type { Db } from '../../platform/data/database.js'
import { formatTimestamp, type Clock } from '../../platform/data/time.js'

// A write per request would be wasteful: one per user and client type per minute is enough for presence.
const WRITE_INTERVAL_MS = 60_000
/**
 * Users and client types whose last write is remembered. One forgotten sooner (a process seeing more users than this
 * within a minute) is only written again, once.
 */
export const PRESENCE_KEPT = 10_000

export function createPresenceRecorder(db: Db, clock: Clock): PresenceRecorder {
  const lastWritten = new LRUCache<string, number>({ max: PRESENCE_KEPT })
  return (owner, client) => {
    const now = clock.now().getTime()
    const cacheKey = `${owner.organizationId}:${owner.userId}:${client}`
    const previous = lastWritten.get(cacheKey)
    if (previous !== undefined && now - previous < WRITE_INTERVAL_MS && now >= previous) return undefined
    lastWritten.set(cacheKey, now)
    return upsertPresence(db, owner, client, formatTimestamp(new Date(now)))
  }
}

async function upsertPresence(db: Db, owner: KeyOwner, client: ClientType, lastSeen: string): Promise<void> {
  await db
    .insertInto('user_presence')
    .values({ organization_id: owner.organizationId, user_id: owner.userId, client_type: client, last_seen: lastSeen })
    .onConflict((oc) => oc.columns(['organization_id', 'user_id', 'client_type']).doUpdateSet({ last_seen: lastSeen }))
    .execute()
}

export async function listPresence(db: Db, organizationId: string) {
  return db
    .selectFrom('user_presence')
    .select(['user_id', 'client_type', 'last_seen'])
    .where('organization_id', '=', organizationId)
    .execute()
}
