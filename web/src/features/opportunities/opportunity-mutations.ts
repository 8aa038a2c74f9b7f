import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query'
import type { Opportunity } from '@leadline/shared/opportunity-schema'
import { showToast } from '../../components/ui/toast'
import { api } from '../../lib/api'
import { leadQueries } from '../leads/lead-queries'
import type { OpportunityBody } from './opportunity-form-draft'
import { opportunityQueries } from './opportunity-queries'

// Kept out of opportunity-queries.ts: the route's loader imports that, and these load only with the panel or form.

const path = (id: string) => `opportunity/${encodeURIComponent(id)}/`

/** One opportunity, for the board's side panel; under `opportunityQueries.all()`, so every save refreshes it. */
export function opportunityDetail(id: string) {
  return queryOptions({
    queryKey: [...opportunityQueries.all(), 'detail', id],
    queryFn: () => api.get<Opportunity>(path(id)),
  })
}

/** Creates (no id) or updates an opportunity; the board's columns refetch, and the lead's page with them. */
export function useSaveOpportunity() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationKey: opportunityQueries.all(),
    mutationFn: ({ id, body }: { id: string | undefined; body: OpportunityBody }) =>
      id === undefined ? api.post<Opportunity>('opportunity/', body) : api.put<Opportunity>(path(id), body),
    onSuccess: (saved, { id }) => {
      const lead = saved.lead_name ?? 'the lead'
      showToast({ title: id === undefined ? `Opportunity added to ${lead}` : `Opportunity of ${lead} saved` })
      void queryClient.invalidateQueries({ queryKey: leadQueries.detail(saved.lead_id).queryKey })
    },
    // The form shows the failure beside its fields.
    meta: { errorTitle: false },
  })
}

/**
 * Deletes an opportunity. Its key matches no query: the columns and the lead are refreshed here instead, leaving out
 * the deleted opportunity's own query, which would answer 404 under the closing panel.
 */
export function useDeleteOpportunity() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationKey: [...opportunityQueries.all(), 'delete'],
    mutationFn: (opportunity: Opportunity) => api.delete(path(opportunity.id)),
    onSuccess: (_data, opportunity) => {
      showToast({ title: `Opportunity of ${opportunity.lead_name ?? 'the lead'} deleted` })
      void queryClient.invalidateQueries({
        queryKey: opportunityQueries.all(),
        predicate: (query) => query.queryKey[1] !== 'detail',
      })
      void queryClient.invalidateQueries({ queryKey: leadQueries.detail(opportunity.lead_id).queryKey })
    },
    meta: { errorTitle: 'The opportunity was not deleted' },
  })
}
