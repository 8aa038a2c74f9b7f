import { contactViews, type ContactParts } from '../contacts/contact-repo.js'
import { opportunitiesOfLeads, opportunityViews } from '../opportunities/opportunity-repo.js'
import { openTasksOfLeads, taskViews } from '../tasks/task-repo.js'
import { compareTaskDates } from '@leadline/shared/task-dates'
import { localDateAt } from '@leadline/shared/tz-offset'
import { groupBy, readInChunks } from '../../platform/data/collections.js'
import type { ContactTable, Db, LeadAddressTable, LeadRow } from '../../platform/data/database.js'
import { customFieldsView, readCustomValues, type CustomValue } from '../custom-fields/custom-values.js'
import type { OrganizationMeta } from '../organizations/organization-meta.js'
import { RawJson } from '../../platform/http/raw-json.js'
import { userNames } from '../users/user-names.js'
import type { ViewCache } from '../../platform/data/view-cache.js'
import type { LeadVersion } from './lead-search.js'
import { contactsOfLeads, underLeads } from './lead-rows.js'

export type LeadView = Record<string, unknown> & { id: string }

/** Whose view it is: a lead's open tasks each say where they are (`view`) in the caller's zone, today. */
export interface ViewCaller {
  offsetHours: number
  now: Date
}

/** Names of the users who created or last changed the leads: members from the metadata, anyone else looked up. */
async function authorNames(db: Db, meta: OrganizationMeta, leads: LeadRow[]): Promise<Map<string, string>> {
  const ids = leads.flatMap((l) => [l.created_by, l.updated_by])
  const others = ids.filter((id): id is string => id !== null && !meta.memberNames.has(id))
  if (others.length === 0) return meta.memberNames
  return new Map([...meta.memberNames, ...(await userNames(db, others))])
}

/**
 * What a bulk write (the CSV import) wrote of new leads, so that their views, for its events, are built without
 * reading those rows back: their contacts (each lead's in view order) and the contacts' rows, their addresses (in
 * position order), their own custom values by lead id, and which of them may have opportunities or tasks (only
 * those are read).
 */
export interface WrittenLeads {
  contacts: ContactTable[]
  contactParts: ContactParts
  addresses: LeadAddressTable[]
  custom: ReadonlyMap<string, Map<string, CustomValue[]>>
  withOpportunities: ReadonlySet<string>
}

/**
 * Builds the wire form of leads (contacts, addresses, custom values, status labels, user names) in a few queries;
 * new leads whose rows the caller wrote (`written`) read only their opportunities and tasks, if they may have any.
 */
export async function leadViews(
  db: Db,
  meta: OrganizationMeta,
  leads: LeadRow[],
  appUrl: string,
  caller: ViewCaller,
  written?: WrittenLeads,
): Promise<LeadView[]> {
  if (leads.length === 0) return []
  const organizationId = meta.organization.id
  const ids = leads.map((l) => l.id)
  const owning = written === undefined ? ids : ids.filter((id) => written.withOpportunities.has(id))
  const leadNames = new Map(leads.map((l) => [l.id, l.name]))
  // Every read but the contacts' own parts needs only the lead ids: on Postgres they go out together (a page of 100
  // uncached leads waited for six round trips one after another), each on a connection of the pool.
  const [contacts, addressRows, custom, names, opportunities, tasks] = await Promise.all([
    Promise.resolve(
      written?.contacts ?? readInChunks(ids, (part) => contactsOfLeads(db, organizationId, part).execute()),
    ).then((rows) => contactViews(db, organizationId, rows, meta.customFields.contact, written?.contactParts)),
    written?.addresses ??
      readInChunks(ids, (part) =>
        underLeads(db, 'lead_address', organizationId, part).selectAll().orderBy('position').execute(),
      ),
    written?.custom ?? readCustomValues(db, organizationId, ids),
    authorNames(db, meta, leads),
    owning.length === 0
      ? []
      : opportunitiesOfLeads(db, organizationId, owning).then((rows) => opportunityViews(db, meta, rows, leadNames)),
    owning.length === 0
      ? []
      : openTasksOfLeads(db, organizationId, owning).then((rows) => taskViews(db, meta, rows, caller, leadNames)),
  ])
  // In the caller's date order, as GET /task/ lists them: a date-only task stands at the start of its day in the
  // caller's zone (before a timed task at that instant), so text order is not it; ties by id, byte by byte.
  tasks.sort((a, b) => compareTaskDates(a.date, b.date, caller.offsetHours) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  const tasksBy = groupBy(tasks, (t) => t.lead_id)
  const contactsBy = groupBy(contacts, (c) => c.lead_id)
  const opportunitiesBy = groupBy(opportunities, (o) => o.lead_id)
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
      status_label: meta.leadStatusLabels.get(lead.status_id) ?? '',
      html_url: `${appUrl}/leads/${lead.id}`,
      contacts: leadContacts,
      addresses,
      opportunities: opportunitiesBy.get(lead.id) ?? [],
      tasks: tasksBy.get(lead.id) ?? [],
      integration_links: [],
      ...customFieldsView(custom.get(lead.id), meta.customFields.lead),
      created_by: lead.created_by,
      created_by_name: lead.created_by === null ? null : (names.get(lead.created_by) ?? null),
      updated_by: lead.updated_by,
      updated_by_name: lead.updated_by === null ? null : (names.get(lead.updated_by) ?? null),
      date_created: lead.date_created,
      date_updated: lead.date_updated,
    }
  })
}

