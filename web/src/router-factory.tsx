import type { QueryClient } from '@tanstack/react-query'
import { createRouter, type RouterHistory } from '@tanstack/react-router'
import { AppErrorPage, NotFoundPage } from './features/shell/error-pages'
import { PendingPage } from './features/shell/pending-page'
import { routeTree } from './routeTree.gen'

/**
 * The app's router, made alike in the browser (router.tsx, once) and in the BFF's server render (server-render.tsx,
 * once a page, over memory history): a page rendered by one must read the same as the other's first render.
 */
export function createAppRouter(queryClient: QueryClient, history?: RouterHistory, scrollRestoration = true) {
  return createRouter({
    routeTree,
    context: { queryClient },
    ...(history === undefined ? {} : { history }),
    // Hovering a link starts its loader; the query cache decides whether anything is fetched again.
    defaultPreload: 'intent',
    defaultPreloadStaleTime: 0,
    // A fast load shows no placeholder at all; a slow one shows it long enough not to flicker.
    defaultPendingMs: 300,
    defaultPendingMinMs: 300,
    defaultPendingComponent: PendingPage,
    defaultErrorComponent: AppErrorPage,
    defaultNotFoundComponent: () => <NotFoundPage />,
    scrollRestoration,
  })
}

export type AppRouter = ReturnType<typeof createAppRouter>
