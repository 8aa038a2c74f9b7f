import { Type, type Static } from '@sinclair/typebox'
import { timestampSchema } from './list.js'

const nullableString = () => Type.Union([Type.String(), Type.Null()])

export const WEBHOOK_STATUSES = ['active', 'paused'] as const
export type WebhookStatus = (typeof WEBHOOK_STATUSES)[number]

export const webhookEventSchema = Type.Object({
  object_type: Type.String({ description: 'As the event log writes it: `lead`, `task.lead`, `activity.note`, …' }),
  action: Type.String({ description: '`created`, `updated`, `deleted`, `merged`, `completed` or `sent`.' }),
  extra_filter: Type.Union([Type.Unknown(), Type.Null()], {
    description:
      'A webhook filter (`equals`, `not_equals`, `is_null`, `non_null`, `contains`, `and`, `or`, `not`, `field_accessor`, `any_array_value`) the event must also pass, or null.',
  }),
})
export type WebhookEvent = Static<typeof webhookEventSchema>

export const webhookSubscriptionSchema = Type.Object({
  id: Type.String(),
  url: Type.String(),
  events: Type.Array(webhookEventSchema),
  verify_ssl: Type.Boolean(),
  status: Type.String({ description: '`active` or `paused`.' }),
  status_reason: Type.Union([Type.String(), Type.Null()], {
    description: 'Why a subscription is paused: by whom, or after how long deliveries failed.',
  }),
  organization_id: Type.String(),
  created_by: nullableString(),
  updated_by: nullableString(),
  date_created: timestampSchema,
  date_updated: timestampSchema,
})
export type WebhookSubscription = Static<typeof webhookSubscriptionSchema>

/** The answer to creating a subscription: the only one that shows its signature key. */
export const createdWebhookSubscriptionSchema = Type.Composite([
  webhookSubscriptionSchema,
  Type.Object({
    signature_key: Type.String({
      description: '64 hexadecimal characters; shown only now. Hex-decode it to verify `close-sig-hash`.',
    }),
  }),
])
export type CreatedWebhookSubscription = Static<typeof createdWebhookSubscriptionSchema>

/** Where a delivery is: waiting for its first attempt, waiting to be tried again, held by a paused subscription, or settled. */
export const WEBHOOK_DELIVERY_STATES = ['pending', 'retrying', 'paused', 'delivered', 'failed', 'cancelled'] as const
export type WebhookDeliveryState = (typeof WEBHOOK_DELIVERY_STATES)[number]

function deliveryStateText(lead: string): string {
  return `Leadline's own. ${lead}: \`pending\` (not yet tried), \`retrying\` (failed, will be tried again), \`paused\` (waits for its subscription to be resumed), \`delivered\`, \`failed\` (given up after 72 hours) or \`cancelled\` (its subscription was deleted).`
}

/** One attempt at delivering an event to a subscription (`GET /webhook/{id}/deliveries/`). */
export const webhookDeliveryAttemptSchema = Type.Object({
  id: Type.String(),
  delivery_id: Type.String({ description: 'The delivery this attempt belongs to; its attempts share it.' }),
  event_id: nullableString(),
  attempt: Type.Integer({ description: '1 for the first attempt of a delivery.' }),
  url: Type.String(),
  status_code: Type.Union([Type.Integer(), Type.Null()], { description: 'Null when no answer came.' }),
  duration_ms: Type.Integer(),
  error: nullableString(),
  date_created: timestampSchema,
  object_type: Type.Union([Type.String(), Type.Null()], {
    description:
      "Leadline's own: the delivered event's `object_type` (`webhook` for a test event); null once the delivery is purged.",
  }),
  action: Type.Union([Type.String(), Type.Null()], {
    description: "Leadline's own: the delivered event's `action` (`test` for a test event); null once purged.",
  }),
  delivery_state: Type.Union([Type.Union(WEBHOOK_DELIVERY_STATES.map((s) => Type.Literal(s))), Type.Null()], {
    description: deliveryStateText('The state of the delivery now'),
  }),
  delivery_attempts: Type.Union([Type.Integer(), Type.Null()], {
    description: "Leadline's own: how many attempts the delivery has made so far; null once purged.",
  }),
  next_attempt_at: Type.Union([timestampSchema, Type.Null()], {
    description: "Leadline's own: when the delivery will be tried next; null when it is settled, paused, or purged.",
  }),
})
export type WebhookDeliveryAttempt = Static<typeof webhookDeliveryAttemptSchema>

/** One delivery of an event to a subscription: what `redeliver/` and `test/` answer (Leadline's own). */
export const webhookDeliverySchema = Type.Object({
  id: Type.String({ description: 'The delivery: `delivery_id` of its attempts.' }),
  subscription_id: Type.String(),
  event_id: nullableString(),
  object_type: Type.String(),
  action: Type.String(),
  state: Type.Union(
    WEBHOOK_DELIVERY_STATES.map((s) => Type.Literal(s)),
    { description: deliveryStateText('The state of the delivery') },
  ),
  attempts: Type.Integer({ description: 'How many attempts it has made so far.' }),
  next_attempt_at: Type.Union([timestampSchema, Type.Null()], {
    description: 'When it will be tried next; null when it is settled or its subscription is paused.',
  }),
  last_status_code: Type.Union([Type.Integer(), Type.Null()]),
  last_error: nullableString(),
  date_created: timestampSchema,
})
export type WebhookDelivery = Static<typeof webhookDeliverySchema>
