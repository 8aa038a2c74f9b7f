import { createFileRoute } from '@tanstack/react-router'
import { AcceptInvitationPage } from '../features/auth/accept-invitation-page'
import { tokenSearchOf } from '../features/auth/token-search'

export const Route = createFileRoute('/accept-invitation')({
  validateSearch: tokenSearchOf,
  component: AcceptInvitationRoute,
})

function AcceptInvitationRoute() {
  const { token } = Route.useSearch()
  return <AcceptInvitationPage token={token} />
}
