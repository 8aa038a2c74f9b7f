import type { Contact } from '@leadline/shared/contact-schema'
import { activityEvents } from '../activities/activity-repo.js'
import { normalizeContactBody, type ContactBody } from '../contacts/contact-input.js'
import { contactEvent } from '../contacts/contact-repo.js'
import type { Db, LeadRow } from '../../platform/data/database.js'
import {
  recordEvents,
  type ChangeContext,
  type EventContext,
  type EventInput,
} from '../../integrations/events/event-repo.js'
import type { OrganizationMeta } from '../organizations/organization-meta.js'
import { NotFoundError } from '../../platform/http/errors.js'
import {
  listCustomFieldDefs,
  parseCustomInput,
  unknownContactErrors,
  type CustomFieldDef,
} from '../custom-fields/custom-values.js'
import { ValidationError } from '../../platform/http/errors.js'
import { cleanText, isWebAddress } from '../../platform/text/text.js'
import type { LeadBody } from './lead-input.js'
import { normalizeAddress } from './lead-input.js'
import { createLead, findLead, type LeadValues, type NewContact } from './lead-repo.js'
import { leadViews, type LeadView, type ViewCaller } from './lead-view.js'

export interface WriteSetting {
  organizationId: string
  country: string
  memberUserIds: Set<string>
  leadDefs: CustomFieldDef[]
  contactDefs: CustomFieldDef[]
}

/** What every lead or contact write needs to validate custom values and phones. */
export async function loadWriteSetting(db: Db, organizationId: string): Promise<WriteSetting> {
  const [org, members, leadDefs, contactDefs] = await Promise.all([
    db.selectFrom('organization').select('country').where('id', '=', organizationId).executeTakeFirstOrThrow(),
    db.selectFrom('membership').select('user_id').where('organization_id', '=', organizationId).execute(),
    listCustomFieldDefs(db, organizationId, 'lead'),
    listCustomFieldDefs(db, organizationId, 'contact'),
  ])
  return {
    organizationId,
    country: org.country,
    memberUserIds: new Set(members.map((m) => m.user_id)),
    leadDefs,
    contactDefs,
  }
}

function notAChoice(value: string): string {
  return `Not a valid choice. Add ${JSON.stringify(value)} to the organization's lead statuses first.`
}

async function resolveStatus(
  db: Db,
  organizationId: string,
  body: LeadBody,
  required: boolean,
  errors: Record<string, string>,
) {
  if (body.status_id !== undefined && body.status !== undefined) {
    errors.status = 'Send either status_id or status (a label), not both.'
    return undefined
  }
  if (body.status_id === undefined && body.status === undefined && !required) return undefined
  const statuses = await db
    .selectFrom('lead_status')
    .select(['id', 'label'])
    .where('organization_id', '=', organizationId)
    .orderBy('position')
    .orderBy('id')
    .execute()
  if (body.status_id !== undefined) {
    const found = statuses.find((s) => s.id === body.status_id)
    // Close keys an unknown (or another organization's) status_id on `status`, naming the value.
    if (found === undefined) errors.status = notAChoice(body.status_id)
    return found
  }
  if (body.status !== undefined) {
    const wanted = body.status.trim().toLowerCase()
    const found = statuses.find((s) => s.label.toLowerCase() === wanted)
    if (found === undefined) errors.status = notAChoice(body.status)
    return found
  }
  return required ? statuses[0] : undefined
}

/**
 * Checks a contact body (nested or standalone) and its custom values; errors are keyed under `prefix`.
 * Run it in the transaction that writes, so the contacts its values name still exist when they are stored.
 */
export async function prepareContact(
  db: Db,
  setting: WriteSetting,
  body: ContactBody,
  prefix: string,
  errors: Record<string, string>,
): Promise<NewContact> {
  const { values, fieldErrors } = normalizeContactBody(body, prefix, setting.country)
  Object.assign(errors, fieldErrors)
  const custom = parseCustomInput(body, setting.contactDefs, { memberUserIds: setting.memberUserIds })
  for (const [key, message] of Object.entries(custom.fieldErrors)) errors[prefix + key] = message
  Object.assign(errors, await unknownContactErrors(db, setting.organizationId, custom.contactRefs, prefix))
  return { values, custom: custom.changes }
}

