import { Type, type Static } from '@sinclair/typebox'
import { contactInfoTypeSchema, type ContactInfoType } from '@leadline/shared/contact-schema'
import { cleanText, isWebAddress } from '../../platform/text/text.js'
import { isEmail } from '../../platform/text/text.js'
import { normalizeContactPhone } from '../../platform/text/phone-format.js'

const nullableText = (maxLength: number) => Type.Union([Type.String({ maxLength }), Type.Null()])

/** A contact as clients send it, nested in a lead or on its own; `custom.*` keys ride along. */
export const contactBodySchema = Type.Object(
  {
    name: Type.Optional(nullableText(500)),
    title: Type.Optional(nullableText(500)),
    emails: Type.Optional(
      Type.Array(Type.Object({ type: Type.Optional(contactInfoTypeSchema), email: Type.String({ maxLength: 320 }) }), {
        maxItems: 50,
      }),
    ),
    phones: Type.Optional(
      Type.Array(Type.Object({ type: Type.Optional(contactInfoTypeSchema), phone: Type.String({ maxLength: 64 }) }), {
        maxItems: 50,
      }),
    ),
    urls: Type.Optional(
      Type.Array(Type.Object({ type: Type.Optional(contactInfoTypeSchema), url: Type.String({ maxLength: 2000 }) }), {
        maxItems: 50,
      }),
    ),
  },
  { additionalProperties: true },
)
export type ContactBody = Static<typeof contactBodySchema>

export interface ContactValues {
  name?: string | null
  title?: string | null
  emails?: { type: ContactInfoType; email: string }[]
  phones?: { type: ContactInfoType; phone: string }[]
  urls?: { type: ContactInfoType; url: string }[]
}

/**
 * Checks and normalizes a contact body: emails must be real addresses, phones are read in the organization's
 * country (see `normalizeContactPhone`), urls must be web addresses. A blank email or phone entry is dropped, as
 * Close drops it (a form's empty row), not refused. Field errors are keyed under `prefix` (`contacts.0.` or ``).
 */
export function normalizeContactBody(
  body: ContactBody,
  prefix: string,
  country: string,
): { values: ContactValues; fieldErrors: Record<string, string> } {
  const fieldErrors: Record<string, string> = {}
  const values: ContactValues = {}
  const name = cleanText(body.name)
  if (name !== undefined) values.name = name
  const title = cleanText(body.title)
  if (title !== undefined) values.title = title
  if (body.emails !== undefined) {
    values.emails = []
    for (const [i, entry] of body.emails.entries()) {
      const email = entry.email.trim()
      if (email === '') continue
      if (!isEmail(email)) fieldErrors[`${prefix}emails.${i}.email`] = 'Enter a valid email address.'
      values.emails.push({ type: entry.type ?? 'office', email })
    }
  }
  if (body.phones !== undefined) {
    values.phones = []
    for (const [i, entry] of body.phones.entries()) {
      if (entry.phone.trim() === '') continue
      const phone = normalizeContactPhone(entry.phone, country)
      if (phone === undefined) fieldErrors[`${prefix}phones.${i}.phone`] = 'Enter a valid phone number.'
      values.phones.push({ type: entry.type ?? 'office', phone: phone ?? entry.phone })
    }
  }
  if (body.urls !== undefined) {
    values.urls = body.urls.map((entry, i) => {
      const url = entry.url.trim()
      if (!isWebAddress(url)) fieldErrors[`${prefix}urls.${i}.url`] = 'Enter a valid URL.'
      return { type: entry.type ?? 'url', url }
    })
  }
  return { values, fieldErrors }
}
