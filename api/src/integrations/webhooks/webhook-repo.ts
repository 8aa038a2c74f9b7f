import type { Selectable } from 'kysely'
import type {
  WebhookDelivery,
  WebhookDeliveryAttempt,
  WebhookDeliveryState,
  WebhookSubscription,
} from '@leadline/shared/webhook-schema'
import type { Db, OutboxAttemptTable, OutboxTable, WebhookSubscriptionTable } from '../../platform/data/database.js'
import { PARKED } from '../outbox/outbox-dispatcher.js'
import { parseSubscriptionEvents, type SubscriptionEvent } from './webhook-events.js'
import { findInOrganization } from '../../platform/data/find-or-404.js'
import { createdStamps } from '../../platform/data/stamps.js'

type SubscriptionRow = Selectable<WebhookSubscriptionTable>

/** A subscription as the API answers it; never with its signature key, which only its creation shows. */
export function subscriptionView(row: SubscriptionRow): WebhookSubscription {
  return {
    id: row.id,
    url: row.url,
    events: parseSubscriptionEvents(row.events),
    verify_ssl: row.verify_ssl === 1,
    status: row.status,
    status_reason: row.status_reason,
    organization_id: row.organization_id,
    created_by: row.created_by,
    updated_by: row.updated_by,
    date_created: row.date_created,
    date_updated: row.date_updated,
  }
}

export async function findSubscription(db: Db, organizationId: string, id: string) {
  return findInOrganization(db, 'webhook_subscription', organizationId, id)
}

/** The organization's subscriptions, newest first. */
export function subscriptionsQuery(db: Db, organizationId: string) {
  return db
    .selectFrom('webhook_subscription')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .orderBy('date_created', 'desc')
    .orderBy('id', 'desc')
}

export interface NewSubscription {
  organizationId: string
  id: string
  url: string
  events: SubscriptionEvent[]
  verifySsl: boolean
  signatureKey: string
  userId: string
  now: string
}

export async function insertSubscription(db: Db, input: NewSubscription): Promise<SubscriptionRow> {
  const row: SubscriptionRow = {
    id: input.id,
    organization_id: input.organizationId,
    url: input.url,
    events: JSON.stringify(input.events),
    verify_ssl: input.verifySsl ? 1 : 0,
    status: 'active',
    status_reason: null,
    signature_key: input.signatureKey,
    failing_since: null,
    ...createdStamps(input.userId, input.now),
  }
  await db.insertInto('webhook_subscription').values(row).execute()
  return row
}

export interface SubscriptionChange {
  url?: string
  events?: SubscriptionEvent[]
  verifySsl?: boolean
  /** A new status with its reason; `active` also forgets when deliveries started failing. */
  status?: { status: 'active' | 'paused'; reason: string | null }
  userId: string
  now: string
}

export async function updateSubscription(
  db: Db,
  organizationId: string,
  id: string,
  change: SubscriptionChange,
): Promise<void> {
  await db
    .updateTable('webhook_subscription')
    .set({
      ...(change.url === undefined ? {} : { url: change.url }),
      ...(change.events === undefined ? {} : { events: JSON.stringify(change.events) }),
      ...(change.verifySsl === undefined ? {} : { verify_ssl: change.verifySsl ? 1 : 0 }),
      ...(change.status === undefined ? {} : { status: change.status.status, status_reason: change.status.reason }),
      ...(change.status?.status === 'active' ? { failing_since: null } : {}),
      updated_by: change.userId,
      date_updated: change.now,
    })
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .execute()
}

/** Deletes a subscription and cancels its deliveries not yet made, in the caller's transaction. */
export async function deleteSubscription(db: Db, organizationId: string, id: string, now: string): Promise<void> {
  await db
    .deleteFrom('webhook_subscription')
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .execute()
  await db
    .updateTable('outbox')
    .set({ status: 'cancelled', date_updated: now })
    .where('organization_id', '=', organizationId)
    .where('subscription_id', '=', id)
    .where('status', '=', 'pending')
    .execute()
}

interface DeliveryColumns {
  status: string
  attempts: number
  next_attempt_at: string
  payload: string
}

