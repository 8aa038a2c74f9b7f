import { Type, type Static } from '@sinclair/typebox'
import {
  BULK_EDIT_TYPES,
  BULK_LEAD_IDS_MAX,
  CUSTOM_FIELD_OPERATIONS,
  type BulkEditType,
  type CustomFieldOperation,
} from '@leadline/shared/bulk-action-schema'
import { ValidationError } from '../../platform/http/errors.js'
import { maxQueryLength } from '../../crm/leads/lead-search-parse.js'
import { parseCustomInput, type CustomFieldDef, type CustomValue } from '../../crm/custom-fields/custom-values.js'
import { sQueryType } from '../../crm/saved-searches/saved-search-input.js'

// What `/bulk_action/edit/` and `/bulk_action/delete/` take (decision 0057): Close's fields. The leads are chosen by
// `query` (the lead search language, without `sort:`), by Close's `s_query` as far as Leadline reads it (its
// `object_type` clause: every lead), or by `lead_ids` (Leadline's, for rows picked one by one); `results_limit`
// keeps the first so many of them, in id order. Close's `sort` is taken empty only.

const selection = {
  query: Type.Optional(
    Type.Union([Type.String({ maxLength: maxQueryLength }), Type.Null()], {
      description: 'The lead search language, as `query` of GET /lead/ takes it, without `sort:`. Blank: all leads.',
    }),
  ),
  s_query: Type.Optional(
    Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], {
      description:
        'Close’s structured query: only `{"query": {"type": "object_type", "object_type": "lead"}}` (every lead, ' +
        'narrowed by `query` if sent) is taken; any other clause is a 400: write the filter in `query`.',
    }),
  ),
  lead_ids: Type.Optional(
    Type.Array(Type.String({ maxLength: 64 }), {
      minItems: 1,
      maxItems: BULK_LEAD_IDS_MAX,
      description: 'Leadline: the leads by id, instead of a query (another organization’s or unknown ids are a 400).',
    }),
  ),
  results_limit: Type.Optional(
    Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
      description: 'At most this many of the leads chosen, the first in id order.',
    }),
  ),
  sort: Type.Optional(
    Type.Array(Type.Record(Type.String(), Type.Unknown()), {
      maxItems: 0,
      description: 'Close’s sort: taken empty only (the leads are taken in id order).',
    }),
  ),
  send_done_email: Type.Optional(Type.Boolean({ description: 'Kept as sent; Leadline sends no email.' })),
}

export const editBody = Type.Object(
  {
    type: Type.Union(
      BULK_EDIT_TYPES.map((t) => Type.Literal(t)),
      { description: 'What to do to every lead: set its status, or set or clear one of its custom fields.' },
    ),
    lead_status_id: Type.Optional(Type.String({ maxLength: 64, description: 'For `set_lead_status`.' })),
    custom_field_id: Type.Optional(Type.String({ maxLength: 64 })),
    custom_field_name: Type.Optional(Type.String({ maxLength: 255 })),
    custom_field_value: Type.Optional(Type.Unknown({ description: 'The value, as a lead’s `custom.<id>` takes it.' })),
    custom_field_values: Type.Optional(
      Type.Array(Type.Unknown(), { maxItems: 100, description: 'Several values, for a field that takes several.' }),
    ),
    custom_field_operation: Type.Optional(
      Type.Union(
        CUSTOM_FIELD_OPERATIONS.map((o) => Type.Literal(o)),
        { description: 'For a field that takes several values: replace them (the default), add to or remove from.' },
      ),
    ),
    ...selection,
  },
  { additionalProperties: false },
)
export type EditBody = Static<typeof editBody>

export const deleteBody = Type.Object(
  {
    bulk_object_type: Type.Optional(Type.Literal('lead', { description: 'Leadline deletes leads in bulk only.' })),
    ...selection,
  },
  { additionalProperties: false },
)
export type DeleteBody = Static<typeof deleteBody>

/** Close's one change of a bulk action: `status` `paused` or `resuming`. */
export const changeBody = Type.Object(
  { status: Type.Union([Type.Literal('paused'), Type.Literal('resuming')]) },
  { additionalProperties: false },
)

/** Which leads a bulk action is over, as stored. */
export interface Selection {
  query: string | null
  s_query: Record<string, unknown> | null
  lead_ids: string[] | null
  results_limit: number | null
  send_done_email: boolean
}

