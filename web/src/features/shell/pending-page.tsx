import { Skeleton } from '../../components/ui/feedback'

/** Shown while a slow screen loads: the rough shape of a page, so the real one replaces it without a jump. */
export function PendingPage() {
  return (
    <div aria-busy="true" aria-label="Loading" className="flex flex-col gap-4">
      <Skeleton className="h-8 w-64" />
      <Skeleton className="h-10 w-full" />
      <Skeleton className="h-64 w-full" />
    </div>
  )
}
