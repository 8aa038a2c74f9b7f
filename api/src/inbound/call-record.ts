import {
  activityNames,
  activityObjectType,
  activityView,
  recordActivity,
  type ActivityData,
  type CallStatus,
} from '../activities/activity-repo.js'
import type { ActivityTable, Db } from '../db/database.js'
import { recordEvents, type EventContext } from '../events/event-repo.js'
import { parseJsonObject } from '../platform/raw-json.js'

// Storing calls: the stored fields of a `Call` (ActivityData['Call'], the contract with `/activity/call/`), written
// with its events. The inbound endpoint stores what the telephony reports through these.

export type CallData = ActivityData['Call']

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

/** A call's stored fields from what is known of it; what is not known is stored as Close stores it. */
export function newCallData(
  known: Pick<CallData, 'direction' | 'status' | 'remote_phone' | 'local_phone' | 'activity_at'> & Partial<CallData>,
): CallData {
  return {
    disposition: null,
    duration: 0,
    note: null,
    phone: known.remote_phone,
    recording_url: null,
    voicemail_url: null,
    voicemail_duration: 0,
    source: 'External',
    call_method: 'external',
    outcome_id: null,
    provider_call_id: null,
    ...known,
  }
}

/** Records a call on a lead, and its `activity.call` event in the same transaction; answers its id. */
export async function recordCall(
  tx: Db,
  call: { organizationId: string; leadId: string; contactId: string | null; userId: string; now: string },
  data: CallData,
  events: EventContext,
): Promise<string> {
  return recordActivity(tx, { ...call, type: 'Call', data }, events)
}

/** A stored call's fields. */
export function callDataOf(row: ActivityTable): CallData {
  // Written only through newCallData, so every field is there.
  return parseJsonObject(row.data) as unknown as CallData
}

/**
 * Changes a stored call's fields (and its user, when given) and records its `updated` event with the call as it was;
 * a change that changes nothing writes nothing. Answers the row as it is now.
 */
export async function updateCall(
  tx: Db,
  current: ActivityTable,
  changes: Partial<CallData>,
  userId: string | undefined,
  events: EventContext,
): Promise<ActivityTable> {
  const data: CallData = { ...callDataOf(current), ...changes }
  const user = userId ?? current.user_id
  const text = JSON.stringify(data)
  if (text === JSON.stringify(callDataOf(current)) && user === current.user_id) return current
  const updated: ActivityTable = { ...current, data: text, user_id: user, updated_by: user, date_updated: events.now }
  await tx
    .updateTable('activity')
    .set({ data: text, user_id: user, updated_by: user, date_updated: events.now })
    .where('organization_id', '=', current.organization_id)
    .where('id', '=', current.id)
    .execute()
  const names = await activityNames(tx, [current, updated])
  await recordEvents(tx, events, [
    {
      objectType: activityObjectType('Call'),
      objectId: current.id,
      action: 'updated',
      leadId: current.lead_id,
      data: activityView(updated, names),
      previous: activityView(current, names),
    },
  ])
  return updated
}
