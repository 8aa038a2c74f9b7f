import type { Config } from '../config.js'
import type { ActivityTable, Db, Dialect } from '../db/database.js'
import { activityEvents, type ActivityData } from '../activities/activity-repo.js'
import { recordEvents, type EventAction, type EventContext } from '../events/event-repo.js'
import {
  recordAttempt,
  retryDelayMs,
  type HandlerContext,
  type OutboxHandler,
  type OutboxRow,
} from '../outbox/outbox-dispatcher.js'
import { outboxWritten } from '../outbox/outbox-signal.js'
import { newId } from '../platform/ids.js'
import { parseJsonObject } from '../platform/raw-json.js'
import { formatTimestamp, type Clock } from '../platform/time.js'
import type { SmsProvider } from './sms-provider.js'

// Sends are due rows in the outbox (docs/decisions/0026-sms-sending.md). A message put in `outbox` or `scheduled`
// writes an `sms_send` row due at its time, in the transaction that moved it; moving it back to draft, or deleting
// it, cancels that row in its own transaction. A cancel and the dispatcher's claim exclude each other in the
// database: a claimed row is leased, and a cancel only takes a row no live lease holds. So a cancelled send never
// goes out, whatever process restarts in between, and a send under way cannot be cancelled ("too late").

export const SMS_SEND_KIND = 'sms_send'
/** A failed send is retried for this long after it was due; then the message is `error`. */
export const SMS_RETRY_WINDOW_MS = 3_600_000
/** The longest wait between two attempts at a send. */
export const SMS_RETRY_CAP_MS = 300_000

export type SmsData = ActivityData['SMS']

/** The statuses of a message waiting for its send. */
export const WAITING_STATUSES: readonly string[] = ['scheduled', 'outbox']

/** A stored message's fields (written only by this module and the inbound endpoint, in `ActivityData['SMS']`'s shape). */
export function storedSms(row: ActivityTable): SmsData {
  return parseJsonObject(row.data) as unknown as SmsData
}

/**
 * A text message of the organization; `lock` (Postgres) holds its row to the end of the transaction, so the writes
 * of one message (a request's, the dispatcher's) follow one another, each seeing what the one before did. Both take
 * the message before its send, in that order, so they never wait on each other crosswise.
 */
export async function findSms(db: Db, organizationId: string, id: string, lock: boolean) {
  const query = db
    .selectFrom('activity')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .where('type', '=', 'SMS')
  return (lock ? query.forUpdate() : query).executeTakeFirst()
}

function orderingKey(activityId: string): string {
  return `sms:${activityId}`
}

/** Writes the message's send, due at `dueAt`, in the caller's transaction. */
export async function scheduleSend(
  tx: Db,
  input: { organizationId: string; activityId: string; dueAt: string; now: string },
): Promise<void> {
  await tx
    .insertInto('outbox')
    .values({
      id: newId('outbox'),
      organization_id: input.organizationId,
      kind: SMS_SEND_KIND,
      subscription_id: null,
      event_id: null,
      ordering_key: orderingKey(input.activityId),
      payload: JSON.stringify({ activity_id: input.activityId, due: input.dueAt }),
      status: 'pending',
      attempts: 0,
      next_attempt_at: input.dueAt,
      date_created: input.now,
      date_updated: input.now,
    })
    .execute()
  outboxWritten()
}

/** `cancelled`: its waiting send is off; `none`: it had none; `sending`: a dispatcher holds it, too late to stop. */
export type CancelOutcome = 'cancelled' | 'none' | 'sending'

/**
 * Cancels the message's send unless a live lease holds it, in the caller's transaction. On Postgres the update waits
 * for a claim of the same row to commit and then sees its lease; on SQLite the two are serialized writes.
 */
export async function cancelSend(
  tx: Db,
  input: { organizationId: string; activityId: string; now: string; reason: string },
): Promise<CancelOutcome> {
  const cancelled = await tx
    .updateTable('outbox')
    .set({ status: 'cancelled', last_error: input.reason, date_updated: input.now })
    .where('organization_id', '=', input.organizationId)
    .where('ordering_key', '=', orderingKey(input.activityId))
    .where('kind', '=', SMS_SEND_KIND)
    .where('status', '=', 'pending')
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', input.now)]))
    .executeTakeFirst()
  if (Number(cancelled.numUpdatedRows) > 0) return 'cancelled'
  const held = await tx
    .selectFrom('outbox')
    .select('seq')
    .where('organization_id', '=', input.organizationId)
    .where('ordering_key', '=', orderingKey(input.activityId))
    .where('kind', '=', SMS_SEND_KIND)
    .where('status', '=', 'pending')
    .executeTakeFirst()
  return held === undefined ? 'none' : 'sending'
}

