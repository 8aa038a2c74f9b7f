import { Type, type Static } from '@sinclair/typebox'
import { timestampSchema } from './list.js'

export const PHONE_NUMBER_TYPES = ['internal', 'external', 'virtual'] as const
export const phoneNumberTypeSchema = Type.Union(PHONE_NUMBER_TYPES.map((t) => Type.Literal(t)))

export const phoneNumberSchema = Type.Object({
  id: Type.String(),
  organization_id: Type.String(),
  number: Type.String(),
  number_formatted: Type.String(),
  label: Type.Union([Type.String(), Type.Null()]),
  type: phoneNumberTypeSchema,
  user_id: Type.Union([Type.String(), Type.Null()]),
  is_group_number: Type.Boolean(),
  sms_enabled: Type.Boolean(),
  date_created: timestampSchema,
  date_updated: timestampSchema,
})
export type PhoneNumber = Static<typeof phoneNumberSchema>
