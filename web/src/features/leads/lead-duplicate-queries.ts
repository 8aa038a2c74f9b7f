import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query'
import type {
  DuplicateCluster,
  DuplicateLead,
  DuplicateReason,
  LeadDuplicates,
} from '@leadline/shared/lead-duplicate-schema'
import type { ListEnvelope } from '@leadline/shared/list'
import { api } from '../../lib/api'
import { leadQueries } from './lead-queries'

/** Clusters per page of the Potential duplicates screen. */
export const CLUSTERS_PER_PAGE = 25

export const duplicateQueries = {
  /** Under the lead's detail key: a change to the lead refreshes them. */
  ofLead: (leadId: string) =>
    queryOptions({
      queryKey: [...leadQueries.detail(leadId).queryKey, 'duplicates'],
      queryFn: ({ signal }) => api.get<LeadDuplicates>(`lead/${encodeURIComponent(leadId)}/duplicates/`, {}, signal),
    }),
  clusters: (page: number) =>
    queryOptions({
      queryKey: [...leadQueries.all(), 'duplicates', page],
      queryFn: ({ signal }) =>
        api.get<ListEnvelope<DuplicateCluster>>(
          'lead/duplicates/',
          { _skip: (page - 1) * CLUSTERS_PER_PAGE, _limit: CLUSTERS_PER_PAGE },
          signal,
        ),
    }),
}

/** Of two leads, the one a merge keeps: the older (ids start with the time they were made), so the newer goes in. */
export function mergeDirection(
  a: DuplicateLead,
  b: DuplicateLead,
): { source: DuplicateLead; destination: DuplicateLead } {
  const aFirst = a.date_created < b.date_created || (a.date_created === b.date_created && a.id < b.id)
  return aFirst ? { source: b, destination: a } : { source: a, destination: b }
}

/** Merges `source` into `destination` through Close's POST /lead/merge/; every lead screen is refreshed after. */
export function useMergeLeads() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationKey: leadQueries.all(),
    mutationFn: async ({ source, destination }: { source: string; destination: string }) => {
      await api.post<unknown>('lead/merge/', { source, destination })
      // The source is gone: drop it rather than refetch it into a 404 while the screen moves on.
      queryClient.removeQueries({ queryKey: leadQueries.detail(source).queryKey })
    },
    meta: { errorTitle: 'The leads were not merged' },
  })
}

const REASON_TEXT: Record<DuplicateReason, string> = {
  email: 'same email',
  phone: 'same phone',
  url: 'same web domain',
  name: 'similar name',
}

/** “same email, similar name”. */
export function reasonsText(reasons: readonly DuplicateReason[]): string {
  return reasons.map((r) => REASON_TEXT[r]).join(', ')
}

export function leadName(lead: DuplicateLead): string {
  return lead.display_name === '' ? 'Unnamed lead' : lead.display_name
}
