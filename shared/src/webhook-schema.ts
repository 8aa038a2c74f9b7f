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
})
export type WebhookDeliveryAttempt = Static<typeof webhookDeliveryAttemptSchema>
