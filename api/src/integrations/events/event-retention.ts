import type { Db } from '../../platform/data/database.js'
import { formatTimestamp, type Clock } from '../../platform/data/time.js'
import { AUDIT_OBJECT_TYPE } from './audit-repo.js'

const DAY_MS = 86_400_000
/** Audit entries deleted by one statement: a purge never holds the writer long (SQLite has one). */
export const AUDIT_PURGE_BATCH = 1000

/**
 * Deletes, in every organization, the events older than `days` days; answers how many went. Audit entries are
 * kept for their own time (`purgeOldAuditEntries`).
 */
export async function purgeOldEvents(db: Db, clock: Clock, days: number): Promise<number> {
  const before = formatTimestamp(new Date(clock.now().getTime() - days * DAY_MS))
  const result = await db
    .deleteFrom('event')
    .where('date_created', '<', before)
    .where('object_type', '!=', AUDIT_OBJECT_TYPE)
    .executeTakeFirst()
  return Number(result.numDeletedRows)
}

/**
 * Deletes, in every organization, the audit entries older than `days` days (LEADLINE_AUDIT_RETENTION_DAYS), in
 * batches of `batch`; answers how many went.
 */
export async function purgeOldAuditEntries(
  db: Db,
  clock: Clock,
  days: number,
  batch = AUDIT_PURGE_BATCH,
): Promise<number> {
  const before = formatTimestamp(new Date(clock.now().getTime() - days * DAY_MS))
  let deleted = 0
  for (;;) {
    const due = await db
      .selectFrom('event')
      .select('seq')
      .where('date_created', '<', before)
      .where('object_type', '=', AUDIT_OBJECT_TYPE)
      .limit(batch)
      .execute()
    if (due.length === 0) return deleted
    const result = await db
      .deleteFrom('event')
      .where(
        'seq',
        'in',
        due.map((row) => row.seq),
      )
      .executeTakeFirst()
    deleted += Number(result.numDeletedRows)
    if (due.length < batch) return deleted
  }
}
