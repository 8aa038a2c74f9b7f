import { contactViews } from '../contacts/contact-repo.js'
import { groupBy } from '../platform/collections.js'
import type { ContactTable, Db, LeadAddressTable, LeadTable } from '../db/database.js'
import { customFieldsView, listCustomFieldDefs, readCustomValues } from '../custom-fields/custom-values.js'
import { userNames } from '../users/user-names.js'

export type LeadView = Record<string, unknown> & { id: string }

const CHUNK = 500

/** Builds the wire form of leads (contacts, addresses, custom values, status labels, user names) in a few queries. */
export async function leadViews(
  db: Db,
  organizationId: string,
  leads: LeadTable[],
  appUrl: string,
): Promise<LeadView[]> {
  if (leads.length === 0) return []
  const ids = leads.map((l) => l.id)
  const [leadDefs, contactDefs, statuses] = await Promise.all([
    listCustomFieldDefs(db, organizationId, 'lead'),
    listCustomFieldDefs(db, organizationId, 'contact'),
    db.selectFrom('lead_status').select(['id', 'label']).where('organization_id', '=', organizationId).execute(),
  ])
  const contactRows: ContactTable[] = []
  const addressRows: LeadAddressTable[] = []
  for (let i = 0; i < ids.length; i += CHUNK) {
    const part = ids.slice(i, i + CHUNK)
    contactRows.push(
      ...(await db
        .selectFrom('contact')
        .selectAll()
        .where('organization_id', '=', organizationId)
        .where('lead_id', 'in', part)
        .orderBy('date_created')
        .orderBy('id')
        .execute()),
    )
    addressRows.push(
      ...(await db
        .selectFrom('lead_address')
        .selectAll()
        .where('organization_id', '=', organizationId)
        .where('lead_id', 'in', part)
        .orderBy('position')
        .execute()),
    )
  }
  const [contacts, custom, names] = await Promise.all([
    contactViews(db, organizationId, contactRows, contactDefs),
    readCustomValues(db, organizationId, ids),
    userNames(
      db,
      leads.flatMap((l) => [l.created_by, l.updated_by]),
    ),
  ])
  const statusLabels = new Map(statuses.map((s) => [s.id, s.label]))
  const contactsBy = groupBy(contacts, (c) => c.lead_id)
  const addressesBy = groupBy(addressRows, (a) => a.lead_id)
  return leads.map((lead): LeadView => {
    const leadContacts = contactsBy.get(lead.id) ?? []
    const addresses = (addressesBy.get(lead.id) ?? []).map((a) => ({
      label: a.label,
      address_1: a.address_1,
      address_2: a.address_2,
      city: a.city,
      state: a.state,
      zipcode: a.zipcode,
      country: a.country,
    }))
    return {
      id: lead.id,
      organization_id: lead.organization_id,
      name: lead.name,
      display_name: lead.name ?? leadContacts[0]?.display_name ?? '',
      description: lead.description,
      url: lead.url,
      status_id: lead.status_id,
      status_label: statusLabels.get(lead.status_id) ?? '',
      html_url: `${appUrl}/leads/${lead.id}`,
      contacts: leadContacts,
      addresses,
      // Stub: the opportunity and task tables do not exist yet.
      opportunities: [],
      tasks: [],
      integration_links: [],
      ...customFieldsView(custom.get(lead.id), leadDefs),
      created_by: lead.created_by,
      created_by_name: lead.created_by === null ? null : (names.get(lead.created_by) ?? null),
      updated_by: lead.updated_by,
      updated_by_name: lead.updated_by === null ? null : (names.get(lead.updated_by) ?? null),
      date_created: lead.date_created,
      date_updated: lead.date_updated,
    }
  })
}
