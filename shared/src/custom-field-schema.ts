import { Type, type Static } from '@sinclair/typebox'
import { timestampSchema } from './list.js'

export const CUSTOM_OBJECT_TYPES = ['lead', 'contact', 'opportunity'] as const
export type CustomObjectType = (typeof CUSTOM_OBJECT_TYPES)[number]

export const CUSTOM_FIELD_TYPES = [
  'text',
  'textarea',
  'number',
  'date',
  'datetime',
  'choices',
  'user',
  'contact',
  'hidden',
] as const
export const customFieldTypeSchema = Type.Union(CUSTOM_FIELD_TYPES.map((t) => Type.Literal(t)))
export type CustomFieldType = Static<typeof customFieldTypeSchema>

/** A custom field definition as `GET /custom_field/{lead,contact,opportunity}/` returns it. */
export const customFieldSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  type: customFieldTypeSchema,
  choices: Type.Union([Type.Array(Type.String()), Type.Null()], {
    description: 'The allowed values of a `choices` field, in order; null for every other type.',
  }),
  accepts_multiple_values: Type.Boolean(),
  position: Type.Integer({
    description:
      "Leadline: its place in the order of the organization's fields of this object type, lower first (not always consecutive). Change the order with `PUT /custom_field_schema/{object_type}/`.",
  }),
  organization_id: Type.String(),
  created_by: Type.Union([Type.String(), Type.Null()]),
  updated_by: Type.Union([Type.String(), Type.Null()]),
  date_created: timestampSchema,
  date_updated: timestampSchema,
})
export type CustomField = Static<typeof customFieldSchema>

/** `GET /custom_field_schema/{object_type}/`: the object type's fields, in the organization's order. */
export const customFieldSchemaSchema = Type.Object({ fields: Type.Array(customFieldSchema) })
export type CustomFieldSchema = Static<typeof customFieldSchemaSchema>

/** `GET /custom_field/{object_type}/{id}/usage/` (Leadline): how many values the field holds. */
export const customFieldUsageSchema = Type.Object({
  values: Type.Integer({ description: "How many values of the field the organization's objects hold." }),
})
export type CustomFieldUsage = Static<typeof customFieldUsageSchema>

/** A stored value: numbers for `number` fields, text (ids, dates, datetimes, choices…) for every other type. */
export const customValueSchema = Type.Union([Type.String(), Type.Number()])
export type CustomValue = Static<typeof customValueSchema>

export function isCustomFieldType(value: string): value is CustomFieldType {
  return CUSTOM_FIELD_TYPES.some((t) => t === value)
}
