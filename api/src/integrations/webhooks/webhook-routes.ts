import { randomBytes } from 'node:crypto'
import { Type, type Static } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { listEnvelopeSchema } from '@leadline/shared/list'
import { isWebhookFilter, webhookFilterProblem, type WebhookFilter } from '@leadline/shared/webhook-filter'
import {
  createdWebhookSubscriptionSchema,
  webhookDeliveryAttemptSchema,
  webhookSubscriptionSchema,
  WEBHOOK_STATUSES,
} from '@leadline/shared/webhook-schema'
import type { WebhookSubscriptionTable } from '../../platform/data/database.js'
import { changeOne, crudSchemas, idParams, listPage, viewOne, type Target } from '../../platform/http/crud-routes.js'
import { EVENT_OBJECT_TYPES, isEventObjectType } from './event-object-types.js'
import { EVENT_ACTIONS } from '../events/event-repo.js'
import type { Deps } from '../../crm/deps.js'
import { ValidationError } from '../../platform/http/errors.js'
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

export const webhookRoutes: FastifyPluginAsyncTypebox<Deps> = async (app, { db, clock, config, resolve }) => {
  const allowPrivate = outboundPrivateAllowed(config)

  app.get(
    '/webhook/',
    schemas.list('The webhook subscriptions of your organization, newest first (admin)'),
    async (request) =>
      listPage(subscriptionsQuery(db, requireAdmin(request).organizationId), request.query, subscriptionView),
  )

  app.get(
    '/webhook/:id/',
    schemas.get('One webhook subscription, without its signature key (admin)'),
    async (request) => viewOne(db, requireAdmin(request), request.params.id, subscription, subscriptionView),
  )

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
      const row = await insertSubscription(db, {
        organizationId: me.organizationId,
        id,
        url,
        events,
        verifySsl: body.verify_ssl ?? true,
        signatureKey: storeSecret(config.secretBox, signatureKey, webhookKeyContext(id)),
        userId: me.userId,
        now: formatTimestamp(clock.now()),
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
        await updateSubscription(tx, me.organizationId, row.id, {
          ...(url === undefined ? {} : { url }),
          ...(events === undefined ? {} : { events }),
          ...(body.verify_ssl === undefined ? {} : { verifySsl: body.verify_ssl }),
          ...(statusChange === undefined ? {} : { status: statusChange }),
          userId: me.userId,
          now: formatTimestamp(clock.now()),
        })
        return viewOne(tx, me, row.id, subscription, subscriptionView)
      })
    },
  )

  app.delete(
    '/webhook/:id/',
    schemas.delete('Delete a webhook subscription; its deliveries not yet made are cancelled (admin)'),
    async (request) => {
      const me = requireAdmin(request)
      await changeOne(db, me, request.params.id, subscription, async (tx, row) => {
        await deleteSubscription(tx, me.organizationId, row.id, formatTimestamp(clock.now()))
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
}
