import { createHash } from 'node:crypto'
import type { FastifyRequest } from 'fastify'
import type { Db } from '../../platform/data/database.js'
import { newId } from '../../platform/security/ids.js'
import { flattenRows, insertRows } from '../../platform/data/bulk-insert.js'
import { caller } from '../../platform/http/request-context.js'
import { eventViewOf, type EventMeta, type EventView } from './event-view.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** Where this process's events go after they are stored (the outbox writer, given in app/app.ts). */
    eventSink: EventSink
  }
}

/**
 * Takes a change's events in the change's transaction, after they are stored: the outbox writer, which the composition
 * root gives (app/app.ts). Events import nothing above the platform; what consumes them is handed in.
 */
export type EventSink = (
  tx: Db,
  change: { organizationId: string; now: string },
  events: readonly EventView[],
) => Promise<void>

/** What happened to an object; `completed` for tasks and `sent` for emails and texts come with their issues. */
export const EVENT_ACTIONS = ['created', 'updated', 'deleted', 'merged', 'completed', 'sent'] as const
export type EventAction = (typeof EVENT_ACTIONS)[number]

const BOOKKEEPING = new Set(['date_updated', 'updated_by', 'updated_by_name'])
/**
 * How many events of one change are written by `insertRows` rather than Kysely's builder (an import's batch, a bulk
 * action): the builder spent more time building a statement of hundreds of rows than the database spent running it.
 * Fewer take the builder's one statement: Postgres's COPY waits for the server's go-ahead before it sends its rows.
 */
const BULK_EVENTS = 50

/** Who made a change and through which request: every event of that request carries it. */
export interface EventContext {
  organizationId: string
  userId: string | null
  requestId: string | null
  apiKeyId: string | null
  /** What every event of the change says of how it came about; none outside an API request. */
  meta?: EventMeta
  /** The change's stored timestamp. */
  now: string
  /**
   * Where the events go once stored. Required, so that no writer outside a request (the dispatcher, the inbound
   * endpoint, the email receiver) forgets it and drops deliveries.
   */
  sink: EventSink
}

export function eventContext(request: FastifyRequest, now: string): EventContext {
  const me = caller(request)
  return {
    organizationId: me.organizationId,
    userId: me.userId,
    requestId: request.id,
    apiKeyId: me.apiKeyId,
    meta: { request_method: request.method, request_path: request.url.split('?', 1)[0] ?? request.url },
    now,
    sink: request.server.eventSink,
  }
}

/** The context of a lead merge's events: each says which lead went into which. */
export function mergeEventContext(ctx: EventContext, sourceLeadId: string, destinationLeadId: string): EventContext {
  return {
    ...ctx,
    meta: { ...ctx.meta, merge_source_lead_id: sourceLeadId, merge_destination_lead_id: destinationLeadId },
  }
}

/** Who writes, when, and the event context the write's events carry (null only for the demo seed). */
export interface ChangeContext {
  organizationId: string
  userId: string
  now: string
  events: EventContext | null
}

/** A request's change context: its caller, the change's timestamp, and its events' context. */
export function changeContext(request: FastifyRequest, now: string): ChangeContext & { events: EventContext } {
  const me = caller(request)
  return { organizationId: me.organizationId, userId: me.userId, now, events: eventContext(request, now) }
}

export interface EventInput {
  /** `lead`, `contact`, `opportunity`, `task.lead`, `activity.note`, `status.lead`, `pipeline`, `custom_field.lead`… */
  objectType: string
  objectId: string
  action: EventAction
  /** The lead the object belongs to (a lead's own id for a lead), or null for organization-wide objects. */
  leadId: string | null
  /**
   * The object as the API returns it; for `deleted`, its last state, which the event shows as Close does: `data` null
   * and the object in `previous_data`.
   */
  data: Record<string, unknown>
  /** For `updated`: the object as it was before the change. */
  previous?: Record<string, unknown>
}

/** One state of an object whose event any member may read: what may be shown, and what must not be. */
export interface GuardedState {
  id: string
  /** Shown as they are. */
  shown: Record<string, unknown>
  /** Never shown: reduced to a fingerprint, so that a change to it is still a change the log records. */
  hidden: unknown
}

/**
 * The event of an organization-wide object whose data not every member may read (a webhook's URL, a user's SMTP
 * settings or personal template): other screens still learn that it changed, and refetch it as whoever they are.
 */
export function guardedEvents<V>(
  objectType: string,
  state: (value: V) => GuardedState,
): (value: V, action: 'created' | 'updated' | 'deleted', before?: V) => EventInput {
  const data = (s: GuardedState) => ({
    id: s.id,
    ...s.shown,
    version: createHash('sha256').update(JSON.stringify(s.hidden)).digest('hex').slice(0, 16),
  })
  return (value, action, before) => {
    const now = state(value)
    return {
      objectType,
      objectId: now.id,
      action,
      leadId: null,
      data: data(now),
      ...(before === undefined ? {} : { previous: data(state(before)) }),
    }
  }
}

/** The fields whose values differ between two states of an object, with their old values. */
export function changesOf(
  previous: Record<string, unknown>,
  data: Record<string, unknown>,
): { changed: string[]; previousData: Record<string, unknown> } {
  const changed: string[] = []
  const previousData: Record<string, unknown> = {}
  for (const key of new Set([...Object.keys(previous), ...Object.keys(data)])) {
    if (JSON.stringify(previous[key]) === JSON.stringify(data[key])) continue
    changed.push(key)
    previousData[key] = previous[key] ?? null
  }
  return { changed: changed.sort(), previousData }
}

/**
 * Writes events in the caller's transaction (`tx`), and the outbox rows of the deliveries they owe: a change, its
 * events and their deliveries are stored together or not at all. An update that changed nothing but when and by whom
 * it was last updated writes no event.
 */
export async function recordEvents(tx: Db, ctx: EventContext, inputs: readonly EventInput[]): Promise<void> {
  const rows = []
  const views: EventView[] = []
  for (const input of inputs) {
    const deleted = input.action === 'deleted'
    const { changed, previousData } = deleted
      ? { changed: [], previousData: input.data }
      : input.previous === undefined
        ? { changed: [], previousData: {} }
        : changesOf(input.previous, input.data)
    // A write that set every field to what it was only moved the bookkeeping: nothing happened to tell anyone of.
    if (input.action === 'updated' && changed.every((field) => BOOKKEEPING.has(field))) continue
    const data = deleted ? null : input.data
    const meta = ctx.meta ?? {}
    const row = {
      id: newId('event'),
      organization_id: ctx.organizationId,
      object_type: input.objectType,
      object_id: input.objectId,
      action: input.action,
      lead_id: input.leadId,
      user_id: ctx.userId,
      request_id: ctx.requestId,
      api_key_id: ctx.apiKeyId,
      data: JSON.stringify(data),
      previous_data: JSON.stringify(previousData),
      changed_fields: JSON.stringify(changed),
      meta: JSON.stringify(meta),
      date_created: ctx.now,
      date_updated: ctx.now,
    }
    rows.push(row)
    views.push(eventViewOf(row, data, previousData, changed, meta))
  }
  if (rows.length >= BULK_EVENTS) await insertRows(tx, 'event', flattenRows(rows))
  else if (rows.length > 0) await tx.insertInto('event').values(rows).execute()
  if (views.length > 0) await ctx.sink(tx, { organizationId: ctx.organizationId, now: ctx.now }, views)
}
