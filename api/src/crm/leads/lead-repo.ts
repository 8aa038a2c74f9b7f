import { newActivityRow } from '../activities/activity-repo.js'
import { insertContact, type WriteContext } from '../contacts/contact-repo.js'
import type { ContactValues } from '../contacts/contact-input.js'
import type { ActivityTable, Db, LeadAddressTable } from '../../platform/data/database.js'
import { copyMissingCustomValues, writeCustomValues, type CustomValue } from '../custom-fields/custom-values.js'
import { newId } from '../../platform/security/ids.js'
import type { AddressValues } from './lead-input.js'
import { refreshLeadSearch } from './lead-search-index.js'
import { findInOrganization } from '../../platform/data/find-or-404.js'
import { createdStamps } from '../../platform/data/stamps.js'

export interface LeadValues {
  name?: string | null
  url?: string | null
  description?: string | null
  status?: { id: string; label: string }
  addresses?: AddressValues[]
  custom: Map<string, CustomValue[] | null>
}

export interface NewContact {
  values: ContactValues
  custom: Map<string, CustomValue[] | null>
}

/** `lock` takes a row lock until the transaction ends (Postgres only: SQLite has no FOR UPDATE). */
export async function findLead(db: Db, organizationId: string, id: string, options: { lock?: boolean } = {}) {
  return findInOrganization(db, 'lead', organizationId, id, options)
}

async function deleteAddresses(db: Db, organizationId: string, leadId: string) {
  await db
    .deleteFrom('lead_address')
    .where('organization_id', '=', organizationId)
    .where('lead_id', '=', leadId)
    .execute()
}

async function replaceAddresses(db: Db, organizationId: string, leadId: string, addresses: AddressValues[]) {
  await deleteAddresses(db, organizationId, leadId)
  if (addresses.length === 0) return
  await db
    .insertInto('lead_address')
    .values(addresses.map((a, position) => ({ ...a, lead_id: leadId, organization_id: organizationId, position })))
    .execute()
}

/**
 * Creates a lead with its addresses, contacts, custom values and `Created` activity (naming the CSV import that made
 * it, if one did); the caller holds the transaction and records the events (the lead's first, then its contacts' and the activity's).
 */
export async function createLead(
  db: Db,
  ctx: WriteContext,
  lead: LeadValues & { status: { id: string; label: string } },
  contacts: NewContact[],
  source: string,
  importId: string | null = null,
): Promise<{ id: string; activity: ActivityTable }> {
  const id = newId('lead')
  await db
    .insertInto('lead')
    .values({
      id,
      organization_id: ctx.organizationId,
      name: lead.name ?? null,
      url: lead.url ?? null,
      description: lead.description ?? '',
      status_id: lead.status.id,
      ...createdStamps(ctx.userId, ctx.now),
    })
    .execute()
  await replaceAddresses(db, ctx.organizationId, id, lead.addresses ?? [])
  await writeCustomValues(db, { organizationId: ctx.organizationId, leadId: id, objectId: id }, lead.custom)
  for (const [position, contact] of contacts.entries()) {
    await insertContact(db, ctx, id, contact.values, contact.custom, position)
  }
  const activity = newActivityRow({
    organizationId: ctx.organizationId,
    leadId: id,
    userId: ctx.userId,
    type: 'Created',
    data: { source, import_id: importId },
    now: ctx.now,
  })
  await db.insertInto('activity').values(activity).execute()
  await refreshLeadSearch(db, ctx.organizationId, id)
  return { id, activity }
}

/**
 * Patches a lead; a status change records a LeadStatusChange activity, answered so that the caller records its event
 * after the lead's.
 */
export async function updateLead(
  db: Db,
  ctx: WriteContext,
  current: { id: string; status_id: string; status_label: string },
  lead: LeadValues,
  options: { refreshSearch?: boolean } = {},
): Promise<ActivityTable | undefined> {
  await db
    .updateTable('lead')
    .set({
      ...(lead.name === undefined ? {} : { name: lead.name }),
      ...(lead.url === undefined ? {} : { url: lead.url }),
      ...(lead.description === undefined ? {} : { description: lead.description ?? '' }),
      ...(lead.status === undefined ? {} : { status_id: lead.status.id }),
      updated_by: ctx.userId,
      date_updated: ctx.now,
    })
    .where('id', '=', current.id)
    .where('organization_id', '=', ctx.organizationId)
    .execute()
  if (lead.addresses !== undefined) await replaceAddresses(db, ctx.organizationId, current.id, lead.addresses)
  await writeCustomValues(
    db,
    { organizationId: ctx.organizationId, leadId: current.id, objectId: current.id },
    lead.custom,
  )
  let statusChange: ActivityTable | undefined
  if (lead.status !== undefined && lead.status.id !== current.status_id) {
    statusChange = newActivityRow({
      organizationId: ctx.organizationId,
      leadId: current.id,
      userId: ctx.userId,
      type: 'LeadStatusChange',
      data: {
        old_status_id: current.status_id,
        old_status_label: current.status_label,
        new_status_id: lead.status.id,
        new_status_label: lead.status.label,
      },
      now: ctx.now,
    })
    await db.insertInto('activity').values(statusChange).execute()
  }
  // A caller writing many leads (the CSV import) refreshes their search rows itself, once for all of them.
  if (options.refreshSearch !== false) await refreshLeadSearch(db, ctx.organizationId, current.id)
  return statusChange
}

