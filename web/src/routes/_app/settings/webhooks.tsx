import { createFileRoute } from '@tanstack/react-router'
import { WebhooksPage } from '../../../features/settings/webhooks-page'

// No loader: the screen loads its subscriptions itself, so nothing of it weighs on the first bundle (the route budget).
export const Route = createFileRoute('/_app/settings/webhooks')({
  component: WebhooksPage,
})
