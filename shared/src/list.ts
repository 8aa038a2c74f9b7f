import { Type, type Static, type TSchema } from '@sinclair/typebox'

/** The largest `_limit` each list accepts (ARCHITECTURE.md §5); anything else allows 100. */
export const LIST_LIMIT_MAX = {
  lead: 200,
  contact: 200,
  opportunity: 250,
  activity: 100,
  task: 1000,
  user: 1000,
  event: 50,
  default: 100,
} as const

export const LIST_LIMIT_DEFAULT = 100

export const listEnvelopeSchema = <T extends TSchema>(item: T) =>
  Type.Object({ has_more: Type.Boolean(), data: Type.Array(item) })

export interface ListEnvelope<T> {
  has_more: boolean
  data: T[]
}

export const timestampSchema = Type.String({
  description: 'UTC timestamp with six fractional digits, e.g. 2017-09-29T10:40:23.140000+00:00',
})

/** Who created and last changed an object, with their names, and when: the common fields of Close's objects. */
export const commonFieldsSchema = {
  created_by: Type.Union([Type.String(), Type.Null()]),
  created_by_name: Type.Union([Type.String(), Type.Null()]),
  updated_by: Type.Union([Type.String(), Type.Null()]),
  updated_by_name: Type.Union([Type.String(), Type.Null()]),
  date_created: timestampSchema,
  date_updated: timestampSchema,
}

export const validationErrorSchema = Type.Object({
  errors: Type.Array(Type.String()),
  'field-errors': Type.Record(Type.String(), Type.String()),
})
export type ValidationErrorBody = Static<typeof validationErrorSchema>

export const errorSchema = Type.Object({ error: Type.String() })
export type ErrorBody = Static<typeof errorSchema>
