import { Type, type Static } from '@sinclair/typebox'
import { CONTACT_INFO_TYPES } from './contact-info-types.js'
import { timestampSchema } from './list.js'

export const contactInfoTypeSchema = Type.Union(CONTACT_INFO_TYPES.map((t) => Type.Literal(t)))
export type ContactInfoType = Static<typeof contactInfoTypeSchema>

export const contactEmailSchema = Type.Object({
  type: contactInfoTypeSchema,
  email: Type.String(),
  email_lower: Type.String(),
})
export const contactPhoneSchema = Type.Object({
  type: contactInfoTypeSchema,
  phone: Type.String({ description: 'E.164' }),
  phone_formatted: Type.String(),
  country: Type.Union([Type.String(), Type.Null()]),
})
export const contactUrlSchema = Type.Object({ type: contactInfoTypeSchema, url: Type.String() })

export const contactSchema = Type.Object(
  {
    id: Type.String(),
    organization_id: Type.String(),
    lead_id: Type.String(),
    name: Type.Union([Type.String(), Type.Null()]),
    display_name: Type.String(),
    // The API answers '' for no title, as Close does; the type stays nullable for the clients that build contacts.
    title: Type.Union([Type.String(), Type.Null()], { description: "'' when the contact has no title." }),
    emails: Type.Array(contactEmailSchema),
    phones: Type.Array(contactPhoneSchema),
    urls: Type.Array(contactUrlSchema),
    // Always sent (empty); optional in the type so clients that build contacts need not invent it.
    integration_links: Type.Optional(Type.Array(Type.Unknown())),
    custom: Type.Record(Type.String(), Type.Unknown()),
    created_by: Type.Union([Type.String(), Type.Null()]),
    updated_by: Type.Union([Type.String(), Type.Null()]),
    date_created: timestampSchema,
    date_updated: timestampSchema,
  },
  { additionalProperties: true, description: 'Custom field values appear as `custom.<field id>` keys.' },
)
export type Contact = Static<typeof contactSchema> & Record<`custom.${string}`, unknown>
