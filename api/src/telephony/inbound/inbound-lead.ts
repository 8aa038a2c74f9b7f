import { sql } from 'kysely'
import type { Db, Dialect } from '../../platform/data/database.js'
import type { ChangeContext, EventContext } from '../../integrations/events/event-repo.js'
import { createLeadFromBody, contactsOf, type LeadViewer } from '../../crm/leads/lead-write.js'
import type { OrganizationMeta } from '../../crm/organizations/organization-meta.js'
import { formatPhoneNumber } from '../../platform/text/phone-format.js'

/** The lead a call or message goes on, and the contact it is with. */
export interface InboundParty {
  leadId: string
  contactId: string | null
  /** The number was tied to no contact: the lead was made for it now. */
  newLead: boolean
}

/**
 * The contact whose phone is `e164`; when several are, one on the most recently updated of their leads (ties: the
 * lead's id, then the contact made first).
 */
export async function findContactByPhone(db: Db, organizationId: string, e164: string) {
  return db
    .selectFrom('contact_phone')
    .innerJoin('lead', 'lead.id', 'contact_phone.lead_id')
    .innerJoin('contact', 'contact.id', 'contact_phone.contact_id')
    .select(['contact_phone.lead_id', 'contact_phone.contact_id'])
    .where('contact_phone.organization_id', '=', organizationId)
    .where('contact_phone.phone', '=', e164)
    .where('lead.organization_id', '=', organizationId)
    .orderBy('lead.date_updated', 'desc')
    .orderBy('lead.id', 'desc')
    .orderBy('contact.date_created')
    .orderBy('contact.id')
    .limit(1)
    .executeTakeFirst()
}

/**
 * The lead of the contact with the number `remote` (E.164); for a number tied to no contact, a new lead named after
 * the formatted number with one contact holding it, made as `POST /lead/` makes one (its events recorded), so the
 * next call or message from it finds it. On Postgres two first messages from one number at once make one lead: the
 * lookup and the creation hold a transaction lock on the number.
 */
export async function inboundParty(
  tx: Db,
  dialect: Dialect,
  ctx: ChangeContext & { events: EventContext },
  organization: OrganizationMeta,
  remote: string,
  phoneType: 'mobile' | 'office',
  viewer: LeadViewer,
): Promise<InboundParty> {
  if (dialect === 'postgres') {
    await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`inbound:${ctx.organizationId}:${remote}`}, 0))`.execute(
      tx,
    )
  }
  const found = await findContactByPhone(tx, ctx.organizationId, remote)
  if (found !== undefined) return { leadId: found.lead_id, contactId: found.contact_id, newLead: false }
  const lead = await createLeadFromBody(
    tx,
    ctx,
    organization,
    { name: formatPhoneNumber(remote), contacts: [{ phones: [{ phone: remote, type: phoneType }] }] },
    'inbound',
    viewer,
  )
  return { leadId: lead.id, contactId: contactsOf(lead)[0]?.id ?? null, newLead: true }
}
