import { createFileRoute } from '@tanstack/react-router'
import { VerifyEmailPage } from '../../features/email/verify-email-page'

export const Route = createFileRoute('/_app/verify-email')({
  validateSearch: (search: Record<string, unknown>): { token: string } => ({
    token: typeof search.token === 'string' ? search.token : '',
  }),
  component: VerifyEmailRoute,
})

function VerifyEmailRoute() {
  const { token } = Route.useSearch()
  return <VerifyEmailPage token={token} />
}
