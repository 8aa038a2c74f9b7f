import type { Db } from '../platform/data/database.js'
import { formatTimestamp, type Clock } from '../platform/data/time.js'

const DAY_MS = 86_400_000
/** How long an ended session's key is kept (it shows nowhere; kept a while for whoever looks into an incident). */
export const ENDED_SESSION_DAYS = 30

/**
 * Deletes the keys of sessions that ended (revoked, or past their expiry) over ENDED_SESSION_DAYS ago: every sign-in
 * makes one, so without this the table would only grow. Answers how many went.
 */
export async function purgeEndedSessionKeys(db: Db, clock: Clock): Promise<number> {
  const before = formatTimestamp(new Date(clock.now().getTime() - ENDED_SESSION_DAYS * DAY_MS))
  const result = await db
    .deleteFrom('api_key')
    .where('kind', '=', 'session')
    .where((eb) => eb.or([eb('date_revoked', '<', before), eb('date_expires', '<', before)]))
    .executeTakeFirst()
  return Number(result.numDeletedRows)
}