/** Cached in a lead's own entry when its view has open tasks: the view itself is under the caller's zone and day. */
const ZONED = '\u0000zoned'

function zoneKey(caller: ViewCaller): string {
  return `@${String(caller.offsetHours)}/${localDateAt(caller.now, caller.offsetHours)}`
}

/** A lead's cached view text for this caller, if current. */
export function cachedLeadText(
  cache: ViewCache,
  id: string,
  revision: number,
  metaVersion: number,
  caller: ViewCaller,
  zone?: string,
): string | undefined {
  const text = cache.get(id, revision, metaVersion)
  return text === ZONED ? cache.get(id + (zone ?? zoneKey(caller)), revision, metaVersion) : text
}

/** A lead read whole, or only as far as a page of cached views needs it (`LeadVersion`). */
function isWhole(lead: LeadRow | LeadVersion): lead is LeadRow {
  return 'organization_id' in lead
}

/** The organization's leads of these ids, whole; a lead deleted since its id was found is left out. */
async function wholeLeads(db: Db, organizationId: string, ids: string[]): Promise<LeadRow[]> {
  return readInChunks(ids, (part) =>
    db.selectFrom('lead').selectAll().where('organization_id', '=', organizationId).where('id', 'in', part).execute(),
  )
}

/**
 * The JSON text of each lead's view, in order: from the cache where the lead's revision and the organization's
 * meta version still match, built (and cached) for the rest. A lead with open tasks is cached per time zone and day,
 * since its tasks' `view` depends on both; the rest, most leads, once. Leads given as ids and revisions only are read
 * whole when their view is not cached; one deleted by then is left out.
 */
export async function leadViewTexts(
  db: Db,
  cache: ViewCache,
  meta: OrganizationMeta,
  leads: readonly (LeadRow | LeadVersion)[],
  appUrl: string,
  caller: ViewCaller,
): Promise<string[]> {
  const zone = zoneKey(caller)
  const texts = leads.map((lead) => cachedLeadText(cache, lead.id, lead.revision, meta.version, caller, zone))
  const missing = leads.filter((_, i) => texts[i] === undefined)
  if (missing.length === 0) return texts.map((text) => text ?? 'null')
  const whole = missing.filter(isWhole)
  const partial = missing.filter((lead) => !isWhole(lead)).map((lead) => lead.id)
  if (partial.length > 0) whole.push(...(await wholeLeads(db, meta.organization.id, partial)))
  const views = await leadViews(db, meta, whole, appUrl, caller)
  const built = new Map(views.map((view) => [view.id, JSON.stringify(view)]))
  const zoned = new Set(views.filter((view) => Array.isArray(view.tasks) && view.tasks.length > 0).map((v) => v.id))
  for (const lead of whole) {
    const text = built.get(lead.id)
    if (text === undefined) continue
    if (zoned.has(lead.id)) {
      cache.set(lead.id, lead.revision, meta.version, ZONED)
      cache.set(lead.id + zone, lead.revision, meta.version, text)
    } else {
      cache.set(lead.id, lead.revision, meta.version, text)
    }
  }
  return leads.flatMap((lead, i) => {
    const text = texts[i] ?? built.get(lead.id)
    return text === undefined ? [] : [text]
  })
}

/** One lead's view as a response body. */
export async function leadViewBody(
  db: Db,
  cache: ViewCache,
  meta: OrganizationMeta,
  lead: LeadRow,
  appUrl: string,
  caller: ViewCaller,
): Promise<RawJson> {
  const [text] = await leadViewTexts(db, cache, meta, [lead], appUrl, caller)
  return new RawJson(text ?? 'null')
}
