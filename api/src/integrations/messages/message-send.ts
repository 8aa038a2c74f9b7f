import type { ActivityTable, Db, Dialect } from '../../platform/data/database.js'
import { activityEvents, type ActivityData } from '../../crm/activities/activity-repo.js'
import { recordEvents, type EventAction, type EventContext } from '../events/event-repo.js'
import type { OutboundResult } from '../outbound/outbound-client.js'
import {
  leaseHeld,
  recordAttempt,
  retryDelayMs,
  type HandlerContext,
  type OutboxHandler,
  type OutboxRow,
} from '../outbox/outbox-dispatcher.js'
import { enqueueDelivery, outboxSink } from '../outbox/outbox-writer.js'
import { sendDeadline, type SendDeadline } from '../outbound/send-deadline.js'
import { parseJsonObject } from '../../platform/http/raw-json.js'
import { formatTimestamp, type Clock } from '../../platform/data/time.js'
import { HttpError, ValidationError } from '../../platform/http/errors.js'
import { TOO_LATE, WAITING_STATUSES } from './message-status.js'

// Sends are due rows in the outbox (docs/decisions/0026-sms-sending.md), for texts and emails alike. A message put in
// `outbox` or `scheduled` writes a send row due at its time, in the transaction that moved it; moving it back to
// draft, or deleting it, cancels that row in its own transaction. A cancel and the dispatcher's claim exclude each
// other in the database: a claimed row is leased, and a cancel only takes a row no live lease holds. So a cancelled
// send never goes out, whatever process restarts in between, and a send under way cannot be cancelled ("too late").

/** The activity types that are sent, and the fields of theirs the sending writes. */
export type MessageType = 'SMS' | 'Email'
export type MessageData<T extends MessageType> = ActivityData[T]

/** A kind of send: its activity type, the outbox `kind` of its rows, and the prefix of their ordering keys. */
export interface SendChannel<T extends MessageType = MessageType> {
  type: T
  kind: string
  /** `sms`: a message's send rows have the ordering key `sms:<activity id>`. */
  prefix: string
}

/** A stored message's fields (written only by its channel's modules and incoming messages, in the type's shape). */
export function storedMessage<T extends MessageType>(row: ActivityTable): MessageData<T> {
  return parseJsonObject(row.data) as unknown as MessageData<T>
}

/**
 * A message of the organization; `lock` (Postgres) holds its row to the end of the transaction, so the writes of one
 * message (a request's, the dispatcher's) follow one another, each seeing what the one before did. Both take the
 * message before its send, in that order, so they never wait on each other crosswise.
 */
export async function findMessage(db: Db, type: MessageType, organizationId: string, id: string, lock: boolean) {
  const query = db
    .selectFrom('activity')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .where('type', '=', type)
  return (lock ? query.forUpdate() : query).executeTakeFirst()
}

function orderingKey(channel: SendChannel, activityId: string): string {
  return `${channel.prefix}:${activityId}`
}

/** Writes the message's send, due at `dueAt`, in the caller's transaction. */
export async function scheduleSend(
  tx: Db,
  channel: SendChannel,
  input: { organizationId: string; activityId: string; dueAt: string; now: string },
): Promise<void> {
  await enqueueDelivery(tx, {
    organizationId: input.organizationId,
    kind: channel.kind,
    orderingKey: orderingKey(channel, input.activityId),
    payload: JSON.stringify({ activity_id: input.activityId, due: input.dueAt }),
    dueAt: input.dueAt,
    now: input.now,
  })
}

/** `cancelled`: its waiting send is off; `none`: it had none; `sending`: a dispatcher holds it, too late to stop. */
export type CancelOutcome = 'cancelled' | 'none' | 'sending'

/**
 * Cancels the message's send unless a live lease holds it, in the caller's transaction. On Postgres the update waits
 * for a claim of the same row to commit and then sees its lease; on SQLite the two are serialized writes.
 */
export async function cancelSend(
  tx: Db,
  channel: SendChannel,
  input: { organizationId: string; activityId: string; now: string; reason: string },
): Promise<CancelOutcome> {
  const pending = () =>
    tx
      .updateTable('outbox')
      .where('organization_id', '=', input.organizationId)
      .where('ordering_key', '=', orderingKey(channel, input.activityId))
      .where('kind', '=', channel.kind)
      .where('status', '=', 'pending')
  const cancelled = await pending()
    .set({ status: 'cancelled', last_error: input.reason, date_updated: input.now })
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', input.now)]))
    .executeTakeFirst()
  if (Number(cancelled.numUpdatedRows) > 0) return 'cancelled'
  const held = await tx
    .selectFrom('outbox')
    .select('seq')
    .where('organization_id', '=', input.organizationId)
    .where('ordering_key', '=', orderingKey(channel, input.activityId))
    .where('kind', '=', channel.kind)
    .where('status', '=', 'pending')
    .executeTakeFirst()
  return held === undefined ? 'none' : 'sending'
}

