import type { ActivityTable, Db } from '../../platform/data/database.js'
import { recordEvents, type EventContext } from '../../integrations/events/event-repo.js'
import { parseJsonObject } from '../../platform/http/raw-json.js'
import {
  activityEvents,
  findActivity,
  recordActivity,
  type ActivityData,
  type CallStatus,
  type PhoneDirection,
} from '../../crm/activities/activity-repo.js'

/** How a call ended, as Close names it. */
export const CALL_DISPOSITIONS = ['answered', 'no-answer', 'busy', 'vm-answer', 'vm-left', 'blocked', 'error'] as const

export type CallData = ActivityData['Call']

/** A call's own fields as its writer knows them; what is left out takes its default (see `recordCall`). */
export interface CallFields {
  direction?: PhoneDirection
  status?: CallStatus
  disposition?: string | null
  duration?: number
  note?: string | null
  /** E.164; stored as both `remote_phone` and Close's older `phone`. */
  remote_phone?: string | null
  local_phone?: string | null
  recording_url?: string | null
  voicemail_url?: string | null
  voicemail_duration?: number
  source?: CallData['source']
  call_method?: CallData['call_method']
  outcome_id?: string | null
  activity_at?: string
  provider_call_id?: string | null
}

/** A call to store, its input already validated (the routes and the inbound endpoint check theirs). */
export interface NewCall {
  organizationId: string
  leadId: string
  contactId: string | null
  /** Whose call it is. */
  userId: string
  /** Who logged it; `userId` unless given. */
  createdBy?: string
  /** Who wrote it (the caller); `userId` unless given. */
  updatedBy?: string
  now: string
  call: CallFields
}

/** A call's stored fields: `fields` over the defaults of a completed outbound call logged by hand at `now`. */
export function callData(fields: CallFields, now: string): CallData {
  const remote = fields.remote_phone ?? null
  return {
    direction: fields.direction ?? 'outbound',
    status: fields.status ?? 'completed',
    disposition: fields.disposition ?? null,
    duration: fields.duration ?? 0,
    note: fields.note ?? null,
    phone: remote,
    remote_phone: remote,
    local_phone: fields.local_phone ?? null,
    recording_url: fields.recording_url ?? null,
    voicemail_url: fields.voicemail_url ?? null,
    voicemail_duration: fields.voicemail_duration ?? 0,
    source: fields.source ?? 'External',
    call_method: fields.call_method ?? 'external',
    outcome_id: fields.outcome_id ?? null,
    activity_at: fields.activity_at ?? now,
    provider_call_id: fields.provider_call_id ?? null,
  }
}

/**
 * Stores a Call and, given an event context, its `activity.call` created event, in the caller's transaction.
 * Returns the new activity's id.
 */
export async function recordCall(tx: Db, input: NewCall, events: EventContext | null): Promise<string> {
  const { call, ...activity } = input
  return recordActivity(tx, { ...activity, type: 'Call', data: callData(call, input.now) }, events)
}

/** A change to a call: its own fields and, when given, its contact and whose call it is. */
export interface CallChange {
  contactId?: string | null
  userId?: string
  call: Omit<CallFields, 'remote_phone'>
}

const END_STATUSES: ReadonlySet<string> = new Set(['completed', 'cancel', 'no-answer', 'busy', 'failed', 'timeout'])

/** Whether a call in this status is over. */
export function isCallEnded(status: CallStatus): boolean {
  return END_STATUSES.has(status)
}

/** Ringing, then in progress, then over: a later report never takes a call back (reports can arrive out of order). */
function stage(status: CallStatus): number {
  if (status === 'created') return 0
  return status === 'in-progress' ? 1 : 2
}

/** The status a call has after a report of `reported`: that one, unless the call is already further along. */
export function nextCallStatus(current: CallStatus, reported: CallStatus): CallStatus {
  return stage(reported) < stage(current) ? current : reported
}

/** A stored call's fields. */
export function callDataOf(row: ActivityTable): CallData {
  // Written only through callData, so every field is there.
  return parseJsonObject(row.data) as unknown as CallData
}

/**
 * Applies `change` to a call in the caller's transaction and records its `updated` event. A change that leaves the
 * call as it was writes nothing. Returns the call's row as it is afterwards.
 */
export async function changeCall(
  tx: Db,
  row: ActivityTable,
  change: CallChange,
  writer: { userId: string; now: string; events: EventContext | null },
): Promise<ActivityTable> {
  const before = parseJsonObject(row.data)
  const data = { ...before, ...change.call }
  const contactId = change.contactId === undefined ? row.contact_id : change.contactId
  const userId = change.userId ?? row.user_id
  if (contactId === row.contact_id && userId === row.user_id && JSON.stringify(data) === JSON.stringify(before))
    return row
  await tx
    .updateTable('activity')
    .set({
      data: JSON.stringify(data),
      contact_id: contactId,
      user_id: userId,
      updated_by: writer.userId,
      date_updated: writer.now,
    })
    .where('organization_id', '=', row.organization_id)
    .where('id', '=', row.id)
    .execute()
  const after = await findActivity(tx, row.organization_id, row.id, 'Call')
  if (after === undefined) throw new Error(`The call ${row.id} vanished while it was being changed.`)
  if (writer.events !== null) {
    const [previous, event] = await activityEvents(tx, [row, after], 'updated')
    if (previous !== undefined && event !== undefined) {
      await recordEvents(tx, writer.events, [{ ...event, previous: previous.data }])
    }
  }
  return after
}
