import type { Db } from '../../platform/data/database.js'
import { formatTimestamp, type Clock } from '../../platform/data/time.js'

const DAY_MS = 86_400_000
const DONE = ['delivered', 'cancelled']

/**
 * Deletes deliveries that were made (or cancelled) over `days` days ago, with their attempts; answers how many went.
 * Failed deliveries are kept, for the operator to look into.
 */
export async function purgeDeliveredOutbox(db: Db, clock: Clock, days: number): Promise<number> {
  const before = formatTimestamp(new Date(clock.now().getTime() - days * DAY_MS))
  // Two statements, no transaction around them (each is atomic, and a purge must not hold SQLite's write lock across
  // turns of the event loop): no row can become old enough in between, since a row changed now is dated now.
  const old = db.selectFrom('outbox').select('id').where('status', 'in', DONE).where('date_updated', '<', before)
  await db.deleteFrom('outbox_attempt').where('outbox_id', 'in', old).execute()
  const result = await db
    .deleteFrom('outbox')
    .where('status', 'in', DONE)
    .where('date_updated', '<', before)
    .executeTakeFirst()
  return Number(result.numDeletedRows)
}
