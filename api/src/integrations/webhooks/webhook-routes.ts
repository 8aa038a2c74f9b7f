import { randomBytes } from 'node:crypto'
import { Type, type Static } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { listEnvelopeSchema } from '@leadline/shared/list'
import { isWebhookFilter, webhookFilterProblem, type WebhookFilter } from '@leadline/shared/webhook-filter'
import {
  createdWebhookSubscriptionSchema,
  webhookDeliveryAttemptSchema,
  webhookDeliverySchema,
  webhookSubscriptionSchema,
  WEBHOOK_STATUSES,
} from '@leadline/shared/webhook-schema'
import type { Selectable } from 'kysely'
import type { WebhookSubscriptionTable } from '../../platform/data/database.js'
import {
  changeOne,
  crudSchemas,
  idParams,
  listPage,
  readRoutes,
  viewOne,
  type Target,
} from '../../platform/http/crud-routes.js'
import { EVENT_OBJECT_TYPES, isEventObjectType } from './event-object-types.js'
import { EVENT_ACTIONS, eventContext, guardedEvents, recordEvents } from '../events/event-repo.js'
import { auditContext, recordAudit, type AuditInput } from '../events/audit-repo.js'
import type { Deps } from '../../crm/deps.js'
import { HttpError, ValidationError } from '../../platform/http/errors.js'
import { found } from '../../platform/data/find-or-404.js'
import { enqueueWebhookDelivery } from '../outbox/outbox-writer.js'
import { newId } from '../../platform/security/ids.js'
import { listQuerySchema } from '../../platform/http/list.js'
import { requireAdmin } from '../../platform/security/roles.js'
import { storeSecret, webhookKeyContext } from '../../platform/security/stored-secrets.js'
import { formatTimestamp } from '../../platform/data/time.js'
import { userNames } from '../../crm/users/user-names.js'
import type { SubscriptionEvent } from './webhook-events.js'
import {
  deleteSubscription,
  deliveryAttemptsQuery,
  deliveryAttemptView,
  deliveryView,
  findDelivery,
  findSubscription,
  insertSubscription,
  subscriptionsQuery,
  subscriptionView,
  updateSubscription,
  type SubscriptionChange,
} from './webhook-repo.js'
import { WEBHOOK_URL_MAX, webhookTargetProblem } from '../../platform/security/outbound-url.js'
import { outboundPrivateAllowed } from '../../platform/config.js'

const tags = ['webhooks']
type SubscriptionRow = Selectable<WebhookSubscriptionTable>
const schemas = crudSchemas(tags, webhookSubscriptionSchema)
const subscription: Target<WebhookSubscriptionTable> = { find: findSubscription, what: 'Webhook subscription' }
const EVENTS_MAX = 100
const DELIVERIES_LIMIT_DEFAULT = 20

const urlSchema = Type.String({
  maxLength: WEBHOOK_URL_MAX,
  description:
    'Where events are POSTed: an `https://` URL without credentials, not to a loopback, private or link-local address.',
})

