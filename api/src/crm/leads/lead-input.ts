import { Type, type Static } from '@sinclair/typebox'
import { contactBodySchema } from '../contacts/contact-input.js'
import { cleanText } from '../../platform/text/text.js'
import type { LeadAddressTable } from '../../platform/data/database.js'

const nullableText = (maxLength: number) => Type.Union([Type.String({ maxLength }), Type.Null()])

export const ADDRESS_LABELS = ['business', 'mailing', 'other'] as const

export const addressBodySchema = Type.Object({
  label: Type.Optional(Type.Union(ADDRESS_LABELS.map((l) => Type.Literal(l)))),
  address_1: Type.Optional(nullableText(500)),
  address_2: Type.Optional(nullableText(500)),
  city: Type.Optional(nullableText(200)),
  state: Type.Optional(nullableText(200)),
  zipcode: Type.Optional(nullableText(50)),
  country: Type.Optional(Type.Union([Type.String({ pattern: '^[A-Za-z]{2}$' }), Type.Null()])),
})
export type AddressBody = Static<typeof addressBodySchema>

/** Fields a lead body may carry besides `custom.*` keys; everything else (read-only fields included) is ignored. */
export const leadBodySchema = Type.Object(
  {
    name: Type.Optional(nullableText(500)),
    url: Type.Optional(nullableText(2000)),
    description: Type.Optional(nullableText(100_000)),
    status_id: Type.Optional(Type.String()),
    status: Type.Optional(Type.String()),
    contacts: Type.Optional(Type.Array(contactBodySchema, { maxItems: 100 })),
    addresses: Type.Optional(Type.Array(addressBodySchema, { maxItems: 50 })),
  },
  { additionalProperties: true },
)
export type LeadBody = Static<typeof leadBodySchema>

/** An address as a lead stores it, its label one of ADDRESS_LABELS. */
export type AddressValues = Pick<
  LeadAddressTable,
  'address_1' | 'address_2' | 'city' | 'state' | 'zipcode' | 'country'
> & {
  label: (typeof ADDRESS_LABELS)[number]
}

export function normalizeAddress(body: AddressBody): AddressValues {
  const country = cleanText(body.country) ?? null
  return {
    label: body.label ?? 'business',
    address_1: cleanText(body.address_1) ?? null,
    address_2: cleanText(body.address_2) ?? null,
    city: cleanText(body.city) ?? null,
    state: cleanText(body.state) ?? null,
    zipcode: cleanText(body.zipcode) ?? null,
    country: country === null ? null : country.toUpperCase(),
  }
}
