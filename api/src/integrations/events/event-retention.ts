import type { Db } from '../../platform/data/database.js'
import { formatTimestamp, type Clock } from '../../platform/data/time.js'

const DAY_MS = 86_400_000

/** Deletes, in every organization, the events older than `days` days; answers how many went. */
export async function purgeOldEvents(db: Db, clock: Clock, days: number): Promise<number> {
  const before = formatTimestamp(new Date(clock.now().getTime() - days * DAY_MS))
  const result = await db.deleteFrom('event').where('date_created', '<', before).executeTakeFirst()
  return Number(result.numDeletedRows)
}
