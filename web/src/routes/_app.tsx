import { createFileRoute, redirect } from '@tanstack/react-router'
import { authQueries } from '../features/auth/auth-queries'
import { AppShell } from '../features/shell/app-shell'
import { isApiError } from '../lib/api'

export const Route = createFileRoute('/_app')({
  beforeLoad: async ({ context: { queryClient }, location }) => {
    try {
      await queryClient.query(authQueries.session())
    } catch (error) {
      if (!isApiError(error, 401)) throw error
      redirect({ to: '/sign-in', search: { redirect: location.href }, throw: true })
    }
  },
  component: AppShell,
})
