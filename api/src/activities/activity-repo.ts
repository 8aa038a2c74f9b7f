import { formatOpportunityValue, type ValuePeriod } from '@leadline/shared/money'
import type { ActivityTable, Db } from '../db/database.js'
import { recordEvents, type EventAction, type EventContext, type EventInput } from '../events/event-repo.js'
import { newId } from '../platform/ids.js'
import { parseJsonObject } from '../platform/raw-json.js'
import { userNames } from '../users/user-names.js'

export const ACTIVITY_TYPES = [
  'Created',
  'Note',
  'LeadStatusChange',
  'OpportunityStatusChange',
  'TaskCompleted',
] as const
export type ActivityType = (typeof ACTIVITY_TYPES)[number]

/** The types a list may filter by: the stored ones and those later issues add (calls, email, SMS), which match none yet. */
export const FILTERABLE_ACTIVITY_TYPES: readonly string[] = [...ACTIVITY_TYPES, 'Call', 'Email', 'EmailThread', 'SMS']

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
  type: T
  data: ActivityData[T]
  now: string
  opportunityId?: string
  taskId?: string
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
    created_by: input.userId,
    updated_by: input.userId,
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

/** The events of activities, their data the API views (user names read once for all of them). */
export async function activityEvents(db: Db, rows: ActivityTable[], action: EventAction): Promise<EventInput[]> {
  const names = await userNames(
    db,
    rows.flatMap((r) => [r.user_id, r.created_by, r.updated_by]),
  )
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

/** The wire form: common fields, `_type`, and the type's own fields. */
export function activityView(row: ActivityTable, names: Map<string, string>): Record<string, unknown> {
  const data = parseJsonObject(row.data)
  const view: Record<string, unknown> = {
    id: row.id,
    _type: row.type,
    organization_id: row.organization_id,
    lead_id: row.lead_id,
    contact_id: row.contact_id,
    user_id: row.user_id,
    user_name: row.user_id === null ? null : (names.get(row.user_id) ?? null),
    created_by: row.created_by,
    created_by_name: row.created_by === null ? null : (names.get(row.created_by) ?? null),
    updated_by: row.updated_by,
    updated_by_name: row.updated_by === null ? null : (names.get(row.updated_by) ?? null),
    date_created: row.date_created,
    date_updated: row.date_updated,
    // None of the stored types can set a different time yet; a type that can will keep it in `data`.
    activity_at: row.date_created,
    users: [],
    ...data,
  }
  if (row.opportunity_id !== null) view.opportunity_id = row.opportunity_id
  if (row.type === 'Note') view.note_html = noteHtml(typeof data.note === 'string' ? data.note : '')
  return view
}

function noteHtml(note: string): string {
  const escaped = note.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
  return escaped
    .split(/\n{2,}/)
    .map((p) => `<p>${p.replace(/\n/g, '<br>')}</p>`)
    .join('')
}
