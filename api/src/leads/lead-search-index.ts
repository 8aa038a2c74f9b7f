import type { Db } from '../db/database.js'
import { formatPhoneNumber, phoneSearchForms } from '../phone-numbers/phone-number-repo.js'
import { foldCase } from '../platform/text.js'

type Text = string | null

export interface SearchableLead {
  name: Text
  description: Text
  url: Text
  contacts: { name: Text; title: Text }[]
  emails: string[]
  /** E.164 numbers; their formatted, digits-only and national forms are indexed too. */
  phones: string[]
  urls: string[]
  addresses: { address_1: Text; address_2: Text; city: Text; state: Text; zipcode: Text; country: Text }[]
}

/** The free-text search document of a lead: every searchable text, lower-cased, one per line. */
export function searchDocument(lead: SearchableLead): string {
  const parts: Text[] = [
    lead.name,
    lead.description,
    lead.url,
    ...lead.contacts.flatMap((c) => [c.name, c.title]),
    ...lead.emails,
    ...lead.phones.flatMap((p) => [p, formatPhoneNumber(p), ...phoneSearchForms(p)]),
    ...lead.urls,
    ...lead.addresses.flatMap((a) => [a.address_1, a.address_2, a.city, a.state, a.zipcode, a.country]),
  ]
  return foldCase(parts.filter((p): p is string => p !== null && p !== '').join('\n'))
}

/**
 * Rebuilds a lead's search document. Called in the same transaction as every write that changes a searchable
 * text, so search never sees a half-written lead.
 */
export async function refreshLeadSearch(db: Db, organizationId: string, leadId: string): Promise<void> {
  const lead = await db
    .selectFrom('lead')
    .select(['name', 'description', 'url'])
    .where('organization_id', '=', organizationId)
    .where('id', '=', leadId)
    .executeTakeFirst()
  if (lead === undefined) return
  const [contacts, emails, phones, urls, addresses] = await Promise.all([
    db
      .selectFrom('contact')
      .select(['name', 'title'])
      .where('organization_id', '=', organizationId)
      .where('lead_id', '=', leadId)
      .execute(),
    db
      .selectFrom('contact_email')
      .select('email')
      .where('organization_id', '=', organizationId)
      .where('lead_id', '=', leadId)
      .execute(),
    db
      .selectFrom('contact_phone')
      .select('phone')
      .where('organization_id', '=', organizationId)
      .where('lead_id', '=', leadId)
      .execute(),
    db
      .selectFrom('contact_url')
      .select('url')
      .where('organization_id', '=', organizationId)
      .where('lead_id', '=', leadId)
      .execute(),
    db
      .selectFrom('lead_address')
      .select(['address_1', 'address_2', 'city', 'state', 'zipcode', 'country'])
      .where('organization_id', '=', organizationId)
      .where('lead_id', '=', leadId)
      .execute(),
  ])
  const body = searchDocument({
    ...lead,
    contacts,
    emails: emails.map((e) => e.email),
    phones: phones.map((p) => p.phone),
    urls: urls.map((u) => u.url),
    addresses,
  })
  await db
    .insertInto('lead_search')
    .values({ lead_id: leadId, organization_id: organizationId, body })
    .onConflict((oc) => oc.column('lead_id').doUpdateSet({ body }))
    .execute()
}
