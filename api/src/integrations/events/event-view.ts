import type { Selectable } from 'kysely'
import type { EventTable } from '../../platform/data/database.js'

type EventRow = Selectable<EventTable>
/** An event's columns other than its order and its JSON parts. */
export type EventHead = Omit<EventRow, 'seq' | 'data' | 'previous_data' | 'changed_fields'>

function jsonOf(text: string): unknown {
  return JSON.parse(text) as unknown
}

/** An event as the API answers it (`/event/`, webhook deliveries, the live stream). */
export function eventView(row: EventRow) {
  return eventViewOf(row, jsonOf(row.data), jsonOf(row.previous_data), jsonOf(row.changed_fields))
}

/** The view of an event from its columns and its JSON parts as values (the writer has them before they are text). */
export function eventViewOf(row: EventHead, data: unknown, previousData: unknown, changedFields: unknown) {
  return {
    id: row.id,
    object_type: row.object_type,
    object_id: row.object_id,
    action: row.action,
    lead_id: row.lead_id,
    user_id: row.user_id,
    request_id: row.request_id,
    api_key_id: row.api_key_id,
    organization_id: row.organization_id,
    date_created: row.date_created,
    date_updated: row.date_updated,
    data,
    previous_data: previousData,
    changed_fields: changedFields,
  }
}

export type EventView = ReturnType<typeof eventView>