/**
 * Validates a lead body completely before anything is written, so an invalid request stores nothing. Run it in the
 * transaction that writes: the statuses, fields and contacts it checks are then still there when the lead is stored.
 * `create` requires a status (the first one by default) and allows nested contacts.
 */
export async function prepareLead(
  db: Db,
  setting: WriteSetting,
  body: LeadBody,
  mode: 'create' | 'update',
): Promise<{ lead: LeadValues; contacts: NewContact[] }> {
  const errors: Record<string, string> = {}
  const status = await resolveStatus(db, setting.organizationId, body, mode === 'create', errors)
  const url = cleanText(body.url)
  if (url !== undefined && url !== null && !isWebAddress(url)) errors.url = 'Enter a valid URL.'
  const custom = parseCustomInput(body, setting.leadDefs, { memberUserIds: setting.memberUserIds })
  Object.assign(errors, custom.fieldErrors)
  Object.assign(errors, await unknownContactErrors(db, setting.organizationId, custom.contactRefs))
  // On update, `contacts` is read-only (clients often send back the lead they fetched): contacts change via /contact/.
  const contacts: NewContact[] = []
  if (mode === 'create') {
    for (const [i, c] of (body.contacts ?? []).entries()) {
      contacts.push(await prepareContact(db, setting, c, `contacts.${i}.`, errors))
    }
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors)
  const lead: LeadValues = { custom: custom.changes }
  const name = cleanText(body.name)
  if (name !== undefined) lead.name = name
  if (url !== undefined) lead.url = url
  const description = cleanText(body.description)
  if (description !== undefined) lead.description = description
  if (status !== undefined) lead.status = status
  if (body.addresses !== undefined) lead.addresses = body.addresses.map(normalizeAddress)
  return { lead, contacts }
}

/** A lead's event; its own id is its `lead_id`. */
export function leadEvent(view: LeadView, action: EventInput['action']): EventInput {
  return { objectType: 'lead', objectId: view.id, action, leadId: view.id, data: view }
}

export function contactsOf(view: LeadView): Contact[] {
  return Array.isArray(view.contacts) ? (view.contacts as Contact[]) : []
}

/** Who a written lead's view is built for, and the web app's base URL its `html_url` starts with. */
export interface LeadViewer {
  appUrl: string
  who: ViewCaller
}

/**
 * A lead's view as `tx` sees it: a write's events and answer (the metadata read before the transaction). Given its id
 * the lead is read; given the row the transaction already holds, it is not read again.
 */
export async function leadViewIn(tx: Db, organization: OrganizationMeta, lead: LeadRow | string, viewer: LeadViewer) {
  const row = typeof lead === 'string' ? await findLead(tx, organization.organization.id, lead) : lead
  const [built] = row === undefined ? [] : await leadViews(tx, organization, [row], viewer.appUrl, viewer.who)
  if (built === undefined) throw new NotFoundError('Lead')
  return built
}

/**
 * Creates a lead from a create body (validated whole first) with its contacts, addresses, custom values and
 * `Created` activity, and records their events: the lead's first, then its contacts' and the activity's. Answers the
 * lead's view as the transaction `tx` sees it.
 */
export async function createLeadFromBody(
  tx: Db,
  ctx: ChangeContext & { events: EventContext },
  organization: OrganizationMeta,
  body: LeadBody,
  source: string,
  viewer: LeadViewer,
): Promise<LeadView> {
  const setting = await loadWriteSetting(tx, ctx.organizationId)
  const { lead, contacts } = await prepareLead(tx, setting, body, 'create')
  const status = lead.status
  if (status === undefined) throw ValidationError.field('status', 'The organization has no lead status.')
  const created = await createLead(tx, ctx, { ...lead, status }, contacts, source)
  const view = await leadViewIn(tx, organization, created.id, viewer)
  await recordEvents(tx, ctx.events, [
    leadEvent(view, 'created'),
    ...contactsOf(view).map((contact) => contactEvent(contact, 'created')),
    ...(await activityEvents(tx, [created.activity], 'created')),
  ])
  return view
}
