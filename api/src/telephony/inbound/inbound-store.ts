import type { Task, TaskType } from '@leadline/shared/task-schema'
import type { Db, Dialect, PhoneNumberTable } from '../../platform/data/database.js'
import { recordEvents, type EventContext } from '../../integrations/events/event-repo.js'
import type { LeadViewer } from '../../crm/leads/lead-write.js'
import type { OrganizationMeta } from '../../crm/organizations/organization-meta.js'
import { ValidationError } from '../../platform/http/errors.js'
import { phoneNumbersQuery } from '../phone-numbers/phone-number-repo.js'
import { taskEvent } from '../../crm/tasks/task-events.js'
import { findTask, insertTask, taskViews, updateTask } from '../../crm/tasks/task-repo.js'
import type { InboundAnswer } from './inbound-input.js'
import { inboundParty, type InboundParty } from './inbound-lead.js'
import { saveReceipt } from './inbound-repo.js'
import { normalizeContactPhone, normalizePhoneNumber } from '../../platform/text/phone-format.js'

/** One signed request's write: its transaction, organization and the context its events carry. */
export interface InboundWrite {
  tx: Db
  dialect: Dialect
  organization: OrganizationMeta
  /** The request's `webhook-id`. */
  webhookId: string
  /** No user and no key made the change: `userId` and `apiKeyId` are null (decision 0027). */
  events: EventContext
  now: string
  viewer: LeadViewer
}

/** What writing a system task needs: the transaction, its organization, when, and the context its events carry. */
export type SystemTaskWrite = Pick<InboundWrite, 'tx' | 'organization' | 'events' | 'now'>

/** The phones of a request: the other party's as contacts keep phones, and the organization's number it came in on. */
export interface InboundPhones {
  remote: string
  local: PhoneNumberTable
}

/** Checks `remote_phone` and `local_phone` (one of the organization's numbers); field errors go into `errors`. */
export async function checkPhones(
  w: InboundWrite,
  body: { remote_phone: string; local_phone: string },
  errors: Record<string, string>,
): Promise<InboundPhones | undefined> {
  const organizationId = w.organization.organization.id
  const country = w.organization.organization.country
  const remote = normalizeContactPhone(body.remote_phone, country)
  if (remote === undefined) errors.remote_phone = 'Enter a valid phone number.'
  const localNumber = normalizePhoneNumber(body.local_phone, country)
  const local =
    localNumber === undefined
      ? undefined
      : await phoneNumbersQuery(w.tx, organizationId, { number: localNumber }).executeTakeFirst()
  if (local === undefined) errors.local_phone = 'Not one of the organization’s phone numbers.'
  return remote === undefined || local === undefined ? undefined : { remote, local }
}

export function throwIfAny(errors: Record<string, string>): void {
  if (Object.keys(errors).length > 0) throw new ValidationError(errors)
}

/** The lead and contact of the other party's number, the lead made now when the number is tied to no contact. */
export async function partyOf(
  w: InboundWrite,
  remote: string,
  phoneType: 'mobile' | 'office',
  userId: string,
): Promise<InboundParty> {
  const ctx = { organizationId: w.organization.organization.id, userId, now: w.now, events: w.events }
  return inboundParty(w.tx, w.dialect, ctx, w.organization, remote, phoneType, w.viewer)
}

/** A system task of a call or message, due when it came in, with its `created` event; answers its id. */
export async function insertIncomingTask(
  w: SystemTaskWrite,
  input: {
    type: TaskType
    leadId: string
    contactId: string | null
    assignedTo: string
    objectId: string
    text?: string
    data: Record<string, unknown>
  },
): Promise<string> {
  const organizationId = w.organization.organization.id
  const id = await insertTask(w.tx, {
    organizationId,
    ...input,
    date: w.now,
    today: w.now.slice(0, 10),
    userId: null,
    now: w.now,
  })
  const view = await taskViewIn(w, id)
  if (view === undefined) throw new Error(`task ${id} was not stored`)
  await recordEvents(w.tx, w.events, [taskEvent(view, 'created')])
  return id
}

/** A task as the transaction sees it (in UTC: nobody's zone), or undefined when it is gone. */
async function taskViewIn(w: SystemTaskWrite, id: string): Promise<Task | undefined> {
  const row = await findTask(w.tx, w.organization.organization.id, id)
  if (row === undefined) return undefined
  const [view] = await taskViews(w.tx, w.organization, [row], { offsetHours: 0, now: new Date(w.now) })
  return view
}

/**
 * Turns an open system task of type `from` into one of type `to` (or, of the same type, only changes its data) with
 * `data`, with its `updated` event (the task as it was in `previous`); a task of another type, completed or gone is
 * left alone. Answers whether it changed.
 */
export async function retypeIncomingTask(
  w: SystemTaskWrite,
  id: string,
  change: { from: TaskType; to: TaskType; data: Record<string, unknown> },
): Promise<boolean> {
  const before = await taskViewIn(w, id)
  if (before === undefined || before._type !== change.from || before.is_complete) return false
  await updateTask(
    w.tx,
    w.organization.organization.id,
    id,
    { type: change.to, data: JSON.stringify(change.data) },
    { userId: null, now: w.now },
  )
  const after = await taskViewIn(w, id)
  if (after === undefined) throw new Error(`task ${id} went while it was changed`)
  await recordEvents(w.tx, w.events, [{ ...taskEvent(after, 'updated'), previous: before }])
  return true
}

/** Keeps the answer for the request's `webhook-id` (a repeat is answered the same) and answers it. */
export async function answered(w: InboundWrite, answer: InboundAnswer): Promise<InboundAnswer> {
  await saveReceipt(w.tx, w.organization.organization.id, w.webhookId, answer)
  return answer
}
