import { CONTACT_INFO_TYPES } from '@leadline/shared/contact-info-types'
import type { Contact, ContactInfoType } from '@leadline/shared/contact-schema'
import type {
  ContactEmailTable,
  ContactPhoneTable,
  ContactTable,
  ContactUrlTable,
  Db,
} from '../../platform/data/database.js'
import {
  customFieldsView,
  readCustomValues,
  writeCustomValues,
  type CustomFieldDef,
  type CustomValue,
} from '../custom-fields/custom-values.js'
import { groupBy, readInChunks } from '../../platform/data/collections.js'
import { newId } from '../../platform/security/ids.js'
import type { ChangeContext, EventAction, EventInput } from '../../integrations/events/event-repo.js'
import type { ContactValues } from './contact-input.js'
import { formatPhoneNumber, phoneCountry } from '../../platform/text/phone-format.js'
import { findInOrganization } from '../../platform/data/find-or-404.js'
import { createdStamps } from '../../platform/data/stamps.js'

export type WriteContext = ChangeContext

/** A contact's event, under its lead. */
export function contactEvent(contact: Contact, action: EventAction): EventInput {
  return { objectType: 'contact', objectId: contact.id, action, leadId: contact.lead_id, data: contact }
}

async function replaceInfo(db: Db, ctx: WriteContext, contactId: string, leadId: string, values: ContactValues) {
  const base = { contact_id: contactId, organization_id: ctx.organizationId, lead_id: leadId }
  if (values.emails !== undefined) {
    await db
      .deleteFrom('contact_email')
      .where('organization_id', '=', ctx.organizationId)
      .where('contact_id', '=', contactId)
      .execute()
    if (values.emails.length > 0) {
      await db
        .insertInto('contact_email')
        .values(
          values.emails.map((e, position) => ({
            ...base,
            position,
            type: e.type,
            email: e.email,
            value_lower: e.email.toLowerCase(),
          })),
        )
        .execute()
    }
  }
  if (values.phones !== undefined) {
    await db
      .deleteFrom('contact_phone')
      .where('organization_id', '=', ctx.organizationId)
      .where('contact_id', '=', contactId)
      .execute()
    if (values.phones.length > 0) {
      await db
        .insertInto('contact_phone')
        .values(
          values.phones.map((p, position) => ({
            ...base,
            position,
            type: p.type,
            phone: p.phone,
            value_lower: p.phone,
          })),
        )
        .execute()
    }
  }
  if (values.urls !== undefined) {
    await db
      .deleteFrom('contact_url')
      .where('organization_id', '=', ctx.organizationId)
      .where('contact_id', '=', contactId)
      .execute()
    if (values.urls.length > 0) {
      await db
        .insertInto('contact_url')
        .values(
          values.urls.map((u, position) => ({
            ...base,
            position,
            type: u.type,
            url: u.url,
            value_lower: u.url.toLowerCase(),
          })),
        )
        .execute()
    }
  }
}

/**
 * Inserts a contact with its emails, phones, urls and custom values; the caller holds the transaction. `position`
 * orders the contacts made in one request (a lead's, in the order sent).
 */
export async function insertContact(
  db: Db,
  ctx: WriteContext,
  leadId: string,
  values: ContactValues,
  custom: Map<string, CustomValue[] | null>,
  position = 0,
): Promise<string> {
  const id = newId('contact')
  await db
    .insertInto('contact')
    .values({
      id,
      organization_id: ctx.organizationId,
      lead_id: leadId,
      name: values.name ?? null,
      title: values.title ?? null,
      position,
      ...createdStamps(ctx.userId, ctx.now),
    })
    .execute()
  await replaceInfo(db, ctx, id, leadId, { emails: [], phones: [], urls: [], ...values })
  await writeCustomValues(db, { organizationId: ctx.organizationId, leadId, objectId: id }, custom)
  return id
}

/** Patches a contact: only the keys present change; a sent list of emails/phones/urls replaces the old one. */
export async function updateContact(
  db: Db,
  ctx: WriteContext,
  contact: ContactTable,
  values: ContactValues,
  custom: Map<string, CustomValue[] | null>,
): Promise<void> {
  await db
    .updateTable('contact')
    .set({
      ...(values.name === undefined ? {} : { name: values.name }),
      ...(values.title === undefined ? {} : { title: values.title }),
      updated_by: ctx.userId,
      date_updated: ctx.now,
    })
    .where('id', '=', contact.id)
    .where('organization_id', '=', ctx.organizationId)
    .execute()
  await replaceInfo(db, ctx, contact.id, contact.lead_id, values)
  await writeCustomValues(
    db,
    { organizationId: ctx.organizationId, leadId: contact.lead_id, objectId: contact.id },
    custom,
  )
}

