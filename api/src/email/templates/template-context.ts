import type { ContactTable, Db } from '../../platform/data/database.js'
import { contactInfoOf, findContact } from '../../crm/contacts/contact-repo.js'
import { listCustomFieldDefs, readCustomValues, type CustomValue } from '../../crm/custom-fields/custom-values.js'
import { findLead } from '../../crm/leads/lead-repo.js'
import { contactsOfLeads } from '../../crm/leads/lead-rows.js'
import { ValidationError } from '../../platform/http/errors.js'
import { displayName } from '../../crm/users/user-repo.js'

// What a template's placeholders can name. Every object has every key, empty values null, whatever the lead has
// (a lead without contacts still has `contact.first_name`, null), so what counts as an unknown placeholder depends
// on the template alone, and on the organization's custom fields. Objects have no prototype: a template reads
// only these keys.

type Value = string | number | null

export interface TemplateContext {
  contact: Record<'first_name' | 'last_name' | 'name' | 'title' | 'email' | 'phone', Value>
  lead: Record<'display_name' | 'name' | 'description' | 'url' | 'status_label', Value> & {
    custom: Record<string, Value>
  }
  user: Record<'first_name' | 'last_name' | 'full_name' | 'email', Value>
  organization: { name: Value }
}

/** Custom field types whose values read as text in an email; `user` and `contact` fields hold ids, `hidden` is hidden. */
const READABLE_CUSTOM_TYPES = new Set(['text', 'textarea', 'number', 'date', 'datetime', 'choices'])

export interface ContextInput {
  organizationId: string
  leadId: string
  /** The lead's first contact when null. */
  contactId: string | null
  userId: string
}

function bare<T extends object>(fields: T): T {
  return Object.assign(Object.create(null) as T, fields)
}

function nonBlank(text: string | null | undefined): string | null {
  return text === null || text === undefined || text.trim() === '' ? null : text
}

/** A contact's first email address. */
async function firstEmail(db: Db, organizationId: string, contactId: string): Promise<string | null> {
  const row = await contactInfoOf(db, 'contact_email', organizationId, [contactId]).limit(1).executeTakeFirst()
  return row?.email ?? null
}

/** A contact's first phone number. */
async function firstPhone(db: Db, organizationId: string, contactId: string): Promise<string | null> {
  const row = await contactInfoOf(db, 'contact_phone', organizationId, [contactId]).limit(1).executeTakeFirst()
  return row?.phone ?? null
}

async function firstContact(db: Db, organizationId: string, leadId: string): Promise<ContactTable | undefined> {
  return contactsOfLeads(db, organizationId, [leadId]).limit(1).executeTakeFirst()
}

/** The lead's custom values by field name, for the fields whose values read as text (several values: comma-joined). */
async function customByName(db: Db, organizationId: string, leadId: string): Promise<Record<string, Value>> {
  const [defs, values] = await Promise.all([
    listCustomFieldDefs(db, organizationId, 'lead'),
    readCustomValues(db, organizationId, [leadId]),
  ])
  const stored = values.get(leadId)
  const custom: Record<string, Value> = bare({})
  for (const def of defs) {
    if (!READABLE_CUSTOM_TYPES.has(def.type)) continue
    const list: CustomValue[] = stored?.get(def.id) ?? []
    custom[def.name] = list.length === 0 ? null : list.length === 1 ? (list[0] ?? null) : list.join(', ')
  }
  return custom
}

/**
 * The context a template is rendered in for a lead, one of its contacts (its first when `contactId` is null) and
 * a user. A lead not of the organization, or a contact not of the lead, is a 400 field error.
 */
export async function templateContext(db: Db, input: ContextInput): Promise<TemplateContext> {
  const { organizationId, leadId, contactId } = input
  const [lead, chosen, first] = await Promise.all([
    findLead(db, organizationId, leadId),
    contactId === null ? undefined : findContact(db, organizationId, contactId),
    firstContact(db, organizationId, leadId),
  ])
  const errors: Record<string, string> = {}
  if (lead === undefined) errors.lead_id = 'Object does not exist.'
  if (contactId !== null && (chosen === undefined || chosen.lead_id !== leadId))
    errors.contact_id = 'Not a contact of this lead.'
  if (lead === undefined || Object.keys(errors).length > 0) throw new ValidationError(errors)
  const contact = contactId === null ? first : chosen
  const [email, phone, firstContactEmail, status, user, organization, custom] = await Promise.all([
    contact === undefined ? null : firstEmail(db, organizationId, contact.id),
    contact === undefined ? null : firstPhone(db, organizationId, contact.id),
    // A lead without a name is shown by its first contact's name, else that contact's first email.
    lead.name === null && first !== undefined && first.name === null ? firstEmail(db, organizationId, first.id) : null,
    db
      .selectFrom('lead_status')
      .select('label')
      .where('organization_id', '=', organizationId)
      .where('id', '=', lead.status_id)
      .executeTakeFirst(),
    db
      .selectFrom('user')
      .select(['first_name', 'last_name', 'email'])
      .where('id', '=', input.userId)
      .executeTakeFirst(),
    db.selectFrom('organization').select('name').where('id', '=', organizationId).executeTakeFirst(),
    customByName(db, organizationId, leadId),
  ])
  const contactName = nonBlank(contact?.name)
  const [firstName = null, ...rest] = contactName === null ? [] : contactName.trim().split(/\s+/)
  return bare({
    contact: bare({
      first_name: firstName,
      last_name: rest.length === 0 ? null : rest.join(' '),
      name: contactName,
      title: nonBlank(contact?.title),
      email,
      phone,
    }),
    lead: bare({
      display_name: lead.name ?? first?.name ?? firstContactEmail ?? '',
      name: lead.name,
      description: nonBlank(lead.description),
      url: lead.url,
      status_label: status?.label ?? null,
      custom,
    }),
    user: bare({
      first_name: nonBlank(user?.first_name),
      last_name: nonBlank(user?.last_name),
      full_name: user === undefined ? null : displayName(user),
      email: user?.email ?? null,
    }),
    organization: bare({ name: organization?.name ?? null }),
  })
}
