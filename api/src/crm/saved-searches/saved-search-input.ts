import { Type } from '@sinclair/typebox'
import {
  SAVED_SEARCH_TYPES,
  SELECTED_FIELDS_MAX,
  selectedFieldSchema,
  type SavedSearchType,
} from '@leadline/shared/saved-search-schema'
import { maxQueryLength } from '../leads/lead-search-parse.js'
import { ValidationError } from '../../platform/http/errors.js'

// What `/saved_search/` takes (decision 0056): Close's fields, with the filter in `query` (the lead search
// language). Of Close's structured `s_query` only what Leadline can express is taken: its `object_type` clause,
// alone or in an `and` of one; anything else is a 400 that says to use `query`.

export const NAME_MAX = 255
const DESCRIPTION_MAX = 2000
/** The longest `s_query` kept, as JSON text, and its deepest nesting (Close's are a few levels deep). */
const S_QUERY_MAX = 10_000
const S_QUERY_DEPTH_MAX = 32

/** Close's kinds of Smart View; Leadline's list leads or contacts, any other is a 400. */
const CLOSE_SAVED_SEARCH_TYPES = [
  'lead',
  'contact',
  'opportunity',
  'call',
  'email',
  'sms',
  'meeting',
  'note',
  'whatsapp_message',
  'custom_activity',
  'form_submission',
] as const

const closeTypeSchema = Type.Union(
  CLOSE_SAVED_SEARCH_TYPES.map((t) => Type.Literal(t)),
  { description: 'Leadline’s Smart Views list `lead` (the default) or `contact`; Close’s other kinds are refused.' },
)

const fields = {
  name: Type.String({ maxLength: 1000, description: `Trimmed; 1 to ${String(NAME_MAX)} characters.` }),
  description: Type.Union([Type.String({ maxLength: DESCRIPTION_MAX }), Type.Null()], {
    description: 'Blank is null.',
  }),
  type: closeTypeSchema,
  query: Type.Union([Type.String({ maxLength: maxQueryLength }), Type.Null()], {
    description:
      'The lead search language, as `query` of GET /lead/ takes it (with `sort:`); null or blank: all leads. ' +
      'Checked as a search would read it: a query that cannot be run is a 400 on `query`.',
  }),
  s_query: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], {
    description:
      'Close’s structured query: only `{"query": {"type": "object_type", "object_type": "lead"}}` (or that clause ' +
      'alone in an `and`) is taken, and it sets `type`; any other clause is a 400: write the filter in `query`.',
  }),
  selected_fields: Type.Union(
    [
      Type.Array(selectedFieldSchema, { maxItems: SELECTED_FIELDS_MAX, description: 'The list’s columns, in order.' }),
      Type.Null(),
    ],
    { description: 'The columns the list shows; null: the default ones.' },
  ),
  is_shared: Type.Boolean({
    description:
      'Shared with the whole organization. Any member shares their own; a shared view is changed or ' +
      'deleted by its user or an admin.',
  }),
  shared_with: Type.Array(Type.String({ maxLength: 64 }), {
    maxItems: 1,
    description: 'Close’s form of `is_shared`: `[]`, or the organization’s id to share with everyone.',
  }),
}

export const createBody = Type.Object(
  {
    name: fields.name,
    description: Type.Optional(fields.description),
    type: Type.Optional(fields.type),
    query: Type.Optional(fields.query),
    s_query: Type.Optional(fields.s_query),
    selected_fields: Type.Optional(fields.selected_fields),
    is_shared: Type.Optional(fields.is_shared),
    shared_with: Type.Optional(fields.shared_with),
  },
  { additionalProperties: false },
)

export const updateBody = Type.Object(
  {
    name: Type.Optional(Type.Union([fields.name, Type.Null()])),
    description: Type.Optional(fields.description),
    type: Type.Optional(Type.Union([fields.type, Type.Null()])),
    query: Type.Optional(fields.query),
    s_query: Type.Optional(fields.s_query),
    selected_fields: Type.Optional(fields.selected_fields),
    is_shared: Type.Optional(fields.is_shared),
    shared_with: Type.Optional(fields.shared_with),
  },
  {
    additionalProperties: false,
    description: 'Only the fields sent change; a null `name` or `type` is not sent.',
  },
)

