import { useMutation, useQueryClient, type QueryClient } from '@tanstack/react-query'
import type { Activity } from '@leadline/shared/activity-schema'
import type { ActivityKind } from './activity-kinds'
import { leadQueries } from './lead-queries'

// Kept apart from lead-queries.ts, which route loaders import: only the lazily loaded forms need it.

/**
 * Shows a saved activity in the lead's timeline at once (All, and its kind's filter), before the refetch the
 * mutation's key starts: a new one on top, a changed one in its place.
 */
export function showInTimeline(queryClient: QueryClient, activity: Activity, kind: ActivityKind): void {
  for (const key of [undefined, kind]) {
    queryClient.setQueryData(leadQueries.activities(activity.lead_id, key).queryKey, (page) => {
      if (page === undefined) return page
      const known = page.data.some((a) => a.id === activity.id)
      const data = known ? page.data.map((a) => (a.id === activity.id ? activity : a)) : [activity, ...page.data]
      return { ...page, data }
    })
  }
}

/** Saves one of a lead's activities and shows the answer in its timeline; the form shows the API's errors itself. */
export function useTimelineMutation<V, A extends Activity>(
  leadId: string,
  kind: ActivityKind,
  mutationFn: (variables: V) => Promise<A>,
) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationKey: leadQueries.activities(leadId).queryKey,
    mutationFn,
    onSuccess: (activity) => {
      showInTimeline(queryClient, activity, kind)
    },
    meta: { errorTitle: false },
  })
}
