import { isWebhookFilter, type WebhookFilter } from '@leadline/shared/webhook-filter'

/** One entry of a subscription's `events`: the object type and action it wants, and an optional filter. */
export interface SubscriptionEvent {
  object_type: string
  action: string
  extra_filter: WebhookFilter | null
}

function member(value: object, key: string): unknown {
  return Object.hasOwn(value, key) ? (Reflect.get(value, key) as unknown) : undefined
}

/**
 * A subscription's stored `events` (JSON written by the routes after validation). An entry that is somehow not
 * well formed is dropped rather than trusted: it then matches nothing.
 */
export function parseSubscriptionEvents(text: string): SubscriptionEvent[] {
  const parsed: unknown = JSON.parse(text)
  if (!Array.isArray(parsed)) return []
  const events: SubscriptionEvent[] = []
  for (const item of parsed as unknown[]) {
    if (typeof item !== 'object' || item === null) continue
    const objectType = member(item, 'object_type')
    const action = member(item, 'action')
    const filter = member(item, 'extra_filter') ?? null
    if (typeof objectType !== 'string' || typeof action !== 'string') continue
    if (filter !== null && !isWebhookFilter(filter)) continue
    events.push({ object_type: objectType, action, extra_filter: filter })
  }
  return events
}
