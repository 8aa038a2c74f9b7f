import { Type, type Static } from '@sinclair/typebox'
import { contactSchema, type Contact } from './contact-schema.js'
import { customValueSchema } from './custom-field-schema.js'
import { commonFieldsSchema } from './list.js'
import { opportunitySchema } from './opportunity-schema.js'

export const ADDRESS_LABELS = ['business', 'mailing', 'other'] as const
export const addressLabelSchema = Type.Union(ADDRESS_LABELS.map((l) => Type.Literal(l)))

const nullableString = () => Type.Union([Type.String(), Type.Null()])

export const addressSchema = Type.Object({
  label: addressLabelSchema,
  address_1: nullableString(),
  address_2: nullableString(),
  city: nullableString(),
  state: nullableString(),
  zipcode: nullableString(),
  country: Type.Union([Type.String({ description: 'ISO 3166-1 alpha-2' }), Type.Null()]),
})
export type Address = Static<typeof addressSchema>

export const leadSchema = Type.Object(
  {
    id: Type.String(),
    organization_id: Type.String(),
    name: nullableString(),
    display_name: Type.String(),
    description: nullableString(),
    url: nullableString(),
    status_id: Type.String(),
    status_label: Type.String(),
    html_url: Type.String(),
    contacts: Type.Array(contactSchema),
    addresses: Type.Array(addressSchema),
    opportunities: Type.Array(opportunitySchema, { description: 'The lead’s opportunities, oldest first.' }),
    tasks: Type.Array(Type.Unknown(), { description: 'Filled once tasks land.' }),
    integration_links: Type.Array(Type.Unknown()),
    custom: Type.Record(Type.String(), Type.Union([customValueSchema, Type.Array(customValueSchema)]), {
      description: 'Deprecated: the values keyed by field name.',
    }),
    ...commonFieldsSchema,
  },
  {
    additionalProperties: true,
    description: 'Custom field values appear as `custom.<field id>` keys (a list for multiple-value fields).',
  },
)
export type Lead = Omit<Static<typeof leadSchema>, 'contacts'> & { contacts: Contact[] } & Record<
    `custom.${string}`,
    unknown
  >

export const leadPageSchema = Type.Object({
  has_more: Type.Boolean(),
  total_results: Type.Integer(),
  data: Type.Array(leadSchema),
})
export interface LeadPage {
  has_more: boolean
  total_results: number
  data: Lead[]
}
