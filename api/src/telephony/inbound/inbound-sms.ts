import { findActivity, recordActivity, type SmsAttachment } from '../../crm/activities/activity-repo.js'
import { normalizeDatetime } from '../../platform/data/calendar-dates.js'
import { isHttpsUrl } from '../../platform/text/text.js'
import type { InboundAnswer, InboundSmsBody } from './inbound-input.js'
import { assigneeOf, claimReceipt, claimRef, updateRef } from './inbound-repo.js'
import { answered, checkPhones, insertIncomingTask, partyOf, throwIfAny, type InboundWrite } from './inbound-store.js'
import { formatPhoneNumber } from '../../platform/text/phone-format.js'

/**
 * Stores a text message the telephony side received: an `SMS` activity in the inbox on the lead of the contact with
 * the sender's number (a new lead for an unknown number) and an `incoming_sms` task for the owner of the number it
 * was sent to (else the first admin), with their events. A repeated `webhook-id` or message `id` stores nothing
 * and is answered as the first was.
 */
export async function storeSms(w: InboundWrite, body: InboundSmsBody): Promise<InboundAnswer> {
  const organizationId = w.organization.organization.id
  const errors: Record<string, string> = {}
  const phones = await checkPhones(w, body, errors)
  const attachments: SmsAttachment[] = (body.attachments ?? []).map((a, i) => {
    if (!isHttpsUrl(a.url)) errors[`attachments.${i}.url`] = 'Enter an https:// URL.'
    return { url: a.url, filename: a.filename, content_type: a.content_type, size: a.size ?? null }
  })
  const sentAt = body.date === undefined ? w.now : normalizeDatetime(body.date.trim())
  if (sentAt === undefined) errors.date = 'Enter an ISO 8601 timestamp.'
  throwIfAny(errors)
  if (phones === undefined || sentAt === undefined) throw new Error('unreachable: errors were thrown')

  const repeat = await claimReceipt(w.tx, organizationId, w.webhookId, w.now)
  if (repeat !== undefined) return repeat
  const key = { organizationId, kind: 'sms' as const, providerId: body.id }
  const reported = await claimRef(w.tx, w.dialect, key, w.now)
  if (reported !== undefined) {
    const activity =
      reported.activity_id === null ? undefined : await findActivity(w.tx, organizationId, reported.activity_id)
    if (activity === undefined) throw new Error(`inbound message ${body.id} has no activity`)
    return answered(w, { activity_id: activity.id, lead_id: activity.lead_id, task_id: reported.task_id })
  }

  const assignee = assigneeOf(w.organization, phones.local.user_id)
  const party = await partyOf(w, phones.remote, 'mobile', assignee)
  const activityId = await recordActivity(
    w.tx,
    {
      organizationId,
      leadId: party.leadId,
      contactId: party.contactId,
      userId: assignee,
      type: 'SMS',
      data: {
        direction: 'inbound',
        status: 'inbox',
        text: body.text,
        remote_phone: phones.remote,
        local_phone: phones.local.number,
        source: 'External',
        date_scheduled: null,
        date_sent: null,
        error_message: null,
        attachments,
        send_attempts: [],
        template_id: null,
        activity_at: sentAt,
        provider_message_id: body.id,
      },
      now: w.now,
    },
    w.events,
  )
  const taskId = await insertIncomingTask(w, {
    type: 'incoming_sms',
    leadId: party.leadId,
    contactId: party.contactId,
    assignedTo: assignee,
    objectId: activityId,
    text: body.text,
    data: {
      remote_phone: phones.remote,
      remote_phone_formatted: formatPhoneNumber(phones.remote),
      local_phone: phones.local.number,
      attachments,
    },
  })
  await updateRef(w.tx, key, {
    activity_id: activityId,
    task_id: taskId,
    new_lead: party.newLead ? 1 : 0,
    date_updated: w.now,
  })
  return answered(w, { activity_id: activityId, lead_id: party.leadId, task_id: taskId })
}
