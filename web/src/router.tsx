import { createRouter } from '@tanstack/react-router'
import { AppErrorPage, NotFoundPage } from './features/shell/error-pages'
import { PendingPage } from './features/shell/pending-page'
import { afterNextPaint } from './lib/after-paint'
import { onSessionEnded, queryClient } from './query-client'
import { routeTree } from './routeTree.gen'

export const router = createRouter({
  routeTree,
  context: { queryClient },
  // Hovering a link starts its loader; the query cache decides whether anything is fetched again.
  defaultPreload: 'intent',
  defaultPreloadStaleTime: 0,
  // A fast load shows no placeholder at all; a slow one shows it long enough not to flicker.
  defaultPendingMs: 300,
  defaultPendingMinMs: 300,
  defaultPendingComponent: PendingPage,
  defaultErrorComponent: AppErrorPage,
  defaultNotFoundComponent: () => <NotFoundPage />,
  scrollRestoration: true,
})

// Needed from the first navigation on, not for the first screen: it loads after it, outside the first-route budget.
void import('./lib/heading-focus').then(({ focusHeadingOnNavigation }) => {
  focusHeadingOnNavigation(router)
})
// Teammates' changes refresh what is on screen: followed once the first screen is painted, so that its code, its
// paint and the live client's (with the query keys it imports) do not compete.
const afterFirstScreen = router.subscribe('onRendered', () => {
  afterFirstScreen()
  afterNextPaint(() => {
    void import('./features/live/live-updates').then(({ startLiveUpdates }) => startLiveUpdates(queryClient))
  })
})

// A 401 from a mutation or a background refetch: sign in again, then come back to the page the user was on.
onSessionEnded(() => {
  void router.navigate({ to: '/sign-in', search: { redirect: router.latestLocation.href }, replace: true })
})

declare module '@tanstack/react-router' {
  interface Register {
    router: typeof router
  }
}