/** The leads asked for: a query, every lead (s_query), or ids; a body naming none, or both a query and ids, is a 400. */
export function selectionOf(body: EditBody | DeleteBody): Selection {
  const query = body.query === undefined || body.query === null ? null : body.query.trim()
  const sQuery = body.s_query ?? null
  if (sQuery !== null && sQueryType(sQuery) !== 'lead') {
    throw ValidationError.field('s_query', 'Bulk actions act on leads: s_query must ask for object_type "lead".')
  }
  const ids = body.lead_ids ?? null
  if (ids !== null && query !== null) {
    throw ValidationError.field('lead_ids', 'Send either lead_ids or a query, not both.')
  }
  if (ids === null && query === null && sQuery === null) {
    throw ValidationError.field(
      'query',
      'Say which leads: a query (blank for all leads), s_query, or lead_ids. Nothing is done to every lead unasked.',
    )
  }
  return {
    query: ids === null ? (query ?? '') : null,
    s_query: sQuery,
    lead_ids: ids === null ? null : [...new Set(ids)],
    results_limit: body.results_limit ?? null,
    send_done_email: body.send_done_email ?? true,
  }
}

/** What a bulk edit does to each lead, as stored in `params`. */
export type EditParams =
  | { type: 'set_lead_status'; lead_status_id: string }
  | {
      type: 'set_custom_field'
      custom_field_id: string
      custom_field_name: string
      values: CustomValue[]
      operation: CustomFieldOperation
    }
  | { type: 'clear_custom_field'; custom_field_id: string; custom_field_name: string }

/** The lead custom field a body names, by id or by exact name; a 400 when it names none or an unknown one. */
function fieldOf(body: EditBody, defs: CustomFieldDef[]): CustomFieldDef {
  const { custom_field_id: id, custom_field_name: name } = body
  if (id === undefined && name === undefined) {
    throw ValidationError.field('custom_field_id', 'Name the custom field: custom_field_id or custom_field_name.')
  }
  const def = id !== undefined ? defs.find((d) => d.id === id) : defs.find((d) => d.name === name)
  if (def === undefined) {
    throw ValidationError.field(
      id !== undefined ? 'custom_field_id' : 'custom_field_name',
      'Not a lead custom field of your organization.',
    )
  }
  if (id !== undefined && name !== undefined && def.name !== name) {
    throw ValidationError.field('custom_field_name', 'custom_field_id and custom_field_name name different fields.')
  }
  return def
}

/**
 * The edit a body asks for, checked against the organization: its status, its field, and the value as a lead's
 * `custom.<id>` would take it (a choice of the field's, a member for a user field…).
 */
export function editParamsOf(
  body: EditBody,
  setting: { statusIds: Set<string>; defs: CustomFieldDef[]; memberUserIds: Set<string> },
): EditParams {
  const type: BulkEditType = body.type
  if (type === 'set_lead_status') {
    const id = body.lead_status_id
    if (id === undefined) throw ValidationError.field('lead_status_id', 'set_lead_status needs lead_status_id.')
    if (!setting.statusIds.has(id))
      throw ValidationError.field('lead_status_id', 'Not a lead status of your organization.')
    return { type, lead_status_id: id }
  }
  const def = fieldOf(body, setting.defs)
  if (type === 'clear_custom_field') return { type, custom_field_id: def.id, custom_field_name: def.name }
  const operation = body.custom_field_operation ?? 'replace'
  if (operation !== 'replace' && !def.accepts_multiple_values) {
    throw ValidationError.field('custom_field_operation', `${def.name} takes one value: only replace applies.`)
  }
  let raw: unknown
  if (body.custom_field_values !== undefined) {
    if (body.custom_field_value !== undefined) {
      throw ValidationError.field('custom_field_values', 'Send custom_field_value or custom_field_values, not both.')
    }
    if (!def.accepts_multiple_values) {
      throw ValidationError.field('custom_field_values', `${def.name} takes one value: send custom_field_value.`)
    }
    raw = body.custom_field_values
  } else {
    raw = body.custom_field_value
  }
  if (raw === undefined || raw === null || raw === '' || (Array.isArray(raw) && raw.length === 0)) {
    throw ValidationError.field(
      'custom_field_value',
      'set_custom_field needs a value (clear_custom_field removes one).',
    )
  }
  const parsed = parseCustomInput({ [`custom.${def.id}`]: raw }, setting.defs, setting)
  const error = parsed.fieldErrors[`custom.${def.id}`]
  if (error !== undefined) throw ValidationError.field('custom_field_value', error)
  if (def.type === 'contact') {
    throw ValidationError.field(
      'custom_field_id',
      'A contact field is not set in bulk: each lead has its own contacts.',
    )
  }
  const values = parsed.changes.get(def.id) ?? []
  return { type, custom_field_id: def.id, custom_field_name: def.name, values, operation }
}

/** The values a lead's field has after `edit`, from those it had. */
export function editedValues(edit: EditParams, had: CustomValue[]): CustomValue[] {
  if (edit.type !== 'set_custom_field') return []
  if (edit.operation === 'replace') return edit.values
  if (edit.operation === 'add') return [...had, ...edit.values.filter((v) => !had.includes(v))]
  return had.filter((v) => !edit.values.includes(v))
}
