import { formatOpportunityValue, type ValuePeriod } from '@leadline/shared/money'
import type { ActivityTable, Db } from '../../platform/data/database.js'
import {
  recordEvents,
  type EventAction,
  type EventContext,
  type EventInput,
} from '../../integrations/events/event-repo.js'
import { newId } from '../../platform/security/ids.js'
import { parseJsonObject } from '../../platform/http/raw-json.js'
import { userNames } from '../users/user-names.js'
import { namesOf } from '../users/owner-names.js'
import { emailViewFields, latestIncoming } from './email-activity-view.js'
import { formatPhoneNumber, phoneCountry } from '../../platform/text/phone-format.js'

export const ACTIVITY_TYPES = [
  'Created',
  'Note',
  'LeadStatusChange',
  'OpportunityStatusChange',
  'TaskCompleted',
  'Call',
  'SMS',
  'Email',
] as const
export type ActivityType = (typeof ACTIVITY_TYPES)[number]

/** The types a list may filter by: the stored ones and conversations (`EmailThread`, read from their emails). */
export const FILTERABLE_ACTIVITY_TYPES: readonly string[] = [...ACTIVITY_TYPES, 'EmailThread']

/** Close's call statuses. */
export const CALL_STATUSES = [
  'created',
  'in-progress',
  'completed',
  'cancel',
  'no-answer',
  'busy',
  'failed',
  'timeout',
] as const
export type CallStatus = (typeof CALL_STATUSES)[number]

/** Close's message statuses, as an SMS moves through them (`error`: its send failed for good). */
export const SMS_STATUSES = ['inbox', 'draft', 'scheduled', 'outbox', 'sent', 'error'] as const
export type SmsStatus = (typeof SMS_STATUSES)[number]

export type PhoneDirection = 'inbound' | 'outbound'

/** An MMS attachment, as given by the inbound endpoint or the API. */
export interface SmsAttachment {
  url: string
  filename: string
  content_type: string
  size: number | null
}

/** One failed attempt at sending an SMS through the provider, or an email through its SMTP server. */
export interface SmsSendAttempt {
  date: string
  error: string
}

/** Close's email directions: `outgoing` from the organization, `incoming` to it. */
export type EmailDirection = 'outgoing' | 'incoming'

/** A file sent or received with an email, as Close lists them. */
export interface EmailAttachment {
  url: string
  filename: string
  content_type: string | null
  size: number
  /** The part's Content-ID, for images the HTML body shows inline. */
  content_id?: string | null
}

/** The fields particular to each activity type, stored as JSON in `activity.data`. */
export interface ActivityData {
  Created: { source: string; import_id: string | null }
  Note: { note: string }
  LeadStatusChange: {
    old_status_id: string | null
    old_status_label: string | null
    new_status_id: string
    new_status_label: string
  }
  /** The opportunity as it was after the change (its id is also the activity's `opportunity_id` column). */
  OpportunityStatusChange: {
    old_status_id: string | null
    old_status_label: string | null
    old_status_type: string | null
    new_status_id: string
    new_status_label: string
    new_status_type: string
    opportunity_value: number | null
    opportunity_value_period: string
    opportunity_value_currency: string
    opportunity_value_formatted: string | null
    opportunity_confidence: number
    opportunity_date_won: string | null
  }
  /** The task as it was when completed (its id is also the activity's `task_id` column). */
  TaskCompleted: { task_id: string; task_text: string }
  /**
   * A call. Phones are E.164 (or null); their `_formatted` forms, `has_recording` and `contact_name` are added when
   * viewed. `phone` is Close's older name for `remote_phone`, kept equal to it.
   */
  Call: {
    direction: PhoneDirection
    status: CallStatus
    /** How it ended: `answered`, `no-answer`, `busy`, `vm-answer`, `vm-left`, `blocked`, `error`, or null. */
    disposition: string | null
    /** Seconds. */
    duration: number
    note: string | null
    phone: string | null
    remote_phone: string | null
    local_phone: string | null
    recording_url: string | null
    voicemail_url: string | null
    voicemail_duration: number
    /** Close's two sources: `External` for a call logged or reported by the organization's telephony. */
    source: 'External' | 'Close.io'
    /** `external` for a logged call, `regular` for one the organization's telephony reported (inbound endpoint). */
    call_method: 'external' | 'regular'
    outcome_id: string | null
    /** When the call happened (the request's time unless given). */
    activity_at: string
    /** The telephony side's id of a call reported through the inbound endpoint, which later reports update. */
    provider_call_id: string | null
  }
  /** A text message. `remote_phone_formatted`, `local_phone_formatted` and `contact_name` are added when viewed. */
  SMS: {
    direction: PhoneDirection
    status: SmsStatus
    text: string
    remote_phone: string | null
    local_phone: string | null
    /** `Close.io` (Close's name for "sent through the CRM") for what Leadline sends, `External` for the rest. */
    source: 'External' | 'Close.io'
    date_scheduled: string | null
    date_sent: string | null
    error_message: string | null
    attachments: SmsAttachment[]
    /** Failed provider attempts, oldest first (not in Close's SMS). */
    send_attempts: SmsSendAttempt[]
    template_id: string | null
    activity_at: string
    /** The telephony side's id of a message reported through the inbound endpoint (repeats are stored once). */
    provider_message_id: string | null
  }
  /**
   * An email (its thread is the activity's `thread_id` column). Addresses are as written (`"Name" <a@b.c>` or
   * `a@b.c`). `message_ids` are the Message-IDs it went out or came in with; `references` its References header,
   * ending with the id it answers (its In-Reply-To). `body_preview`, `envelope`, the quoted-text splits and
   * `has_reply` are added when viewed (email/send/email-view.ts).
   */
  Email: {
    direction: EmailDirection
    status: SmsStatus
    subject: string
    body_text: string
    body_html: string
    sender: string | null
    to: string[]
    cc: string[]
    bcc: string[]
    attachments: EmailAttachment[]
    date_scheduled: string | null
    date_sent: string | null
    /** The account it is (or was) sent through. */
    email_account_id: string | null
    template_id: string | null
    template_name: string | null
    /** The email this one answers. */
    in_reply_to_id: string | null
    message_ids: string[]
    references: string[]
    /** When a follow-up task falls due if no reply has come (scheduled, outbox and sent emails). */
    followup_date: string | null
    /** Failed SMTP attempts, oldest first. */
    send_attempts: SmsSendAttempt[]
    error_message: string | null
    /** When it was sent or received (its creation until then). */
    activity_at: string
  }
}