/** Where a delivery is, from its outbox row (a paused subscription's rows wait parked). */
export function deliveryState(row: Omit<DeliveryColumns, 'payload'>): WebhookDeliveryState {
  if (row.status === 'delivered' || row.status === 'failed' || row.status === 'cancelled') return row.status
  if (row.next_attempt_at === PARKED) return 'paused'
  return row.attempts === 0 ? 'pending' : 'retrying'
}

function member(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null && Object.hasOwn(value, key)
    ? (Reflect.get(value, key) as unknown)
    : undefined
}

/** The object type and action of the event a webhook delivery carries (its payload is `{subscription_id, event}`). */
function eventKind(payload: string): { object_type: string | null; action: string | null } {
  const event = member(JSON.parse(payload) as unknown, 'event')
  const objectType = member(event, 'object_type')
  const action = member(event, 'action')
  return {
    object_type: typeof objectType === 'string' ? objectType : null,
    action: typeof action === 'string' ? action : null,
  }
}

type AttemptRow = Selectable<OutboxAttemptTable> & {
  [K in keyof DeliveryColumns as `delivery_${K}`]: DeliveryColumns[K] | null
}

export function deliveryAttemptView(row: AttemptRow): WebhookDeliveryAttempt {
  const delivery =
    row.delivery_status === null ||
    row.delivery_attempts === null ||
    row.delivery_next_attempt_at === null ||
    row.delivery_payload === null
      ? undefined
      : {
          status: row.delivery_status,
          attempts: row.delivery_attempts,
          next_attempt_at: row.delivery_next_attempt_at,
          payload: row.delivery_payload,
        }
  const state = delivery === undefined ? null : deliveryState(delivery)
  return {
    id: row.id,
    delivery_id: row.outbox_id,
    event_id: row.event_id,
    attempt: row.attempt,
    url: row.url,
    status_code: row.status_code,
    duration_ms: row.duration_ms,
    error: row.error,
    date_created: row.date_created,
    ...(delivery === undefined ? { object_type: null, action: null } : eventKind(delivery.payload)),
    delivery_state: state,
    delivery_attempts: delivery?.attempts ?? null,
    next_attempt_at: state === 'pending' || state === 'retrying' ? (delivery?.next_attempt_at ?? null) : null,
  }
}

/** A subscription's delivery attempts, newest first, each with its delivery as it is now (gone once purged). */
export function deliveryAttemptsQuery(db: Db, organizationId: string, subscriptionId: string) {
  return db
    .selectFrom('outbox_attempt as a')
    .leftJoin('outbox as o', (join) =>
      join.onRef('o.id', '=', 'a.outbox_id').onRef('o.organization_id', '=', 'a.organization_id'),
    )
    .selectAll('a')
    .select([
      'o.status as delivery_status',
      'o.attempts as delivery_attempts',
      'o.next_attempt_at as delivery_next_attempt_at',
      'o.payload as delivery_payload',
    ])
    .where('a.organization_id', '=', organizationId)
    .where('a.subscription_id', '=', subscriptionId)
    .orderBy('a.date_created', 'desc')
    .orderBy('a.attempt', 'desc')
    .orderBy('a.id', 'desc')
}

/** A webhook delivery of the subscription, or undefined. */
export async function findDelivery(db: Db, organizationId: string, subscriptionId: string, id: string) {
  return db
    .selectFrom('outbox')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('subscription_id', '=', subscriptionId)
    .where('kind', '=', 'webhook')
    .where('id', '=', id)
    .executeTakeFirst()
}

export function deliveryView(row: Selectable<OutboxTable>): WebhookDelivery {
  const kind = eventKind(row.payload)
  const state = deliveryState(row)
  return {
    id: row.id,
    subscription_id: row.subscription_id ?? '',
    event_id: row.event_id,
    object_type: kind.object_type ?? '',
    action: kind.action ?? '',
    state,
    attempts: row.attempts,
    next_attempt_at: state === 'pending' || state === 'retrying' ? row.next_attempt_at : null,
    last_status_code: row.last_status_code,
    last_error: row.last_error,
    date_created: row.date_created,
  }
}
