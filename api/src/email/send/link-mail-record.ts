import type { Config } from '../../platform/config.js'
import type { Db } from '../../platform/data/database.js'
import { formatTimestamp, type Clock } from '../../platform/data/time.js'
import { parseJsonObject } from '../../platform/http/raw-json.js'
import {
  recordAttempt,
  retryDelayMs,
  type HandlerContext,
  type OutboxRow,
} from '../../integrations/outbox/outbox-dispatcher.js'
import { EMAIL_RETRY_CAP_MS } from './email-send.js'

/** Records one attempt at sending a link's email: `target` where it went, `error` null when it was sent. */
export type LinkMailRecorder = (
  row: OutboxRow,
  target: string,
  error: string | null,
  final: boolean,
  durationMs: number,
) => Promise<void>

/**
 * How the handlers of emails that carry a single-use link (an address's verification, an invitation, a password
 * reset) record an attempt: retried as emails are (LEADLINE_EMAIL_RETRY_SECONDS, _MAX_ATTEMPTS), and once the row
 * is settled its `token` is blanked, so the token lives in the database only until the email was sent or cannot be.
 */
export function linkMailRecorder(
  db: Db,
  clock: Clock,
  email: Config['email'],
  context: HandlerContext,
): LinkMailRecorder {
  return async (row, target, error, final, durationMs) => {
    const now = clock.now()
    const attempt = row.attempts + 1
    const retry = error !== null && !final && attempt < email.maxAttempts
    const nextAt = retry
      ? formatTimestamp(
          new Date(
            now.getTime() + retryDelayMs(attempt, email.retrySeconds * 1000, EMAIL_RETRY_CAP_MS, context.random()),
          ),
        )
      : null
    await db.transaction().execute(async (tx) => {
      const result = { ok: error === null, statusCode: null, durationMs, error }
      const settled = await recordAttempt(tx, row, context.owner, {
        url: target,
        result,
        nextAt,
        at: formatTimestamp(now),
      })
      if (!settled) {
        context.leaseLost(row, error ?? 'sent')
        return
      }
      if (nextAt !== null) return
      await tx
        .updateTable('outbox')
        .set({ payload: JSON.stringify({ ...parseJsonObject(row.payload), token: null }) })
        .where('seq', '=', row.seq)
        .execute()
    })
  }
}
