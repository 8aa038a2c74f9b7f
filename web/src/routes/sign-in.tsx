import { createFileRoute, redirect } from '@tanstack/react-router'
import { authQueries } from '../features/auth/auth-queries'
import { SignInPage } from '../features/auth/sign-in-page'
import { signInSearchOf } from '../features/auth/sign-in-search'

export const Route = createFileRoute('/sign-in')({
  validateSearch: (search: Record<string, unknown>) => signInSearchOf(search, window.location.origin),
  beforeLoad: async ({ context: { queryClient } }) => {
    const signedIn = await queryClient.query(authQueries.session()).then(
      () => true,
      () => false,
    )
    // `throw: true` makes the router throw its own redirect object.
    if (signedIn) redirect({ to: '/leads', throw: true })
  },
  component: SignInRoute,
})

function SignInRoute() {
  const { redirect: redirectTo, method, sso_error: ssoError } = Route.useSearch()
  return <SignInPage redirectTo={redirectTo} method={method} ssoError={ssoError} />
}
