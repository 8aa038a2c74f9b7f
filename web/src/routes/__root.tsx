import type { QueryClient } from '@tanstack/react-query'
import { createRootRouteWithContext, Outlet, useRouterState } from '@tanstack/react-router'
import { ProgressBar } from '../components/ui/feedback'
import { ToastRegionView } from '../components/ui/toast'
import { AppErrorPage, NotFoundPage } from '../features/shell/error-pages'

export interface RouterContext {
  queryClient: QueryClient
}

export const Route = createRootRouteWithContext<RouterContext>()({
  component: RootLayout,
  errorComponent: AppErrorPage,
  notFoundComponent: () => <NotFoundPage />,
})

function RootLayout() {
  const isLoading = useRouterState({ select: (state) => state.status === 'pending' })
  return (
    <>
      <ProgressBar isActive={isLoading} />
      <Outlet />
      <ToastRegionView />
    </>
  )
}