export async function findContact(db: Db, organizationId: string, id: string) {
  return findInOrganization(db, 'contact', organizationId, id)
}

/** Whether `contactId` (null: no contact) may go with the lead; when not, says so in `errors.contact_id`. */
export async function checkContactOfLead(
  db: Db,
  organizationId: string,
  leadId: string | undefined,
  contactId: string | null,
  errors: Record<string, string>,
): Promise<boolean> {
  if (contactId === null) return true
  const contact = await findContact(db, organizationId, contactId)
  if (contact !== undefined && contact.lead_id === leadId) return true
  errors.contact_id = 'Not a contact of this lead.'
  return false
}

/** The emails, phones or urls (`table`) of some of the organization's contacts, each contact's in their order. */
export function contactInfoOf<T extends 'contact_email' | 'contact_phone' | 'contact_url'>(
  db: Db,
  table: T,
  organizationId: string,
  contactIds: string[],
) {
  // The table is a type parameter: Kysely's dynamic module keeps the query typed (as in find-or-404.ts).
  return db
    .selectFrom(db.dynamic.table(table).as('t'))
    .selectAll()
    .where(db.dynamic.ref('organization_id'), '=', organizationId)
    .where(db.dynamic.ref('contact_id'), 'in', contactIds)
    .orderBy(db.dynamic.ref('position'))
}

function toInfoType(stored: string): ContactInfoType {
  return CONTACT_INFO_TYPES.find((t) => t === stored) ?? 'other'
}

/** The rows a contact's view is built from besides its own: as read back, or as a bulk write wrote them. */
export interface ContactParts {
  /** Each contact's in their order (any order among contacts). */
  emails: readonly ContactEmailTable[]
  phones: readonly ContactPhoneTable[]
  urls: readonly ContactUrlTable[]
  /** By contact id, then field id, in their order. */
  custom: ReadonlyMap<string, Map<string, CustomValue[]>>
}

/**
 * Reads the emails, phones, urls and custom values of some of an organization's contacts, in a few queries. The four
 * are independent: on Postgres they go out together, each on a connection of the pool.
 */
async function readContactParts(db: Db, organizationId: string, ids: string[]): Promise<ContactParts> {
  const [emails, phones, urls, custom] = await Promise.all([
    readInChunks(ids, (part) => contactInfoOf(db, 'contact_email', organizationId, part).execute()),
    readInChunks(ids, (part) => contactInfoOf(db, 'contact_phone', organizationId, part).execute()),
    readInChunks(ids, (part) => contactInfoOf(db, 'contact_url', organizationId, part).execute()),
    readCustomValues(db, organizationId, ids),
  ])
  return { emails, phones, urls, custom }
}

/**
 * Builds the wire form of the given contacts, with their emails, phones, urls and custom values: read in few
 * queries, unless the caller wrote them itself and passes them (`written`).
 */
export async function contactViews(
  db: Db,
  organizationId: string,
  contacts: ContactTable[],
  defs: CustomFieldDef[],
  written?: ContactParts,
): Promise<Contact[]> {
  if (contacts.length === 0) return []
  const { emails, phones, urls, custom } =
    written ??
    (await readContactParts(
      db,
      organizationId,
      contacts.map((c) => c.id),
    ))
  const emailsBy = groupBy(emails, (e) => e.contact_id)
  const phonesBy = groupBy(phones, (p) => p.contact_id)
  const urlsBy = groupBy(urls, (u) => u.contact_id)
  return contacts.map((c): Contact => {
    const contactEmails = (emailsBy.get(c.id) ?? []).map((e) => ({
      type: toInfoType(e.type),
      email: e.email,
      email_lower: e.value_lower,
    }))
    return {
      id: c.id,
      organization_id: c.organization_id,
      lead_id: c.lead_id,
      name: c.name,
      display_name: c.name ?? contactEmails[0]?.email ?? '',
      title: c.title ?? '',
      emails: contactEmails,
      phones: (phonesBy.get(c.id) ?? []).map((p) => ({
        type: toInfoType(p.type),
        phone: p.phone,
        phone_formatted: formatPhoneNumber(p.phone),
        country: phoneCountry(p.phone) ?? null,
      })),
      urls: (urlsBy.get(c.id) ?? []).map((u) => ({ type: toInfoType(u.type), url: u.url })),
      integration_links: [],
      ...customFieldsView(custom.get(c.id), defs),
      created_by: c.created_by,
      updated_by: c.updated_by,
      date_created: c.date_created,
      date_updated: c.date_updated,
    }
  })
}
