import type { ReactNode } from 'react'
import { cx } from '../../lib/cx'
import { Button } from './button'

/** A thin bar along the top edge while a navigation loads: it overlays, so nothing below moves. */
export function ProgressBar({ isActive }: { isActive: boolean }) {
  return (
    <div
      role="progressbar"
      aria-label="Loading"
      aria-hidden={!isActive}
      className={`pointer-events-none fixed inset-x-0 top-0 z-50 h-0.5 overflow-hidden transition-opacity duration-300 ${isActive ? 'opacity-100' : 'opacity-0'}`}
    >
      <div className="h-full w-1/3 animate-[progress_1.2s_ease-in-out_infinite] bg-indigo-500" />
    </div>
  )
}

/** Grey blocks the size of the content they stand for, so the page does not jump when it arrives. */
export function Skeleton({ className }: { className?: string }) {
  return <div aria-hidden="true" className={cx('animate-pulse rounded bg-slate-200', className)} />
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="flex flex-col items-center gap-2 px-4 py-12 text-center">
      <p className="text-base font-medium text-slate-900">{title}</p>
      {children === undefined ? null : <div className="text-sm text-slate-600">{children}</div>}
    </div>
  )
}

export interface ErrorStateProps {
  title: string
  message: string
  /** Offers "Try again" (a refetch, say). */
  onRetry?: () => void
  children?: ReactNode
}

export function ErrorState({ title, message, onRetry, children }: ErrorStateProps) {
  return (
    <div role="alert" className="flex flex-col items-start gap-3 rounded-lg border border-red-200 bg-red-50 p-6">
      <p className="text-base font-semibold text-red-900">{title}</p>
      <p className="text-sm text-red-800">{message}</p>
      {onRetry === undefined ? null : (
        <Button size="sm" onPress={onRetry}>
          Try again
        </Button>
      )}
      {children}
    </div>
  )
}

/** A query that failed: its message, and Try again to fetch it anew. */
export function QueryErrorState({
  title,
  query,
}: {
  title: string
  query: { error: Error; refetch: () => Promise<unknown> }
}) {
  return <ErrorState title={title} message={query.error.message} onRetry={() => void query.refetch()} />
}
