import { createFileRoute } from '@tanstack/react-router'
import { ResetPasswordPage } from '../features/auth/reset-password-page'
import { tokenSearchOf } from '../features/auth/token-search'

export const Route = createFileRoute('/reset-password')({
  validateSearch: tokenSearchOf,
  component: ResetPasswordRoute,
})

function ResetPasswordRoute() {
  const { token } = Route.useSearch()
  return <ResetPasswordPage token={token} />
}
