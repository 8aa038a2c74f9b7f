import { queryOptions } from '@tanstack/react-query'
import type { ListEnvelope } from '@leadline/shared/list'
import type { WebhookDeliveryAttempt, WebhookSubscription } from '@leadline/shared/webhook-schema'
import { api } from '../../lib/api'
import { wholeListQuery } from '../../lib/setup-query'

// Loaded with the Webhooks screen only (no route loader imports it), so none of it weighs on a first visit.

/** How often an open delivery log asks for news: deliveries go out within seconds of the change behind them. */
export const DELIVERY_LOG_POLL_MS = 2000
/** The newest attempts the log shows. */
const DELIVERY_LOG_LIMIT = 100

export const webhooksQueries = {
  all: () => ['webhooks'] as const,
  subscriptions: () => wholeListQuery<WebhookSubscription>([...webhooksQueries.all(), 'list'], 'webhook/'),
  deliveries: (id: string) =>
    queryOptions({
      queryKey: [...webhooksQueries.all(), 'deliveries', id] as const,
      queryFn: () =>
        api.get<ListEnvelope<WebhookDeliveryAttempt>>(`webhook/${encodeURIComponent(id)}/deliveries/`, {
          _limit: DELIVERY_LOG_LIMIT,
        }),
      select: (page) => latestAttempts(page.data),
      refetchInterval: DELIVERY_LOG_POLL_MS,
    }),
}

/** The log's entries, one per delivery: its newest attempt, which tells the delivery as it is now. Newest first. */
export function latestAttempts(attempts: readonly WebhookDeliveryAttempt[]): WebhookDeliveryAttempt[] {
  const seen = new Set<string>()
  const entries: WebhookDeliveryAttempt[] = []
  for (const attempt of attempts) {
    if (seen.has(attempt.delivery_id)) continue
    seen.add(attempt.delivery_id)
    entries.push(attempt)
  }
  return entries
}
