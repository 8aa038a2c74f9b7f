import { hashKey, MutationCache, QueryCache, QueryClient } from '@tanstack/react-query'
import { showToast } from './components/ui/toast'
import { authQueries, type AuthSession } from './features/auth/auth-queries'
import { isApiError } from './lib/api'
import { setDisplayTimeZone } from './lib/format'

declare module '@tanstack/react-query' {
  interface Register {
    mutationMeta: {
      /**
       * The toast title when the mutation fails; `false` when the component shows the failure itself (a form
       * showing field errors, an optimistic update that says it rolled back).
       */
      errorTitle?: string | false
    }
  }
}

function messageOf(error: Error): string {
  return error.message
}

let goToSignIn: () => void = () => undefined

/** The router says how to reach the sign-in page (and back); this module cannot import it without a cycle. */
export function onSessionEnded(navigate: () => void): void {
  goToSignIn = navigate
}

/**
 * A 401 means the session ended under the user (it expired, or they signed out in another tab) — if there was one:
 * the sign-in form's own 401 (a wrong key) is not an ended session. Nothing of the previous session may stay in
 * memory; the first 401 clears the cache, so the others that arrive with it are ignored.
 */
function endedSession(error: Error): boolean {
  if (!isApiError(error, 401) || queryClient.getQueryData(authQueries.session().queryKey) === undefined) return false
  queryClient.clear()
  showToast({ title: 'Your session ended', description: 'Sign in again to carry on where you were.' })
  goToSignIn()
  return true
}

/**
 * Mutations declare the query-key prefix they make stale as their `mutationKey` (`['leads']`, `['leads', 'detail',
 * id]`); this one cache invalidates it once the mutation settles, so components never invalidate by hand.
 */
const mutationCache = new MutationCache({
  onSettled: async (_data, _error, _variables, _context, mutation) => {
    // The mutationKey doubles as the invalidation key: everything under it is refetched.
    const key = mutation.options.mutationKey
    if (key !== undefined) await queryClient.invalidateQueries({ queryKey: key })
  },
  onError: (error, _variables, _context, mutation) => {
    const title = mutation.meta?.errorTitle
    if (endedSession(error) || title === false) return
    showToast({ title: title ?? 'That did not work', description: messageOf(error), tone: 'error' })
  },
})

/** Background refetches that fail keep the data on screen; say so instead of failing silently. */
const queryCache = new QueryCache({
  onError: (error, query) => {
    if (endedSession(error) || query.state.data === undefined) return
    showToast({ title: 'Could not refresh', description: messageOf(error), tone: 'error' })
  },
})

export const queryClient: QueryClient = new QueryClient({
  mutationCache,
  queryCache,
  defaultOptions: {
    queries: {
      staleTime: 30_000,
      // Client errors (401, 404, 400…) will not change on a retry; network and server errors might.
      retry: (failures, error) => failures < 2 && !(isApiError(error) && error.status >= 400 && error.status < 500),
    },
  },
})

const sessionHash = hashKey(authQueries.session().queryKey)

// Times show in the session's zone (the Profile's choice, else the browser's): set it from every session the cache
// takes, whether fetched or put there by a sign-in or a profile change, before anything renders with it.
queryCache.subscribe((event) => {
  if (event.type !== 'added' && event.type !== 'updated') return
  if (event.query.queryHash !== sessionHash) return
  const session = event.query.state.data as AuthSession | undefined
  setDisplayTimeZone(session?.time_zone)
})