/** Writes a message's new fields and the event that says so, in the caller's transaction. */
export async function writeMessage<T extends MessageType>(
  tx: Db,
  row: ActivityTable,
  fields: { data: MessageData<T>; contactId?: string | null; threadId?: string | null },
  change: { userId: string | null; now: string; action: EventAction; events: EventContext },
): Promise<ActivityTable> {
  const after: ActivityTable = {
    ...row,
    contact_id: fields.contactId === undefined ? row.contact_id : fields.contactId,
    thread_id: fields.threadId === undefined ? row.thread_id : fields.threadId,
    data: JSON.stringify(fields.data),
    updated_by: change.userId ?? row.updated_by,
    date_updated: change.now,
  }
  await tx
    .updateTable('activity')
    .set({
      data: after.data,
      updated_by: after.updated_by,
      contact_id: after.contact_id,
      thread_id: after.thread_id,
      date_updated: change.now,
    })
    .where('organization_id', '=', row.organization_id)
    .where('id', '=', row.id)
    .execute()
  const [before, event] = await activityEvents(tx, [row, after], change.action)
  if (before !== undefined && event !== undefined) {
    await recordEvents(tx, change.events, [{ ...event, previous: before.data }])
  }
  return after
}

/**
 * How a failed send is retried: from `baseMs`, doubling, up to `capMs` (±25 %), for `windowMs` after the send was
 * due and at most `maxAttempts` attempts in all (either may be left out); then the message has failed for good.
 */
export interface RetryPolicy {
  baseMs: number
  capMs: number
  windowMs?: number
  maxAttempts?: number
}

/** When attempt `attempt + 1` of a send due at `due` is made, or null when `attempt` was the last. */
export function retryAt(policy: RetryPolicy, due: string, attempt: number, now: Date, random: number): string | null {
  if (policy.maxAttempts !== undefined && attempt >= policy.maxAttempts) return null
  const deadline = policy.windowMs === undefined ? Infinity : Date.parse(due) + policy.windowMs
  if (now.getTime() >= deadline) return null
  const delay = retryDelayMs(attempt, policy.baseMs, policy.capMs, random)
  return formatTimestamp(new Date(Math.min(now.getTime() + delay, deadline)))
}

/** What one attempt at a send came to. `final`: a failure no retry can mend (the message fails at once). */
export interface SendAttempt<T extends MessageType> {
  result: OutboundResult
  /** Where it went, as the attempt's record names it (a gateway's URL, `log:`, `smtp://host:port`). */
  target: string
  final?: boolean
  /** Fields of the channel's the message takes once sent (an email's Message-ID). */
  sentFields?: Partial<MessageData<T>>
}

/** What an attempt came to, as the handler tells a channel's `after`. */
export interface SendSettlement {
  /** `sent`, `retry` (still in the outbox) or `failed` (the message is `error`). */
  outcome: 'sent' | 'retry' | 'failed'
  error: string
  at: string
  events: EventContext
}

export interface MessageSenderOptions<T extends MessageType> {
  db: Db
  dialect: Dialect
  clock: Clock
  channel: SendChannel<T>
  retry: RetryPolicy
  leadWebhookUrl: string | null
  /**
   * Makes one attempt at the message (outside any transaction, under the row's lease), every step of it within
   * `deadline`: what it has not done by then it breaks off, as a failure.
   */
  send(message: ActivityTable, context: { row: OutboxRow; deadline: SendDeadline }): Promise<SendAttempt<T>>
  /** Runs after the message's new state is written, in the same transaction (an email's follow-up task). */
  after?(tx: Db, message: ActivityTable, settlement: SendSettlement): Promise<void>
}

/** The message's fields after an attempt, for the fields every channel has. */
function settledFields<T extends MessageType>(before: MessageData<T>, s: SendSettlement): MessageData<T> {
  if (s.outcome === 'sent')
    return { ...before, status: 'sent', date_sent: s.at, activity_at: s.at, error_message: null }
  const send_attempts = [...before.send_attempts, { date: s.at, error: s.error }]
  return s.outcome === 'failed'
    ? { ...before, status: 'error', error_message: s.error, send_attempts }
    : { ...before, status: 'outbox', send_attempts }
}

