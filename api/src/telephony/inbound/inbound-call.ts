import { TASK_TYPE_FIELDS, type TaskType } from '@leadline/shared/task-schema'
import { findActivity } from '../../crm/activities/activity-repo.js'
import {
  callData,
  callDataOf,
  changeCall,
  isCallEnded,
  nextCallStatus,
  recordCall,
  type CallData,
  type CallFields,
} from '../calls/call-repo.js'
import { isHttpsUrl } from '../../platform/text/text.js'
import type { InboundAnswer, InboundCallBody } from './inbound-input.js'
import { assigneeOf, claimReceipt, claimRef, updateRef } from './inbound-repo.js'
import {
  answered,
  checkPhones,
  insertIncomingTask,
  partyOf,
  retypeIncomingTask,
  throwIfAny,
  type InboundPhones,
  type InboundWrite,
} from './inbound-store.js'
import { formatPhoneNumber } from '../../platform/text/phone-format.js'

/**
 * The task an inbound call that is over calls for: a voicemail's; a missed call's when it was not answered (no
 * answer, busy, cancelled, failed, timed out, or completed without being answered); for an answered call, one only
 * when its number was tied to no contact (`answered_detached_call`). Outbound calls and calls under way make none.
 */
export function taskOfCall(call: CallData, fromUnknownNumber: boolean): TaskType | undefined {
  if (call.direction !== 'inbound' || !isCallEnded(call.status)) return undefined
  if (call.voicemail_url !== null) return 'voicemail'
  const answeredCall = call.status === 'completed' && (call.disposition === 'answered' || call.duration > 0)
  if (!answeredCall) return 'missed_call'
  return fromUnknownNumber ? 'answered_detached_call' : undefined
}

/** The fields of a call's task (its type's, TASK_TYPE_FIELDS), from the call and the number it came in on. */
function callTaskData(type: TaskType, call: CallData, phones: InboundPhones): Record<string, unknown> {
  const remote = call.remote_phone ?? phones.remote
  const known: Record<string, unknown> = {
    phone: remote,
    phone_formatted: formatPhoneNumber(remote),
    local_phone: call.local_phone,
    phone_number_description: phones.local.label,
    recording_url: call.recording_url,
    voicemail_url: call.voicemail_url,
    voicemail_duration: call.voicemail_duration,
  }
  return Object.fromEntries(TASK_TYPE_FIELDS[type].map((field) => [field, known[field] ?? null]))
}

/** What a report says of a call beyond its status, each only when the report gives it. */
function reportedFields(body: InboundCallBody): CallFields {
  const fields: CallFields = {}
  if (body.disposition !== undefined) fields.disposition = body.disposition
  if (body.duration !== undefined) fields.duration = body.duration
  if (body.recording_url !== undefined) fields.recording_url = body.recording_url
  if (body.voicemail_url !== undefined) fields.voicemail_url = body.voicemail_url
  if (body.voicemail_duration !== undefined) fields.voicemail_duration = body.voicemail_duration
  return fields
}

/**
 * Stores a report of a call from the telephony side. Its first report of a call `id` stores a `Call` on the lead of
 * the contact with the other party's number (a new lead for an unknown number); later ones update that call. When
 * the call is over, the task it calls for (`taskOfCall`) is made once, assigned to the user on the call, else the
 * number's owner, else the first admin; a voicemail reported after the end turns the open missed call task into the
 * voicemail's. A call `in-progress` counts as its user's active call until its end is
 * reported. A repeated `webhook-id` stores nothing and is answered as the first was.
 */
export async function storeCall(w: InboundWrite, body: InboundCallBody): Promise<InboundAnswer> {
  const organizationId = w.organization.organization.id
  const errors: Record<string, string> = {}
  const phones = await checkPhones(w, body, errors)
  for (const field of ['recording_url', 'voicemail_url'] as const) {
    const url = body[field]
    if (url !== undefined && url !== null && !isHttpsUrl(url)) errors[field] = 'Enter an https:// URL.'
  }
  const reportedUser = body.user_id ?? undefined
  if (reportedUser !== undefined && !w.organization.memberNames.has(reportedUser)) {
    errors.user_id = 'Not a member of this organization.'
  }
  throwIfAny(errors)
  if (phones === undefined) throw new Error('unreachable: errors were thrown')

  const repeat = await claimReceipt(w.tx, organizationId, w.webhookId, w.now)
  if (repeat !== undefined) return repeat
  const key = { organizationId, kind: 'call' as const, providerId: body.id }
  const reported = await claimRef(w.tx, w.dialect, key, w.now)
  const owner = phones.local.user_id
  // The user on the call: the one reported (now or before), else the number's owner while a member.
  const onCall =
    reportedUser ?? reported?.user_id ?? (owner !== null && w.organization.memberNames.has(owner) ? owner : null)
  const assignee = assigneeOf(w.organization, onCall ?? owner)

  let call: CallData
  let activityId: string
  let leadId: string
  let contactId: string | null
  let fromUnknownNumber: boolean
  if (reported === undefined) {
    const party = await partyOf(w, phones.remote, 'office', assignee)
    const fields: CallFields = {
      ...reportedFields(body),
      direction: body.direction ?? 'inbound',
      status: body.status,
      remote_phone: phones.remote,
      local_phone: phones.local.number,
      call_method: 'regular',
      provider_call_id: body.id,
    }
    call = callData(fields, w.now)
    activityId = await recordCall(
      w.tx,
      { organizationId, leadId: party.leadId, contactId: party.contactId, userId: assignee, now: w.now, call: fields },
      w.events,
    )
    ;({ leadId, contactId } = party)
    fromUnknownNumber = party.newLead
  } else {
    const current =
      reported.activity_id === null ? undefined : await findActivity(w.tx, organizationId, reported.activity_id)
    if (current === undefined) throw new Error(`inbound call ${body.id} has no activity`)
    const status = nextCallStatus(callDataOf(current).status, body.status)
    const updated = await changeCall(
      w.tx,
      current,
      { ...(reportedUser === undefined ? {} : { userId: reportedUser }), call: { ...reportedFields(body), status } },
      { userId: reportedUser ?? current.user_id ?? assignee, now: w.now, events: w.events },
    )
    call = callDataOf(updated)
    ;({ id: activityId, lead_id: leadId, contact_id: contactId } = updated)
    fromUnknownNumber = reported.new_lead === 1
  }

  let taskId = reported?.task_id ?? null
  const taskType = taskOfCall(call, fromUnknownNumber)
  if (taskId !== null && taskType === 'voicemail') {
    // The voicemail came after the end was reported: the missed call's task, still open, becomes the voicemail's.
    await retypeIncomingTask(w, taskId, {
      from: 'missed_call',
      to: 'voicemail',
      data: callTaskData('voicemail', call, phones),
    })
  } else if (taskId === null && taskType !== undefined) {
    taskId = await insertIncomingTask(w, {
      type: taskType,
      leadId,
      contactId,
      assignedTo: assignee,
      objectId: activityId,
      data: callTaskData(taskType, call, phones),
    })
  }
  await updateRef(w.tx, key, {
    activity_id: activityId,
    task_id: taskId,
    new_lead: fromUnknownNumber ? 1 : 0,
    in_progress: call.status === 'in-progress' ? 1 : 0,
    user_id: onCall,
    date_updated: w.now,
  })
  return answered(w, { activity_id: activityId, lead_id: leadId, task_id: taskId })
}
