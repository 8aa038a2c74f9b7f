import type { Db } from '../../platform/data/database.js'
import { formatTimestamp, type Clock } from '../../platform/data/time.js'

// Archived system tasks (calls, emails, texts, due opportunities) pile up with nobody to look at them again; lead
// tasks are someone's own record of work done, and stay.

const DAY_MS = 86_400_000

/**
 * Deletes, in every organization, the completed tasks other than lead tasks completed more than `days` days before
 * now; answers how many went. Stored timestamps share one text form, so comparing the text compares the instants.
 */
export async function purgeArchivedTasks(db: Db, clock: Clock, days: number): Promise<number> {
  const before = formatTimestamp(new Date(clock.now().getTime() - days * DAY_MS))
  const result = await db
    .deleteFrom('task')
    .where('is_complete', '=', 1)
    .where('date_completed', '<', before)
    .where('type', '<>', 'lead')
    .executeTakeFirst()
  return Number(result.numDeletedRows)
}