const eventEntrySchema = Type.Object(
  {
    object_type: Type.String({ description: `One of ${EVENT_OBJECT_TYPES.map((t) => `\`${t}\``).join(', ')}.` }),
    action: Type.String({ description: `One of ${EVENT_ACTIONS.map((a) => `\`${a}\``).join(', ')}.` }),
    extra_filter: Type.Optional(
      Type.Unknown({
        description:
          'A webhook filter the event must also pass (Close\'s filter language: `{"type": "equals", "value": …}`, `field_accessor`, `and`, …), or null.',
      }),
    ),
  },
  { additionalProperties: false },
)
type EventEntry = Static<typeof eventEntrySchema>

const eventsSchema = Type.Array(eventEntrySchema, {
  minItems: 1,
  maxItems: EVENTS_MAX,
  description: 'The events to deliver: each an object type and action of the event log, with an optional filter.',
})

const eventFilterSchema = Type.Optional(
  Type.Unknown({
    description: 'Not supported: give each entry of `events` its `extra_filter`. Must be absent or null.',
  }),
)

const createBody = Type.Object(
  {
    url: urlSchema,
    events: eventsSchema,
    verify_ssl: Type.Optional(Type.Boolean({ default: true, description: "Verify the receiver's TLS certificate." })),
    event_filter: eventFilterSchema,
  },
  { additionalProperties: false },
)

const updateBody = Type.Object(
  {
    url: Type.Optional(urlSchema),
    events: Type.Optional(eventsSchema),
    verify_ssl: Type.Optional(Type.Boolean()),
    status: Type.Optional(
      Type.String({
        description: '`paused` stops deliveries (they wait); `active` resumes them and forgets past failures.',
      }),
    ),
    event_filter: eventFilterSchema,
  },
  { additionalProperties: false, description: 'Only the fields sent change.' },
)

const deliveryParams = Type.Object({
  id: Type.String(),
  delivery_id: Type.String({ description: 'A delivery of this subscription: `delivery_id` of its attempts.' }),
})

/** The text of a test event's `data.message`. */
export const TEST_EVENT_MESSAGE = 'A test event from Leadline: your endpoint received it.'

/**
 * The event log's entry for a change to a subscription, which the live updates of other admins' screens follow. Its
 * data leaves out the URL, which may hold a secret of the receiver's, and the events: any member may read the log.
 */
const subscriptionEvent = guardedEvents('webhook', (r: SubscriptionRow) => ({
  id: r.id,
  shown: {
    status: r.status,
    status_reason: r.status_reason,
    verify_ssl: r.verify_ssl === 1,
    updated_by: r.updated_by,
    date_updated: r.date_updated,
  },
  hidden: `${r.url}\n${r.events}`,
}))

/** Refuses work for a paused subscription: nothing goes out while it is paused, so the admin would see nothing. */
function refusePaused(row: SubscriptionRow): void {
  if (row.status !== 'active')
    throw new HttpError(400, 'This subscription is paused: resume it first. Deliveries wait while it is paused.')
}

const sentence = (phrase: string) => `${phrase.charAt(0).toUpperCase()}${phrase.slice(1)}.`

/** The events of a request body as stored, with a field error (`events.N.…`) for each entry that cannot be. */
function cleanEvents(entries: readonly EventEntry[], errors: Record<string, string>): SubscriptionEvent[] {
  return entries.map((entry, index) => {
    const at = `events.${index}`
    if (!isEventObjectType(entry.object_type))
      errors[`${at}.object_type`] ??=
        `Not an object type of the event log: use one of ${EVENT_OBJECT_TYPES.join(', ')}.`
    if (!EVENT_ACTIONS.some((action) => action === entry.action))
      errors[`${at}.action`] ??= `Must be one of ${EVENT_ACTIONS.join(', ')}.`
    const filter = entry.extra_filter ?? null
    let extraFilter: WebhookFilter | null = null
    if (filter !== null && isWebhookFilter(filter)) extraFilter = filter
    else if (filter !== null) {
      const problem = webhookFilterProblem(filter)
      if (problem !== undefined) errors[[`${at}.extra_filter`, ...problem.path].join('.')] ??= sentence(problem.message)
    }
    return { object_type: entry.object_type, action: entry.action, extra_filter: extraFilter }
  })
}

function refuseEventFilter(value: unknown, errors: Record<string, string>): void {
  if (value !== undefined && value !== null)
    errors.event_filter = 'Not supported: give each entry of events its extra_filter.'
}

/** A subscription's audit entry: where it sends and what; for a change, what changed (never its signature key). */
function webhookAudit(
  action: 'webhook_created' | 'webhook_updated' | 'webhook_deleted',
  row: Selectable<WebhookSubscriptionTable>,
  before?: Selectable<WebhookSubscriptionTable>,
): AuditInput {
  const changed =
    before === undefined
      ? undefined
      : (['url', 'events', 'verify_ssl', 'status'] as const).filter((field) => before[field] !== row[field])
  return {
    action,
    objectType: 'webhook',
    objectId: row.id,
    details: { url: row.url, status: row.status, ...(changed === undefined ? {} : { changed }) },
  }
}

export const webhookRoutes: FastifyPluginAsyncTypebox<Deps> = async (app, { db, clock, config, resolve }) => {
  const allowPrivate = outboundPrivateAllowed(config)

  readRoutes(app, db, {
    path: '/webhook/',
    list: schemas.list('The webhook subscriptions of your organization, newest first (admin)'),
    one: schemas.get('One webhook subscription, without its signature key (admin)'),
    query: subscriptionsQuery,
    target: subscription,
    view: subscriptionView,
    who: requireAdmin,
  })

  app.post(
    '/webhook/',
    schemas.createWith201(
      'Subscribe a URL to events (admin); the answer is the only one to show the signature key',
      createBody,
      createdWebhookSubscriptionSchema,
    ),
    async (request, reply) => {
      const me = requireAdmin(request)
      const body = request.body
      const errors: Record<string, string> = {}
      const url = body.url.trim()
      const urlProblem = await webhookTargetProblem(url, allowPrivate, resolve)
      if (urlProblem !== undefined) errors.url = urlProblem
      const events = cleanEvents(body.events, errors)
      refuseEventFilter(body.event_filter, errors)
      if (Object.keys(errors).length > 0) throw new ValidationError(errors)
      const id = newId('webhook')
      // Shown this once; stored sealed (decision 0040).
      const signatureKey = randomBytes(32).toString('hex')
      const now = formatTimestamp(clock.now())
      const row = await db.transaction().execute(async (tx) => {
        const made = await insertSubscription(tx, {
          organizationId: me.organizationId,
          id,
          url,
          events,
          verifySsl: body.verify_ssl ?? true,
          signatureKey: storeSecret(config.secretBox, signatureKey, webhookKeyContext(id)),
          userId: me.userId,
          now,
        })
        await recordEvents(tx, eventContext(request, now), [subscriptionEvent(made, 'created')])
        await recordAudit(tx, auditContext(request, now), [webhookAudit('webhook_created', made)])
        return made
      })
      return reply.code(201).send({ ...subscriptionView(row), signature_key: signatureKey })
    },
  )

  app.put(
    '/webhook/:id/',
    schemas.update(
      'Change a webhook subscription: its URL, events, TLS check, or pause and resume it (admin)',
      updateBody,
    ),
    async (request) => {
      const me = requireAdmin(request)
      const body = request.body
      const url = body.url?.trim()
      // Resolved before the transaction, which never waits on DNS.
      const urlProblem = url === undefined ? undefined : await webhookTargetProblem(url, allowPrivate, resolve)
      return changeOne(db, me, request.params.id, subscription, async (tx, row) => {
        const errors: Record<string, string> = {}
        if (urlProblem !== undefined) errors.url = urlProblem
        const events = body.events === undefined ? undefined : cleanEvents(body.events, errors)
        refuseEventFilter(body.event_filter, errors)
        const status = WEBHOOK_STATUSES.find((s) => s === body.status)
        if (body.status !== undefined && status === undefined) errors.status = 'Must be "active" or "paused".'
        if (Object.keys(errors).length > 0) throw new ValidationError(errors)

        let statusChange: SubscriptionChange['status']
        if (status === 'active') statusChange = { status, reason: null }
        else if (status === 'paused' && row.status !== 'paused') {
          const name = (await userNames(tx, [me.userId])).get(me.userId) ?? me.userId
          statusChange = { status, reason: `paused by ${name}` }
        }
        const now = formatTimestamp(clock.now())
        await updateSubscription(tx, me.organizationId, row.id, {
          ...(url === undefined ? {} : { url }),
          ...(events === undefined ? {} : { events }),
          ...(body.verify_ssl === undefined ? {} : { verifySsl: body.verify_ssl }),
          ...(statusChange === undefined ? {} : { status: statusChange }),
          userId: me.userId,
          now,
        })
        const after = found(await findSubscription(tx, me.organizationId, row.id), subscription.what)
        await recordEvents(tx, eventContext(request, now), [subscriptionEvent(after, 'updated', row)])
        await recordAudit(tx, auditContext(request, now), [webhookAudit('webhook_updated', after, row)])
        return subscriptionView(after)
      })
    },
  )

  app.delete(
    '/webhook/:id/',
    schemas.delete('Delete a webhook subscription; its deliveries not yet made are cancelled (admin)'),
    async (request) => {
      const me = requireAdmin(request)
      await changeOne(db, me, request.params.id, subscription, async (tx, row) => {
        const now = formatTimestamp(clock.now())
        await deleteSubscription(tx, me.organizationId, row.id, now)
        await recordEvents(tx, eventContext(request, now), [subscriptionEvent(row, 'deleted')])
        await recordAudit(tx, auditContext(request, now), [webhookAudit('webhook_deleted', row)])
      })
      return {}
    },
  )

  app.get(
    '/webhook/:id/deliveries/',
    {
      schema: {
        tags,
        summary: "A subscription's recent delivery attempts, newest first (admin; Leadline's own)",
        description:
          "Each attempt at delivering an event: the answer's status code (null when none came), how long it took and what went wrong. Attempts of one delivery share its `delivery_id`.",
        params: idParams,
        querystring: listQuerySchema('default', DELIVERIES_LIMIT_DEFAULT),
        response: { 200: listEnvelopeSchema(webhookDeliveryAttemptSchema) },
      },
    },
    async (request) => {
      const me = requireAdmin(request)
      await viewOne(db, me, request.params.id, subscription, subscriptionView)
      return listPage(
        deliveryAttemptsQuery(db, me.organizationId, request.params.id),
        request.query,
        deliveryAttemptView,
      )
    },
  )

  app.post(
    '/webhook/:id/deliveries/:delivery_id/redeliver/',
    {
      schema: {
        tags,
        summary: "Deliver an event to the subscription again, as a new delivery (admin; Leadline's own)",
        description:
          "Enqueues the event of one of the subscription's deliveries again, as a new delivery with attempts of its own (and a new `webhook-id`), signed with the subscription's key when it goes out; the old delivery and its attempts stay as they are. Answers the new delivery. A paused subscription is refused with 400: nothing would go out until it is resumed, and resuming sends what waits.",
        params: deliveryParams,
        response: { 200: webhookDeliverySchema },
      },
    },
    async (request) => {
      const me = requireAdmin(request)
      const { id, delivery_id: deliveryId } = request.params
      return changeOne(db, me, id, subscription, async (tx, row) => {
        const delivery = found(await findDelivery(tx, me.organizationId, row.id, deliveryId), 'Delivery')
        refusePaused(row)
        const again = await enqueueWebhookDelivery(tx, {
          organizationId: me.organizationId,
          subscriptionId: row.id,
          eventId: delivery.event_id,
          orderingKey: delivery.ordering_key,
          payload: delivery.payload,
          now: formatTimestamp(clock.now()),
        })
        return deliveryView(again)
      })
    },
  )

  app.post(
    '/webhook/:id/test/',
    {
      schema: {
        tags,
        summary: "Send a test event to the subscription (admin; Leadline's own)",
        description:
          'Enqueues an event with `object_type` `webhook` and `action` `test` for this subscription alone, whatever its events and filters, signed like every delivery; it shows in the delivery log. Its `object_id` is the subscription\'s id, its `data` `{"id", "url", "message"}`; its `id` names no event of the log. Answers the new delivery. A paused subscription is refused with 400.',
        params: idParams,
        response: { 200: webhookDeliverySchema },
      },
    },
    async (request) => {
      const me = requireAdmin(request)
      return changeOne(db, me, request.params.id, subscription, async (tx, row) => {
        refusePaused(row)
        const now = formatTimestamp(clock.now())
        const eventId = newId('event')
        const event = {
          id: eventId,
          object_type: 'webhook',
          object_id: row.id,
          action: 'test',
          lead_id: null,
          user_id: me.userId,
          request_id: request.id,
          api_key_id: me.apiKeyId,
          organization_id: me.organizationId,
          date_created: now,
          date_updated: now,
          data: { id: row.id, url: row.url, message: TEST_EVENT_MESSAGE },
          previous_data: {},
          changed_fields: [],
        }
        const delivery = await enqueueWebhookDelivery(tx, {
          organizationId: me.organizationId,
          subscriptionId: row.id,
          eventId,
          orderingKey: `${row.id}:test`,
          payload: JSON.stringify({ subscription_id: row.id, event }),
          now,
        })
        return deliveryView(delivery)
      })
    },
  )
}