/** Deletes a lead and everything under it (contacts, values, activities, search entry cascade). */
export async function deleteLead(db: Db, organizationId: string, id: string): Promise<void> {
  await deleteLeads(db, organizationId, [id])
}

/** Ids a statement of `deleteLeads` names. */
const DELETE_CHUNK = 500

/**
 * Deletes an organization's leads `ids` and everything under each, a few hundred a statement: a statement's fixed
 * work (its cascades' cursors, and on SQLite the trigram index writing out what it holds as a segment of its own when
 * the next statement begins) is then shared by all of them. Deleted lead by lead, 2,000 leads took 2 to 3 times as
 * long.
 */
export async function deleteLeads(db: Db, organizationId: string, ids: readonly string[]): Promise<void> {
  for (let i = 0; i < ids.length; i += DELETE_CHUNK) {
    await db
      .deleteFrom('lead')
      .where('organization_id', '=', organizationId)
      .where('id', 'in', ids.slice(i, i + DELETE_CHUNK))
      .execute()
  }
}

/** Lead merge: the source's addresses follow the destination's, except those the destination already has. */
async function appendAddresses(db: Db, organizationId: string, sourceId: string, destinationId: string) {
  const rows = await db
    .selectFrom('lead_address')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('lead_id', 'in', [sourceId, destinationId])
    .orderBy('position')
    .execute()
  const key = (a: LeadAddressTable) =>
    JSON.stringify([a.label, a.address_1, a.address_2, a.city, a.state, a.zipcode, a.country])
  const kept = rows.filter((a) => a.lead_id === destinationId)
  const seen = new Set(kept.map(key))
  const added = rows.filter((a) => a.lead_id === sourceId && !seen.has(key(a)))
  await deleteAddresses(db, organizationId, sourceId)
  if (added.length === 0) return
  const next = kept.reduce((max, a) => Math.max(max, a.position + 1), 0)
  await db
    .insertInto('lead_address')
    .values(added.map((a, i) => ({ ...a, lead_id: destinationId, position: next + i })))
    .execute()
}

/**
 * Merges `sourceId` into `destinationId`: contacts, activities and addresses move, empty fields and custom values of
 * the destination are filled from the source, and the source is deleted. Opportunities, tasks and email threads move
 * too: every row that would cascade-delete with the source and belongs to what moved. (Calls and texts are activities;
 * their files, Message-IDs, telephony ids and outbox sends name the activity, not the lead, and so follow it.) The
 * caller holds the transaction.
 */
export async function mergeLeads(db: Db, ctx: WriteContext, sourceId: string, destinationId: string): Promise<void> {
  const source = await findLead(db, ctx.organizationId, sourceId)
  const destination = await findLead(db, ctx.organizationId, destinationId)
  if (source === undefined || destination === undefined) throw new Error('mergeLeads: both leads must exist')
  const move = { lead_id: destinationId }
  const org = ctx.organizationId
  await db.updateTable('contact').set(move).where('organization_id', '=', org).where('lead_id', '=', sourceId).execute()
  for (const table of [
    'contact_email',
    'contact_phone',
    'contact_url',
    'opportunity',
    'task',
    'email_thread',
    'activity',
  ] as const) {
    await db.updateTable(table).set(move).where('organization_id', '=', org).where('lead_id', '=', sourceId).execute()
  }
  // Contacts' and opportunities' own custom values follow them; only the lead's values are merged.
  await db
    .updateTable('custom_value')
    .set(move)
    .where('organization_id', '=', org)
    .where('lead_id', '=', sourceId)
    .where('object_id', '!=', sourceId)
    .execute()
  await copyMissingCustomValues(db, org, sourceId, destinationId, destinationId)
  await appendAddresses(db, org, sourceId, destinationId)
  await db
    .updateTable('lead')
    .set({
      name: destination.name ?? source.name,
      url: destination.url ?? source.url,
      description: destination.description === '' ? source.description : destination.description,
      updated_by: ctx.userId,
      date_updated: ctx.now,
    })
    .where('organization_id', '=', org)
    .where('id', '=', destinationId)
    .execute()
  await deleteLead(db, ctx.organizationId, sourceId)
  await refreshLeadSearch(db, ctx.organizationId, destinationId)
}
