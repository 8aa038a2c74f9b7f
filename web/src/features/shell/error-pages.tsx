import { useQueryErrorResetBoundary } from '@tanstack/react-query'
import { Link, Navigate, useRouter, type ErrorComponentProps } from '@tanstack/react-router'
import { useEffect } from 'react'
import { Button } from '../../components/ui/button'
import { ErrorState } from '../../components/ui/feedback'
import { isApiError } from '../../lib/api'

/** The global error boundary: a failed load or render shows what happened and a way back, never a blank page. */
export function AppErrorPage({ error }: ErrorComponentProps) {
  const router = useRouter()
  const queryErrorReset = useQueryErrorResetBoundary()
  useEffect(() => {
    queryErrorReset.reset()
  }, [queryErrorReset])

  // The session ended (expired, signed out in another tab): sign in again and come back here.
  if (isApiError(error, 401)) {
    return <Navigate to="/sign-in" search={{ redirect: router.state.location.href }} replace />
  }
  return (
    <div className="mx-auto max-w-2xl px-4 py-12">
      <ErrorState title="Something went wrong" message={error instanceof Error ? error.message : String(error)}>
        <div className="flex gap-2">
          <Button
            variant="primary"
            onPress={() => {
              void router.invalidate()
            }}
          >
            Try again
          </Button>
          <Link to="/leads" className="rounded-md px-3.5 py-2 text-sm font-medium text-indigo-700 hover:underline">
            Go to leads
          </Link>
        </div>
      </ErrorState>
    </div>
  )
}

export function NotFoundPage({ what = 'page' }: { what?: string }) {
  return (
    <div className="mx-auto max-w-2xl px-4 py-16 text-center">
      <p className="text-sm font-semibold text-indigo-700">404</p>
      <h1 className="mt-2 text-2xl font-bold text-slate-900">This {what} does not exist</h1>
      <p className="mt-2 text-slate-600">It may have been deleted, or the link is wrong.</p>
      <BackToLeadsLink />
    </div>
  )
}

/** The way out of a page that cannot be shown. */
export function BackToLeadsLink() {
  return (
    <Link
      to="/leads"
      className="mt-6 inline-block rounded-md bg-indigo-600 px-3.5 py-2 text-sm font-medium text-white hover:bg-indigo-700"
    >
      Back to leads
    </Link>
  )
}
