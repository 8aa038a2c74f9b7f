import { Type, type Static } from '@sinclair/typebox'
import { timestampSchema } from './list.js'
import { phoneNumberTypeSchema } from './phone-number-schema.js'

export const ROLES = ['admin', 'user'] as const
export const roleSchema = Type.Union(ROLES.map((r) => Type.Literal(r)))
export type Role = Static<typeof roleSchema>

/** One of the user's phone numbers in the organization, as `/me/` and `/user/` list them. */
export const userPhoneNumberSchema = Type.Object({
  id: Type.String(),
  number: Type.String({ description: 'E.164.' }),
  label: Type.Union([Type.String(), Type.Null()]),
  type: phoneNumberTypeSchema,
})
export type UserPhoneNumber = Static<typeof userPhoneNumberSchema>

export const userSchema = Type.Object({
  id: Type.String(),
  email: Type.String(),
  first_name: Type.Union([Type.String(), Type.Null()]),
  last_name: Type.Union([Type.String(), Type.Null()]),
  display_name: Type.String(),
  image: Type.Union([Type.String(), Type.Null()]),
  last_used_timezone: Type.Union([Type.String(), Type.Null()]),
  organizations: Type.Array(Type.String()),
  phone_numbers: Type.Array(userPhoneNumberSchema, {
    description: 'The user’s phone numbers in the organization asked about, oldest first.',
  }),
  date_created: timestampSchema,
  date_updated: timestampSchema,
})
export type User = Static<typeof userSchema>

export const membershipSchema = Type.Object({
  id: Type.String(),
  organization_id: Type.String(),
  user_id: Type.String(),
  user_email: Type.String(),
  user_full_name: Type.String(),
  user_first_name: Type.Union([Type.String(), Type.Null()]),
  user_last_name: Type.Union([Type.String(), Type.Null()]),
  role_id: roleSchema,
  role: roleSchema,
  date_created: timestampSchema,
  date_updated: timestampSchema,
})
export type Membership = Static<typeof membershipSchema>

export const AVAILABILITY_TYPES = ['mobile', 'native', 'web'] as const

const nullableText = () => Type.Union([Type.String(), Type.Null()])

/** A call a user is on, as the organization's telephony reported it through the inbound endpoint. */
export const activeCallSchema = Type.Object({
  activity_id: Type.String({ description: 'The Call activity.' }),
  provider_call_id: Type.String({ description: "The telephony side's id of the call." }),
  lead_id: Type.String(),
  contact_id: nullableText(),
  direction: nullableText(),
  status: nullableText(),
  remote_phone: nullableText(),
  local_phone: nullableText(),
  date_started: Type.Union([timestampSchema], { description: 'When the call was first reported.' }),
})
export type ActiveCall = Static<typeof activeCallSchema>

export const availabilitySchema = Type.Object({
  user_id: Type.String(),
  status: Type.Union([Type.Literal('online'), Type.Literal('offline')]),
  status_by_type: Type.Object({
    mobile: Type.Union([Type.Literal('online'), Type.Literal('offline')]),
    native: Type.Union([Type.Literal('online'), Type.Literal('offline')]),
    web: Type.Union([Type.Literal('online'), Type.Literal('offline')]),
  }),
  last_seen: Type.Union([timestampSchema, Type.Null()]),
  active_calls: Type.Array(activeCallSchema, {
    description: 'The calls the user is on (reported in progress, and not ended, within the last 4 hours).',
  }),
})
export type Availability = Static<typeof availabilitySchema>
