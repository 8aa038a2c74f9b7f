import type { Db } from '../db/database.js'
import { formatTimestamp, type Clock } from '../platform/time.js'

const DAY_MS = 86_400_000
const DONE = ['delivered', 'cancelled']

/**
 * Deletes deliveries that were made (or cancelled) over `days` days ago, with their attempts; answers how many went.
 * Failed deliveries are kept, for the operator to look into.
 */
export async function purgeDeliveredOutbox(db: Db, clock: Clock, days: number): Promise<number> {
  const before = formatTimestamp(new Date(clock.now().getTime() - days * DAY_MS))
  return db.transaction().execute(async (tx) => {
    const old = tx.selectFrom('outbox').select('id').where('status', 'in', DONE).where('date_updated', '<', before)
    await tx.deleteFrom('outbox_attempt').where('outbox_id', 'in', old).execute()
    const result = await tx
      .deleteFrom('outbox')
      .where('status', 'in', DONE)
      .where('date_updated', '<', before)
      .executeTakeFirst()
    return Number(result.numDeletedRows)
  })
}
