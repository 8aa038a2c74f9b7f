import { afterNextPaint } from './lib/after-paint'
import { onSessionEnded, queryClient } from './query-client'
import { createAppRouter, type AppRouter } from './router-factory'

export const router: AppRouter = createAppRouter(queryClient)

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
    router: AppRouter
  }
}
