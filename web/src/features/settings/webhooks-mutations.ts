import type {
  CreatedWebhookSubscription,
  WebhookDelivery,
  WebhookEvent,
  WebhookStatus,
  WebhookSubscription,
} from '@leadline/shared/webhook-schema'
import { api } from '../../lib/api'
import { useFormMutation } from '../../lib/form-mutation'
import { webhooksQueries } from './webhooks-queries'

const webhooksKey = webhooksQueries.all()
const webhookPath = (id: string) => `webhook/${encodeURIComponent(id)}/`

export function useCreateWebhook() {
  return useFormMutation(webhooksKey, (body: { url: string; events: WebhookEvent[] }) =>
    api.post<CreatedWebhookSubscription>('webhook/', body),
  )
}

export function useSetWebhookStatus() {
  return useFormMutation(webhooksKey, ({ id, status }: { id: string; status: WebhookStatus }) =>
    api.put<WebhookSubscription>(webhookPath(id), { status }),
  )
}

export function useDeleteWebhook() {
  return useFormMutation(webhooksKey, (id: string) => api.delete(webhookPath(id)))
}

export function useRedeliver() {
  return useFormMutation(webhooksKey, ({ id, deliveryId }: { id: string; deliveryId: string }) =>
    api.post<WebhookDelivery>(`${webhookPath(id)}deliveries/${encodeURIComponent(deliveryId)}/redeliver/`, {}),
  )
}

export function useSendTestEvent() {
  return useFormMutation(webhooksKey, (id: string) => api.post<WebhookDelivery>(`${webhookPath(id)}test/`, {}))
}
