import { Type } from '@sinclair/typebox'
import type { SmsStatus } from '../../crm/activities/activity-repo.js'
import { formatTimestamp, parseTimestamp, TIMESTAMP_EXPECTED } from '../../platform/data/time.js'

// The state machine texts and emails share (docs/decisions/0026-sms-sending.md): a draft may be scheduled (with
// `date_scheduled`) or put in the outbox (sent now, or after `send_in` seconds); a message scheduled or in the outbox
// may go back to draft, which cancels its send unless it is under way; `inbox`, `sent` and `error` keep their status.

/** A message's statuses: Close's, as texts and emails move through them. */
export type MessageStatus = SmsStatus

/** Where each status may go through PUT. */
export const TRANSITIONS: Record<MessageStatus, readonly MessageStatus[]> = {
  draft: ['scheduled', 'outbox'],
  scheduled: ['draft'],
  outbox: ['draft'],
  inbox: [],
  sent: [],
  error: [],
}

/** The statuses of a message waiting for its send. */
export const WAITING_STATUSES: readonly string[] = ['scheduled', 'outbox']

/** A cancel that came after the dispatcher took the send. */
export const TOO_LATE = 'Too late: the message is being sent right now.'

/** Why a PUT may not move a message from `from` to `to`. */
export function transitionProblem(from: MessageStatus, to: MessageStatus): string {
  const allowed = TRANSITIONS[from]
  const message = `${/^[aeiou]/.test(from) ? 'an' : 'a'} ${from} message`
  const where =
    allowed.length === 0 ? `${message} keeps its status` : `${message} can only become ${allowed.join(' or ')}`
  const how = to === 'error' ? ' (error is set when sending fails for good)' : ''
  return `Cannot change the status from ${from} to ${to}: ${where}${how}.`
}

/** When a message's send falls due: `send_in` seconds from now into the outbox, at `date_scheduled` when scheduled. */
export function sendDue(
  status: MessageStatus,
  now: Date,
  sendIn: number | null,
  dateScheduled: string | null,
): string | null {
  if (status === 'outbox') return formatTimestamp(new Date(now.getTime() + (sendIn ?? 0) * 1000))
  return status === 'scheduled' ? dateScheduled : null
}

const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()])

/** The request fields of a message's send: when it is scheduled, and the undo window of one put in the outbox. */
export const sendFields = {
  date_scheduled: Type.Optional(
    nullable(Type.String({ description: 'When to send it (status scheduled): an ISO 8601 timestamp in the future.' })),
  ),
  send_in: Type.Optional(
    nullable(
      Type.Integer({
        minimum: 0,
        maximum: 59,
        description: 'With status outbox: wait this many seconds before sending (a window to undo in).',
      }),
    ),
  ),
}

/** A union of status literals, for a request schema. */
export const statusSchema = <T extends MessageStatus>(values: readonly T[]) =>
  Type.Union(values.map((s) => Type.Literal(s)))

/** Adds a field's message unless it has one already (the first problem found is the one told). */
export function addFieldError(errors: Record<string, string>, field: string, message: string): void {
  if (!Object.hasOwn(errors, field)) errors[field] = message
}

/** A `date_scheduled` as stored, when it is a timestamp after `now`; else a message in `errors`. */
export function readDateScheduled(raw: string, now: Date, errors: Record<string, string>): string | undefined {
  const at = parseTimestamp(raw)
  if (at === undefined) {
    errors.date_scheduled = TIMESTAMP_EXPECTED
    return undefined
  }
  if (Date.parse(at) <= now.getTime()) {
    errors.date_scheduled = 'Must be in the future.'
    return undefined
  }
  return at
}

/** Whether two stored values are the same (content sent back as it is is no edit). */
export const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

/** The send a new message asks for: its `date_scheduled` (checked), with problems of it and `send_in` in `errors`. */
export function readNewSend(
  status: MessageStatus,
  body: { date_scheduled?: string | null; send_in?: number | null },
  now: Date,
  errors: Record<string, string>,
): { dateScheduled: string | null; sendIn: number | null } {
  let dateScheduled: string | null = null
  if (body.date_scheduled !== undefined && body.date_scheduled !== null) {
    if (status === 'scheduled' || status === 'draft')
      dateScheduled = readDateScheduled(body.date_scheduled, now, errors) ?? null
    else errors.date_scheduled = 'Only a scheduled message (or a draft) has a date_scheduled.'
  } else if (status === 'scheduled') errors.date_scheduled = 'Required to schedule a message.'
  if (body.send_in !== undefined && body.send_in !== null && status !== 'outbox')
    errors.send_in = 'Only with status outbox.'
  return { dateScheduled, sendIn: body.send_in ?? null }
}

/** What a PUT does to a message's status and schedule, once read: `to`, its `date_scheduled`, and `send_in`. */
export interface StatusChange {
  from: MessageStatus
  to: MessageStatus
  dateScheduled: string | null
  sendIn: number | null
}

/**
 * Reads the status move and schedule a PUT asks of a message now `before`, adding what is wrong to `errors`: a move
 * the state machine does not have, `send_in` without going to outbox, a `date_scheduled` changed on anything but a
 * draft staying draft or becoming scheduled, scheduling without a future date. Going to outbox clears the date.
 */
export function readStatusChange(
  before: { status: MessageStatus; date_scheduled: string | null },
  body: { status?: MessageStatus; date_scheduled?: string | null; send_in?: number | null },
  now: Date,
  errors: Record<string, string>,
): StatusChange {
  const from = before.status
  const to = body.status ?? from
  let dateScheduled = before.date_scheduled
  if (to !== from && !TRANSITIONS[from].includes(to)) errors.status = transitionProblem(from, to)
  const sendIn = body.send_in ?? null
  if (sendIn !== null && !(to === 'outbox' && from !== 'outbox'))
    errors.send_in = 'Only when the status becomes outbox.'
  const given = body.date_scheduled
  if (given !== undefined && !same(given && (parseTimestamp(given) ?? given), before.date_scheduled)) {
    if (from !== 'draft' || (to !== 'draft' && to !== 'scheduled'))
      errors.date_scheduled = 'Only a draft’s date_scheduled changes (with status draft or scheduled).'
    else dateScheduled = given === null ? null : (readDateScheduled(given, now, errors) ?? null)
  }
  if (to !== from && errors.status === undefined) {
    if (to === 'scheduled') {
      if (dateScheduled === null) addFieldError(errors, 'date_scheduled', 'Required to schedule a message.')
      else if (Date.parse(dateScheduled) <= now.getTime())
        addFieldError(errors, 'date_scheduled', 'Must be in the future.')
    }
    if (to === 'outbox') dateScheduled = null
  }
  return { from, to: errors.status === undefined ? to : from, dateScheduled, sendIn }
}

/** Whether a status change puts a draft on its way (scheduled or outbox): a send must be written. */
export function startsSend(change: StatusChange): boolean {
  return change.from === 'draft' && (change.to === 'scheduled' || change.to === 'outbox')
}

/** Whether a status change takes a waiting message back to draft: its send must be cancelled. */
export function stopsSend(change: StatusChange): boolean {
  return change.from !== 'draft' && change.to === 'draft'
}