/** A status, as an OpportunityStatusChange names the two it moved between. */
interface StatusNamed {
  id: string
  label: string
  type: string
}

/** An OpportunityStatusChange's own fields: the two statuses, and the opportunity as it is after the change. */
export function opportunityStatusChangeData(
  from: StatusNamed | undefined,
  to: StatusNamed,
  opportunity: {
    value: number | null
    value_period: ValuePeriod
    value_currency: string
    confidence: number
    date_won: string | null
  },
): ActivityData['OpportunityStatusChange'] {
  return {
    old_status_id: from?.id ?? null,
    old_status_label: from?.label ?? null,
    old_status_type: from?.type ?? null,
    new_status_id: to.id,
    new_status_label: to.label,
    new_status_type: to.type,
    opportunity_value: opportunity.value,
    opportunity_value_period: opportunity.value_period,
    opportunity_value_currency: opportunity.value_currency,
    opportunity_value_formatted: formatOpportunityValue(
      opportunity.value,
      opportunity.value_currency,
      opportunity.value_period,
    ),
    opportunity_confidence: opportunity.confidence,
    opportunity_date_won: opportunity.date_won,
  }
}

export interface NewActivity<T extends ActivityType> {
  organizationId: string
  leadId: string
  contactId?: string | null
  userId: string
  /** Who recorded it, when not `userId` (a call logged for a teammate). */
  createdBy?: string
  /** Who last changed it, when not `userId`. */
  updatedBy?: string
  type: T
  data: ActivityData[T]
  now: string
  opportunityId?: string
  taskId?: string
  /** The conversation of an Email. */
  threadId?: string
  /** A received Email's sender check (email/receive/sender-check.ts). */
  senderCheck?: { result: string; reason: string }
}

/** The row of a new activity, its id made here (several go in one insert when one request records many). */
export function newActivityRow<T extends ActivityType>(input: NewActivity<T>): ActivityTable {
  return {
    id: newId('activity'),
    organization_id: input.organizationId,
    lead_id: input.leadId,
    contact_id: input.contactId ?? null,
    user_id: input.userId,
    type: input.type,
    data: JSON.stringify(input.data),
    opportunity_id: input.opportunityId ?? null,
    task_id: input.taskId ?? null,
    thread_id: input.threadId ?? null,
    sender_check: input.senderCheck?.result ?? null,
    sender_check_reason: input.senderCheck?.reason ?? null,
    created_by: input.createdBy ?? input.userId,
    updated_by: input.updatedBy ?? input.userId,
    date_created: input.now,
    date_updated: input.now,
  }
}

/**
 * Records an activity and, given the request's event context, its `created` event in the same transaction. Only the
 * demo seed passes null: made-up history is not news.
 */
export async function recordActivity<T extends ActivityType>(
  db: Db,
  input: NewActivity<T>,
  events: EventContext | null,
): Promise<string> {
  const row = newActivityRow(input)
  await db.insertInto('activity').values(row).execute()
  if (events !== null) await recordEvents(db, events, await activityEvents(db, [row], 'created'))
  return row.id
}

