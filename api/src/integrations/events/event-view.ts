import { Type, type Static } from '@sinclair/typebox'
import type { Selectable } from 'kysely'
import type { EventTable } from '../../platform/data/database.js'

const eventMetaSchema = Type.Object(
  {
    request_method: Type.Optional(Type.String({ description: 'The method of the API request that caused it.' })),
    request_path: Type.Optional(Type.String({ description: 'The path of that request, without its query.' })),
    merge_source_lead_id: Type.Optional(Type.String({ description: 'In a lead merge: the lead merged away.' })),
    merge_destination_lead_id: Type.Optional(Type.String({ description: 'In a lead merge: the lead kept.' })),
    import_id: Type.Optional(Type.String({ description: 'A CSV import’s change: the import (`impo_…`).' })),
    bulk_action_id: Type.Optional(
      Type.String({ description: 'A bulk action’s change (or its undo): the bulk edit or delete (`bulkedit_…`).' }),
    ),
  },
  {
    additionalProperties: false,
    description:
      'How the event came about, as Close tells it; `{}` for events recorded before Leadline kept it, or made by no ' +
      'API request.',
  },
)

/**
 * Close's `meta` of an event: the API request that caused it (`request_method`, `request_path`) and, for every event
 * of a lead merge, `merge_source_lead_id` and `merge_destination_lead_id`. Empty for changes no API request made.
 */
export type EventMeta = Static<typeof eventMetaSchema>
const META_KEYS = [
  'request_method',
  'request_path',
  'merge_source_lead_id',
  'merge_destination_lead_id',
  'import_id',
  'bulk_action_id',
] as const

const nullableId = (description: string) => Type.Union([Type.String(), Type.Null()], { description })
const anObject = (description: string) => Type.Object({}, { additionalProperties: true, description })

/** The event's shape in the OpenAPI document (`/event/`, `/event/{id}/`, webhook deliveries, the stream). */
export const eventSchema = Type.Object(
  {
    id: Type.String({ description: '`ev_…`' }),
    object_type: Type.String({ description: '`lead`, `contact`, `task.lead`, `activity.note`, `status.lead`, …' }),
    object_id: Type.String(),
    action: Type.String({ description: '`created`, `updated`, `deleted`, `merged`, `completed` or `sent`.' }),
    lead_id: nullableId('The lead the object belongs to (a lead’s own id), or null.'),
    user_id: nullableId('Who made the change, or null when no user did.'),
    request_id: nullableId('The API request that made the change (`req_…`).'),
    api_key_id: nullableId('The API key of that request.'),
    organization_id: Type.String(),
    date_created: Type.String(),
    date_updated: Type.String(),
    data: Type.Union([anObject('The object as the API answers it.'), Type.Null()], {
      description: 'The object as the API answers it; null for `deleted`.',
    }),
    previous_data: anObject(
      'For `updated`, the old values of the changed fields; for `deleted`, the object as it was; else `{}`.',
    ),
    changed_fields: Type.Array(Type.String(), { description: 'For `updated`, the fields that changed.' }),
    meta: eventMetaSchema,
  },
  { additionalProperties: false },
)

/** An event as the API answers it (`/event/`, webhook deliveries, the live stream). */
export type EventView = Static<typeof eventSchema>

type EventRow = Selectable<EventTable>
/** An event's columns other than its order and its JSON parts. */
export type EventHead = Omit<EventRow, 'seq' | 'data' | 'previous_data' | 'changed_fields' | 'meta' | 'client_address'>

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** A stored JSON object (`{}` if the text somehow holds something else), or null where null was stored. */
function objectOf(text: string): Record<string, unknown> | null {
  const value: unknown = JSON.parse(text)
  return value === null || isObject(value) ? value : {}
}

function namesOf(text: string): string[] {
  const value: unknown = JSON.parse(text)
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []
}

function metaOf(text: string): EventMeta {
  const value = objectOf(text) ?? {}
  const meta: EventMeta = {}
  for (const key of META_KEYS) {
    const given = value[key]
    if (typeof given === 'string') meta[key] = given
  }
  return meta
}

/** An event as the API answers it (`/event/`, webhook deliveries, the live stream). */
export function eventView(row: EventRow) {
  return eventViewOf(
    row,
    objectOf(row.data),
    objectOf(row.previous_data) ?? {},
    namesOf(row.changed_fields),
    metaOf(row.meta),
  )
}

/** The view of an event from its columns and its JSON parts as values (the writer has them before they are text). */
export function eventViewOf(
  row: EventHead,
  data: Record<string, unknown> | null,
  previousData: Record<string, unknown>,
  changedFields: string[],
  meta: EventMeta,
): EventView {
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
    meta,
  }
}