export const listFilters = Type.Object({
  type: Type.Optional(closeTypeSchema),
  type__in: Type.Optional(
    Type.String({ maxLength: 200, description: 'Comma-separated kinds, `lead,contact`. Without either: `lead`.' }),
  ),
})

/** The kinds a list asks for: `type`, or `type__in`, or `lead`; a kind Close has but Leadline does not lists none. */
export function listedTypes(filters: { type?: string | undefined; type__in?: string | undefined }): SavedSearchType[] {
  const asked =
    filters.type__in !== undefined
      ? filters.type__in
          .split(',')
          .map((t) => t.trim())
          .filter((t) => t !== '')
      : [filters.type ?? 'lead']
  const unknown = asked.find((t) => !(CLOSE_SAVED_SEARCH_TYPES as readonly string[]).includes(t))
  if (unknown !== undefined) {
    throw ValidationError.field(
      filters.type__in !== undefined ? 'type__in' : 'type',
      `Unknown kind "${unknown.slice(0, 40)}": use ${CLOSE_SAVED_SEARCH_TYPES.join(', ')}.`,
    )
  }
  return SAVED_SEARCH_TYPES.filter((t) => asked.includes(t))
}

/** A Leadline kind of view, or a field error: Close's other kinds have no Smart View here. */
export function leadlineType(type: string, field: string): SavedSearchType {
  const found = SAVED_SEARCH_TYPES.find((t) => t === type)
  if (found === undefined) {
    throw ValidationError.field(field, `Leadline's Smart Views list leads or contacts, not ${type.slice(0, 40)}.`)
  }
  return found
}

const S_QUERY_REFUSED =
  'Leadline takes only the object_type clause of s_query (alone, or alone in an "and"); write the filter in query, ' +
  'the lead search language.'

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * The kind of objects an `s_query` asks for, when it is what Leadline can express: an `object_type` clause, alone or
 * as the one clause of an `and`, with no sort (an empty one is taken) and no limit. Anything else is a 400.
 */
export function sQueryType(sQuery: Record<string, unknown>): SavedSearchType {
  // Measured before it is written out: JSON nested thousands deep would overflow the stack of JSON.stringify.
  if (!withinDepth(sQuery, S_QUERY_DEPTH_MAX)) {
    throw ValidationError.field('s_query', `At most ${String(S_QUERY_DEPTH_MAX)} levels of nesting.`)
  }
  if (JSON.stringify(sQuery).length > S_QUERY_MAX) {
    throw ValidationError.field('s_query', `At most ${String(S_QUERY_MAX)} characters of JSON.`)
  }
  for (const [key, value] of Object.entries(sQuery)) {
    const harmless =
      key === 'query' ||
      (key === 'sort' && Array.isArray(value) && value.length === 0) ||
      (key === 'results_limit' && value === null)
    if (!harmless) throw ValidationError.field('s_query', S_QUERY_REFUSED)
  }
  let clause: unknown = sQuery.query
  if (isRecord(clause) && clause.type === 'and' && Array.isArray(clause.queries) && clause.queries.length === 1) {
    clause = clause.queries[0]
  }
  if (!isRecord(clause) || clause.type !== 'object_type' || Object.keys(clause).length !== 2) {
    throw ValidationError.field('s_query', S_QUERY_REFUSED)
  }
  const objectType = clause.object_type
  if (typeof objectType !== 'string') throw ValidationError.field('s_query', S_QUERY_REFUSED)
  return leadlineType(objectType, 's_query')
}

/** Whether `value` nests objects and arrays at most `max` deep; walked with a stack of its own, never recursion. */
function withinDepth(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 1]]
  let visited = 0
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [node, depth] = next
    if (typeof node !== 'object' || node === null) continue
    // A body is bounded by the server's body limit; the count bounds the walk as well.
    visited += 1
    if (depth > max || visited > S_QUERY_MAX) return false
    for (const child of Array.isArray(node) ? node : Object.values(node)) stack.push([child, depth + 1])
  }
  return true
}