/** An activity type's event object type, as Close names them: `activity.note`, `activity.lead_status_change`… */
export function activityObjectType(type: string): string {
  return `activity.${type.replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase()}`
}

/**
 * What an activity's view shows besides its row: the names of its users and of the contact a call or message was
 * with, and, for emails, when a reply last came into each thread.
 */
export interface ActivityNames {
  users: Map<string, string>
  contacts: Map<string, string | null>
  replies?: Map<string, string>
}

/** Reads the names some activities' views show, in three queries at most. */
export async function activityNames(db: Db, rows: readonly ActivityTable[]): Promise<ActivityNames> {
  const contactIds = [
    ...new Set(rows.filter((r) => PHONE_TYPES.has(r.type) && r.contact_id !== null).map((r) => r.contact_id)),
  ].filter((id): id is string => id !== null)
  const [users, contacts, replies] = await Promise.all([
    userNames(
      db,
      rows.flatMap((r) => [r.user_id, r.created_by, r.updated_by]),
    ),
    rows[0] === undefined ? [] : namesOf(db, 'contact', rows[0].organization_id, contactIds),
    latestIncoming(db, rows),
  ])
  return { users, contacts: new Map(contacts.map((c) => [c.id, c.name])), replies }
}

/** The events of activities, their data the API views (names read once for all of them). */
export async function activityEvents(db: Db, rows: ActivityTable[], action: EventAction): Promise<EventInput[]> {
  const names = await activityNames(db, rows)
  return rows.map((row) => ({
    objectType: activityObjectType(row.type),
    objectId: row.id,
    action,
    leadId: row.lead_id,
    data: activityView(row, names),
  }))
}

export async function findActivity(db: Db, organizationId: string, id: string, type?: ActivityType) {
  let query = db.selectFrom('activity').selectAll().where('organization_id', '=', organizationId).where('id', '=', id)
  if (type !== undefined) query = query.where('type', '=', type)
  return query.executeTakeFirst()
}

/** The types whose views show phones and a contact's name. */
const PHONE_TYPES: ReadonlySet<string> = new Set(['Call', 'SMS'])

/** The wire form: common fields, `_type`, and the type's own fields. */
export function activityView(row: ActivityTable, names: ActivityNames): Record<string, unknown> {
  const data = parseJsonObject(row.data)
  const user = (id: string | null) => (id === null ? null : (names.users.get(id) ?? null))
  const view: Record<string, unknown> = {
    id: row.id,
    _type: row.type,
    organization_id: row.organization_id,
    lead_id: row.lead_id,
    contact_id: row.contact_id,
    user_id: row.user_id,
    user_name: user(row.user_id),
    created_by: row.created_by,
    created_by_name: user(row.created_by),
    updated_by: row.updated_by,
    updated_by_name: user(row.updated_by),
    date_created: row.date_created,
    date_updated: row.date_updated,
    // A type that can happen at another time than it was stored (a call, a message) keeps `activity_at` in `data`.
    activity_at: row.date_created,
    users: [],
    ...data,
  }
  if (row.opportunity_id !== null) view.opportunity_id = row.opportunity_id
  if (row.type === 'Email') {
    view.thread_id = row.thread_id
    Object.assign(view, emailViewFields(row, data, names.replies ?? new Map()))
  }
  if (row.type === 'Note') view.note_html = noteHtml(typeof data.note === 'string' ? data.note : '')
  if (PHONE_TYPES.has(row.type)) Object.assign(view, phoneFields(row, data, names))
  return view
}

/** What a call's or message's view adds to its stored fields: phones formatted, their countries, the contact's name. */
function phoneFields(row: ActivityTable, data: Record<string, unknown>, names: ActivityNames) {
  const remote = typeof data.remote_phone === 'string' ? data.remote_phone : null
  const local = typeof data.local_phone === 'string' ? data.local_phone : null
  const fields: Record<string, unknown> = {
    contact_name: row.contact_id === null ? null : (names.contacts.get(row.contact_id) ?? null),
    remote_phone_formatted: remote === null ? null : formatPhoneNumber(remote),
    local_phone_formatted: local === null ? null : formatPhoneNumber(local),
    remote_country_iso: remote === null ? null : (phoneCountry(remote) ?? null),
    local_country_iso: local === null ? null : (phoneCountry(local) ?? null),
    cost: null,
    sequence_id: null,
    sequence_name: null,
    sequence_subscription_id: null,
  }
  if (row.type === 'Call') {
    Object.assign(fields, {
      has_recording: typeof data.recording_url === 'string',
      transferred_from: null,
      transferred_to: null,
      dialer_id: null,
      dialer_saved_search_id: null,
      quality_info: null,
    })
  }
  return fields
}

function noteHtml(note: string): string {
  const escaped = note.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
  return escaped
    .split(/\n{2,}/)
    .map((p) => `<p>${p.replace(/\n/g, '<br>')}</p>`)
    .join('')
}
