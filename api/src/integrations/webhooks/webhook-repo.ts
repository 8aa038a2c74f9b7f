import type { Selectable } from 'kysely'
import type { WebhookDeliveryAttempt, WebhookSubscription } from '@leadline/shared/webhook-schema'
import type { Db, OutboxAttemptTable, WebhookSubscriptionTable } from '../../platform/data/database.js'
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

export function deliveryAttemptView(row: Selectable<OutboxAttemptTable>): WebhookDeliveryAttempt {
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
  }
}

/** A subscription's delivery attempts, newest first. */
export function deliveryAttemptsQuery(db: Db, organizationId: string, subscriptionId: string) {
  return db
    .selectFrom('outbox_attempt')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('subscription_id', '=', subscriptionId)
    .orderBy('date_created', 'desc')
    .orderBy('attempt', 'desc')
    .orderBy('id', 'desc')
}