function sendPayload(row: OutboxRow): { activityId: string; due: string } {
  const payload = parseJsonObject(row.payload)
  return {
    activityId: typeof payload.activity_id === 'string' ? payload.activity_id : '',
    due: typeof payload.due === 'string' ? payload.due : row.date_created,
  }
}

/**
 * The dispatcher's handler of a channel's send rows: it re-reads the message, sends it only if it still waits for a
 * send (a cancel would have taken the row, so a waiting message waits for this one), makes the attempt, and records
 * the outcome in one transaction with the attempt: `sent` with `date_sent` (event action `sent`), or the failure in
 * `send_attempts` and a retry, or, once the retries are used up (or the failure is final), `error` with
 * `error_message`.
 */
export function messageSendHandler<T extends MessageType>(
  options: MessageSenderOptions<T>,
): (context: HandlerContext) => OutboxHandler {
  const { db, clock, channel } = options
  const lock = options.dialect === 'postgres'
  const sink = outboxSink(options.leadWebhookUrl)
  return ({ owner, sendTimeoutMs, random, leaseLost }) => {
    const systemEvents = (organizationId: string, now: string): EventContext => ({
      organizationId,
      userId: null,
      requestId: null,
      apiKeyId: null,
      now,
      sink,
    })

    /** The message, when it still waits for its send; else the row is settled as cancelled. */
    async function waitingMessage(row: OutboxRow, activityId: string): Promise<ActivityTable | undefined> {
      return db.transaction().execute(async (tx) => {
        const message = await findMessage(tx, channel.type, row.organization_id, activityId, lock)
        if (message !== undefined && WAITING_STATUSES.includes(storedMessage<T>(message).status)) return message
        await tx
          .updateTable('outbox')
          .set({
            status: 'cancelled',
            last_error: 'The message no longer waits to be sent.',
            lease_until: null,
            date_updated: formatTimestamp(clock.now()),
          })
          .where('seq', '=', row.seq)
          .where(leaseHeld(row, owner))
          .execute()
        return undefined
      })
    }

    return async (row) => {
      // The deadline runs from the start of the delivery, just after the claim: reading the message counts too.
      const deadline = sendDeadline(sendTimeoutMs)
      const { activityId, due } = sendPayload(row)
      const message = await waitingMessage(row, activityId)
      if (message === undefined) return false
      const attempt = await options.send(message, { row, deadline })
      const { result } = attempt
      const now = clock.now()
      const at = formatTimestamp(now)
      const nextAt =
        result.ok || attempt.final === true ? null : retryAt(options.retry, due, row.attempts + 1, now, random())
      const held = await db.transaction().execute(async (tx) => {
        const current = await findMessage(tx, channel.type, row.organization_id, activityId, lock)
        // A lease lost (another claim took the send, or it was cancelled) records nothing: the message is theirs.
        if (!(await recordAttempt(tx, row, owner, { url: attempt.target, result, nextAt, at }))) return false
        if (current === undefined) return true
        const before = storedMessage<T>(current)
        if (!WAITING_STATUSES.includes(before.status)) return true
        const settlement: SendSettlement = {
          outcome: result.ok ? 'sent' : nextAt === null ? 'failed' : 'retry',
          error: result.error ?? 'The message was refused.',
          at,
          events: systemEvents(row.organization_id, at),
        }
        const extra = result.ok ? (attempt.sentFields ?? {}) : {}
        const written = await writeMessage(
          tx,
          current,
          { data: { ...settledFields(before, settlement), ...extra } },
          { userId: null, now: at, action: result.ok ? 'sent' : 'updated', events: settlement.events },
        )
        if (options.after !== undefined) await options.after(tx, written, settlement)
        return true
      })
      if (!held) leaseLost(row, result.ok ? 'sent' : (result.error ?? 'failed'))
      return true
    }
  }
}

/**
 * Cancels the send a message waits for, as it goes back to draft (`draft`: too late is a 400 on `status`) or is
 * deleted (`deleted`: too late is a plain 400), in the caller's transaction.
 */
export async function stopSend(
  tx: Db,
  channel: SendChannel,
  row: ActivityTable,
  input: { now: string; why: 'draft' | 'deleted' },
): Promise<void> {
  const outcome = await cancelSend(tx, channel, {
    organizationId: row.organization_id,
    activityId: row.id,
    now: input.now,
    reason:
      input.why === 'draft' ? 'Cancelled: the message went back to draft.' : 'Cancelled: the message was deleted.',
  })
  if (outcome !== 'sending') return
  throw input.why === 'draft' ? ValidationError.field('status', TOO_LATE) : new HttpError(400, TOO_LATE)
}