/** Writes a message's new fields and the event that says so, in the caller's transaction. */
export async function writeSms(
  tx: Db,
  row: ActivityTable,
  fields: { data: SmsData; contactId?: string | null },
  change: { userId: string | null; now: string; action: EventAction; events: EventContext },
): Promise<ActivityTable> {
  const after: ActivityTable = {
    ...row,
    contact_id: fields.contactId === undefined ? row.contact_id : fields.contactId,
    data: JSON.stringify(fields.data),
    updated_by: change.userId ?? row.updated_by,
    date_updated: change.now,
  }
  await tx
    .updateTable('activity')
    .set({ data: after.data, updated_by: after.updated_by, contact_id: after.contact_id, date_updated: change.now })
    .where('organization_id', '=', row.organization_id)
    .where('id', '=', row.id)
    .execute()
  const [before, event] = await activityEvents(tx, [row, after], change.action)
  if (before !== undefined && event !== undefined) {
    await recordEvents(tx, change.events, [{ ...event, previous: before.data }])
  }
  return after
}

export interface SmsSenderOptions {
  db: Db
  dialect: Dialect
  clock: Clock
  config: Pick<Config, 'sms' | 'leadWebhookUrl'>
  provider: SmsProvider
}

interface SendPayload {
  activity_id: string
  due: string
}

function sendPayload(row: OutboxRow): SendPayload {
  const payload = parseJsonObject(row.payload)
  return {
    activity_id: typeof payload.activity_id === 'string' ? payload.activity_id : '',
    due: typeof payload.due === 'string' ? payload.due : row.date_created,
  }
}

/**
 * The dispatcher's handler of `sms_send` rows: it re-reads the message, sends it only if it still waits for a send
 * (a cancel would have taken the row, so a waiting message waits for this one), calls the provider, and records the
 * outcome in one transaction with the attempt: `sent` with `date_sent`, or the failure in `send_attempts` and a
 * retry, or, once the retry window has passed, `error` with `error_message`.
 */
export function smsSendHandler(options: SmsSenderOptions): (context: HandlerContext) => OutboxHandler {
  const { db, clock, config, provider } = options
  const lock = options.dialect === 'postgres'
  return ({ owner, timeoutMs, random }) => {
    const systemEvents = (organizationId: string, now: string): EventContext => ({
      organizationId,
      userId: null,
      requestId: null,
      apiKeyId: null,
      now,
      leadWebhookEnvUrl: config.leadWebhookUrl,
    })

    function retryAt(due: string, attempt: number, now: Date): string | null {
      const deadline = Date.parse(due) + SMS_RETRY_WINDOW_MS
      if (now.getTime() >= deadline) return null
      const delay = retryDelayMs(attempt, config.sms.retrySeconds * 1000, SMS_RETRY_CAP_MS, random())
      return formatTimestamp(new Date(Math.min(now.getTime() + delay, deadline)))
    }

    /** The message, when it still waits for its send; else the row is settled as cancelled. */
    async function waitingMessage(row: OutboxRow, activityId: string): Promise<ActivityTable | undefined> {
      return db.transaction().execute(async (tx) => {
        const message = await findSms(tx, row.organization_id, activityId, lock)
        if (message !== undefined && WAITING_STATUSES.includes(storedSms(message).status)) return message
        await tx
          .updateTable('outbox')
          .set({
            status: 'cancelled',
            last_error: 'The message no longer waits to be sent.',
            lease_until: null,
            date_updated: formatTimestamp(clock.now()),
          })
          .where('seq', '=', row.seq)
          .where('lease_owner', '=', owner)
          .execute()
        return undefined
      })
    }

    return async (row) => {
      const { activity_id: activityId, due } = sendPayload(row)
      const message = await waitingMessage(row, activityId)
      if (message === undefined) return false
      const data = storedSms(message)
      const result = await provider.send(
        {
          id: message.id,
          sendId: row.id,
          organizationId: row.organization_id,
          from: data.local_phone ?? '',
          to: data.remote_phone ?? '',
          text: data.text,
          attachments: data.attachments,
        },
        { timeoutMs, timestampSeconds: Math.floor(clock.now().getTime() / 1000) },
      )
      const now = clock.now()
      const at = formatTimestamp(now)
      const nextAt = result.ok ? null : retryAt(due, row.attempts + 1, now)
      await db.transaction().execute(async (tx) => {
        const current = await findSms(tx, row.organization_id, activityId, lock)
        if (!(await recordAttempt(tx, row, owner, { url: provider.target, result, nextAt, at }))) return
        if (current === undefined) return
        const before = storedSms(current)
        if (!WAITING_STATUSES.includes(before.status)) return
        const error = result.error ?? 'The provider refused the message.'
        const attempts = result.ok ? before.send_attempts : [...before.send_attempts, { date: at, error }]
        const after: SmsData = result.ok
          ? { ...before, status: 'sent', date_sent: at, activity_at: at, error_message: null }
          : nextAt === null
            ? { ...before, status: 'error', error_message: error, send_attempts: attempts }
            : { ...before, status: 'outbox', send_attempts: attempts }
        const events = systemEvents(row.organization_id, at)
        await writeSms(
          tx,
          current,
          { data: after },
          { userId: null, now: at, action: result.ok ? 'sent' : 'updated', events },
        )
      })
      return true
    }
  }
}
