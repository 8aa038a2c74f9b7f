import type { Insertable, Selectable } from 'kysely'
import type { Db, OutboxTable } from '../../platform/data/database.js'
import type { EventSink } from '../events/event-repo.js'
import type { EventView } from '../events/event-view.js'
import { newId } from '../../platform/security/ids.js'
import { subscriptionMatcher } from '../webhooks/webhook-matching.js'
import { leadWebhookAction, leadWebhookBody, readLeadWebhook } from './lead-webhook.js'
import { outboxWritten } from './outbox-signal.js'

// The outbox's writer: the events' sink (app/app.ts gives it), called by recordEvents in the transaction of the change, after its events, so a change, its
// events and the deliveries they owe are stored together or not at all.

export interface OutboxWriteContext {
  organizationId: string
  /** The change's stored timestamp: the rows are due from then. */
  now: string
  /** This process's LEADLINE_LEAD_WEBHOOK_URL, which applies when the CLI has stored no setting. */
  leadWebhookEnvUrl: string | null
}

const INSERT_CHUNK = 500

/** The outbox as the events' sink, for a process whose LEADLINE_LEAD_WEBHOOK_URL is `leadWebhookEnvUrl`. */
export function outboxSink(leadWebhookEnvUrl: string | null): EventSink {
  return async (tx, change, events) => {
    await writeOutbox(tx, { ...change, leadWebhookEnvUrl }, events)
  }
}

/**
 * Writes one `webhook` row per event and subscription it matches, and one `lead_webhook` row per lead created,
 * updated, deleted or merged while a lead webhook is set; answers how many rows it wrote. Each event is serialized
 * once, whatever the number of subscriptions it goes to.
 */
export async function writeOutbox(tx: Db, ctx: OutboxWriteContext, events: readonly EventView[]): Promise<number> {
  if (events.length === 0) return 0
  const matches = await subscriptionMatcher(tx, ctx.organizationId)
  const leadWebhook = events.some((e) => leadWebhookAction(e) !== undefined)
    ? (await readLeadWebhook(tx, ctx.leadWebhookEnvUrl)).url
    : null

  const rows: Insertable<OutboxTable>[] = []
  const row = (kind: string, subscriptionId: string | null, event: EventView, orderingKey: string, payload: string) =>
    rows.push({
      id: newId('outbox'),
      organization_id: ctx.organizationId,
      kind,
      subscription_id: subscriptionId,
      event_id: event.id,
      ordering_key: orderingKey,
      payload,
      status: 'pending',
      attempts: 0,
      next_attempt_at: ctx.now,
      date_created: ctx.now,
      date_updated: ctx.now,
    })
  for (const event of events) {
    const subscriptions = matches(event)
    if (subscriptions.length > 0) {
      const text = JSON.stringify(event)
      for (const id of subscriptions) {
        row(
          'webhook',
          id,
          event,
          `${id}:${event.object_id}`,
          `{"subscription_id":${JSON.stringify(id)},"event":${text}}`,
        )
      }
    }
    const leadAction = leadWebhook === null ? undefined : leadWebhookAction(event)
    if (leadWebhook !== null && leadAction !== undefined) {
      const body = leadWebhookBody(leadAction, event)
      row('lead_webhook', null, event, `lead_webhook:${event.object_id}`, JSON.stringify(body))
    }
  }
  for (let i = 0; i < rows.length; i += INSERT_CHUNK)
    await tx
      .insertInto('outbox')
      .values(rows.slice(i, i + INSERT_CHUNK))
      .execute()
  if (rows.length > 0) outboxWritten()
  return rows.length
}

/**
 * Writes one delivery of work that is not an event's (a message's send, a link's email) in the caller's transaction,
 * due at `dueAt`; rows of one `orderingKey` are delivered in turn.
 */
export async function enqueueDelivery(
  tx: Db,
  input: { organizationId: string; kind: string; orderingKey: string; payload: string; dueAt: string; now: string },
): Promise<void> {
  await tx
    .insertInto('outbox')
    .values({
      id: newId('outbox'),
      organization_id: input.organizationId,
      kind: input.kind,
      subscription_id: null,
      event_id: null,
      ordering_key: input.orderingKey,
      payload: input.payload,
      status: 'pending',
      attempts: 0,
      next_attempt_at: input.dueAt,
      date_created: input.now,
      date_updated: input.now,
    })
    .execute()
  outboxWritten()
}

/**
 * Writes one webhook delivery to one subscription outside the event log's matching (a redelivery an admin asked
 * for, a test event), in the caller's transaction, due now; answers the row written.
 */
export async function enqueueWebhookDelivery(
  tx: Db,
  input: {
    organizationId: string
    subscriptionId: string
    eventId: string | null
    orderingKey: string
    payload: string
    now: string
  },
): Promise<Selectable<OutboxTable>> {
  const row = {
    id: newId('outbox'),
    organization_id: input.organizationId,
    kind: 'webhook',
    subscription_id: input.subscriptionId,
    event_id: input.eventId,
    ordering_key: input.orderingKey,
    payload: input.payload,
    status: 'pending',
    attempts: 0,
    next_attempt_at: input.now,
    date_created: input.now,
    date_updated: input.now,
  }
  const written = await tx.insertInto('outbox').values(row).returningAll().executeTakeFirstOrThrow()
  outboxWritten()
  return written
}
