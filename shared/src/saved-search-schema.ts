import { Type, type Static } from '@sinclair/typebox'
import { timestampSchema } from './list.js'

/** What a Smart View lists: leads, or the contacts of the leads its query finds. */
export const SAVED_SEARCH_TYPES = ['lead', 'contact'] as const
export type SavedSearchType = (typeof SAVED_SEARCH_TYPES)[number]
export const savedSearchTypeSchema = Type.Union(SAVED_SEARCH_TYPES.map((t) => Type.Literal(t)))

/** The most columns a Smart View keeps, and the longest name of one. */
export const SELECTED_FIELDS_MAX = 50
export const SELECTED_FIELD_ID_MAX = 200

/** One column of the list a Smart View shows: `id` names the field (`name`, `status`, `custom.<field id>`…). */
export const selectedFieldSchema = Type.Object(
  { id: Type.String({ minLength: 1, maxLength: SELECTED_FIELD_ID_MAX }) },
  { additionalProperties: false },
)
export type SelectedField = Static<typeof selectedFieldSchema>

/** A Smart View as `/saved_search/` answers it (Close's shape). */
export const savedSearchSchema = Type.Object({
  id: Type.String(),
  organization_id: Type.String(),
  user_id: Type.Union([Type.String(), Type.Null()], { description: 'Whose view it is: its creator.' }),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  type: savedSearchTypeSchema,
  query: Type.Union([Type.String(), Type.Null()], {
    description: 'The lead search language, as `query` of GET /lead/ takes it (with `sort:`).',
  }),
  s_query: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], {
    description: 'Close’s structured query, as it was sent (Leadline takes its `object_type` clause only).',
  }),
  selected_fields: Type.Union([Type.Array(selectedFieldSchema), Type.Null()], {
    description: 'The columns the list shows, in order; null: the default ones.',
  }),
  is_shared: Type.Boolean({ description: 'Shared with the whole organization; otherwise its user’s alone.' }),
  shared_with: Type.Array(Type.String(), {
    description: 'Close’s field: the organization’s id when shared, else empty.',
  }),
  is_user_dependent: Type.Boolean({
    description: 'Close’s field: whether the query names the user looking (Leadline’s queries never do: false).',
  }),
  created_by: Type.Union([Type.String(), Type.Null()]),
  updated_by: Type.Union([Type.String(), Type.Null()]),
  date_created: timestampSchema,
  date_updated: timestampSchema,
})
export type SavedSearch = Static<typeof savedSearchSchema>
