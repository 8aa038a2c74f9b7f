import type { ActiveCall } from '@leadline/shared/user-schema'
import type { Db, Dialect, InboundRefTable } from '../../platform/data/database.js'
import type { OrganizationMeta } from '../../crm/organizations/organization-meta.js'
import { parseJsonObject } from '../../platform/http/raw-json.js'
import { formatTimestamp, type Clock } from '../../platform/data/time.js'
import type { InboundAnswer } from './inbound-input.js'

/** How long a reported `webhook-id` is remembered (providers retry a delivery for a day or two at most). */
export const RECEIPT_RETENTION_DAYS = 7

function inserted(result: { numInsertedOrUpdatedRows?: bigint }): boolean {
  return (result.numInsertedOrUpdatedRows ?? 0n) > 0n
}

function answerOf(text: string): InboundAnswer {
  const data = parseJsonObject(text)
  const { activity_id: activityId, lead_id: leadId, task_id: taskId } = data
  if (typeof activityId !== 'string' || typeof leadId !== 'string' || (taskId !== null && typeof taskId !== 'string')) {
    throw new Error('an inbound receipt holds no answer')
  }
  return { activity_id: activityId, lead_id: leadId, task_id: taskId }
}

/**
 * Claims a `webhook-id` for this request's transaction, or answers what the request that claimed it was answered.
 * On Postgres a second delivery of one id while the first is under way waits for it on the key, then reads its answer.
 */
export async function claimReceipt(
  tx: Db,
  organizationId: string,
  webhookId: string,
  now: string,
): Promise<InboundAnswer | undefined> {
  const result = await tx
    .insertInto('inbound_receipt')
    .values({ organization_id: organizationId, webhook_id: webhookId, answer: '{}', date_created: now })
    .onConflict((oc) => oc.columns(['organization_id', 'webhook_id']).doNothing())
    .executeTakeFirst()
  if (inserted(result)) return undefined
  const row = await tx
    .selectFrom('inbound_receipt')
    .select('answer')
    .where('organization_id', '=', organizationId)
    .where('webhook_id', '=', webhookId)
    .executeTakeFirstOrThrow()
  return answerOf(row.answer)
}

export async function saveReceipt(tx: Db, organizationId: string, webhookId: string, answer: InboundAnswer) {
  await tx
    .updateTable('inbound_receipt')
    .set({ answer: JSON.stringify(answer) })
    .where('organization_id', '=', organizationId)
    .where('webhook_id', '=', webhookId)
    .execute()
}

/** Deletes the receipts older than `RECEIPT_RETENTION_DAYS`; answers how many. */
export async function purgeOldReceipts(db: Db, clock: Clock): Promise<number> {
  const before = formatTimestamp(new Date(clock.now().getTime() - RECEIPT_RETENTION_DAYS * 86_400_000))
  const result = await db.deleteFrom('inbound_receipt').where('date_created', '<', before).executeTakeFirst()
  return Number(result.numDeletedRows)
}

/**
 * Claims the telephony side's id of a message or call: undefined when this transaction is the first to report it
 * (its row then waits for `activity_id`), else the row reported before, locked on Postgres until the transaction ends.
 */
export async function claimRef(
  tx: Db,
  dialect: Dialect,
  key: { organizationId: string; kind: InboundRefTable['kind']; providerId: string },
  now: string,
): Promise<InboundRefTable | undefined> {
  const result = await tx
    .insertInto('inbound_ref')
    .values({
      organization_id: key.organizationId,
      kind: key.kind,
      provider_id: key.providerId,
      activity_id: null,
      task_id: null,
      new_lead: 0,
      in_progress: 0,
      user_id: null,
      date_created: now,
      date_updated: now,
    })
    .onConflict((oc) => oc.columns(['organization_id', 'kind', 'provider_id']).doNothing())
    .executeTakeFirst()
  if (inserted(result)) return undefined
  const query = tx
    .selectFrom('inbound_ref')
    .selectAll()
    .where('organization_id', '=', key.organizationId)
    .where('kind', '=', key.kind)
    .where('provider_id', '=', key.providerId)
  return (dialect === 'postgres' ? query.forUpdate() : query).executeTakeFirstOrThrow()
}

export async function updateRef(
  tx: Db,
  key: { organizationId: string; kind: InboundRefTable['kind']; providerId: string },
  changes: Partial<Pick<InboundRefTable, 'activity_id' | 'task_id' | 'new_lead' | 'in_progress' | 'user_id'>> & {
    date_updated: string
  },
): Promise<void> {
  await tx
    .updateTable('inbound_ref')
    .set(changes)
    .where('organization_id', '=', key.organizationId)
    .where('kind', '=', key.kind)
    .where('provider_id', '=', key.providerId)
    .execute()
}

/**
 * Who a call's or message's task goes to: the owner of the organization's number it came in on, while a member;
 * else the organization's first admin (its memberships are in the order they were made).
 */
export function assigneeOf(organization: OrganizationMeta, owner: string | null): string {
  if (owner !== null && organization.memberNames.has(owner)) return owner
  const memberships = organization.organization.memberships
  const first = memberships.find((m) => m.role === 'admin') ?? memberships[0]
  if (first === undefined) throw new Error(`organization ${organization.organization.id} has no members`)
  return first.user_id
}

/** How long a call reported in progress counts as active without another report (its end may never come). */
export const ACTIVE_CALL_HOURS = 4

/**
 * The organization's calls in progress by the user on them: reported `in-progress` through the inbound endpoint and
 * not reported ended since, nor left without a report for `ACTIVE_CALL_HOURS` (a call whose end never came stops
 * counting).
 */
export async function activeCallsByUser(db: Db, organizationId: string, now: Date): Promise<Map<string, ActiveCall[]>> {
  const rows = await db
    .selectFrom('inbound_ref')
    .innerJoin('activity', 'activity.id', 'inbound_ref.activity_id')
    .select([
      'inbound_ref.user_id',
      'inbound_ref.provider_id',
      'inbound_ref.date_created',
      'activity.id',
      'activity.lead_id',
      'activity.contact_id',
      'activity.data',
    ])
    .where('inbound_ref.organization_id', '=', organizationId)
    .where('inbound_ref.in_progress', '=', 1)
    .where('inbound_ref.date_updated', '>=', formatTimestamp(new Date(now.getTime() - ACTIVE_CALL_HOURS * 3_600_000)))
    .where('activity.organization_id', '=', organizationId)
    .orderBy('inbound_ref.date_created')
    .orderBy('activity.id')
    .execute()
  const calls = new Map<string, ActiveCall[]>()
  for (const row of rows) {
    if (row.user_id === null) continue
    const data = parseJsonObject(row.data)
    const text = (value: unknown) => (typeof value === 'string' ? value : null)
    const call: ActiveCall = {
      activity_id: row.id,
      provider_call_id: row.provider_id,
      lead_id: row.lead_id,
      contact_id: row.contact_id,
      direction: text(data.direction),
      status: text(data.status),
      remote_phone: text(data.remote_phone),
      local_phone: text(data.local_phone),
      date_started: row.date_created,
    }
    calls.set(row.user_id, [...(calls.get(row.user_id) ?? []), call])
  }
  return calls
}
