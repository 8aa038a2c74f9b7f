import { useMutation, useQueryClient, type InfiniteData } from '@tanstack/react-query'
import type { Opportunity } from '@leadline/shared/opportunity-schema'
import { showToast } from '../../components/ui/toast'
import { api, saveErrorMessage } from '../../lib/api'
import { leadQueries } from '../leads/lead-queries'
import { moveBetweenColumns, type BoardStatus, type OpportunityColumnPage } from './board-moves'
import { opportunityQueries } from './opportunity-queries'

type ColumnData = InfiniteData<OpportunityColumnPage, number>

// A move's mutation key matches no query; it refetches its two columns itself.

export interface MoveRequest {
  opportunity: Opportunity
  from: BoardStatus
  to: BoardStatus
  /** An undo is not offered its own undo. */
  isUndo?: boolean
}

/** Moves a card at once, then asks the API; a refusal puts it back and says why, a success offers Undo. */
export function useMoveOpportunity() {
  const queryClient = useQueryClient()
  const move = useMutation({
    mutationKey: [...opportunityQueries.all(), 'move'],
    mutationFn: ({ opportunity, to }: MoveRequest) =>
      api.put<Opportunity>(`opportunity/${encodeURIComponent(opportunity.id)}/`, { status_id: to.id }),
    onMutate: async ({ opportunity, from, to }) => {
      const fromKey = opportunityQueries.column(from.id).queryKey
      const toKey = opportunityQueries.column(to.id).queryKey
      await Promise.all([
        queryClient.cancelQueries({ queryKey: fromKey }),
        queryClient.cancelQueries({ queryKey: toKey }),
      ])
      const previousFrom = queryClient.getQueryData<ColumnData>(fromKey)
      const previousTo = queryClient.getQueryData<ColumnData>(toKey)
      const moved = moveBetweenColumns(previousFrom, previousTo, opportunity, to)
      if (moved.from !== undefined) queryClient.setQueryData(fromKey, moved.from)
      if (moved.to !== undefined) queryClient.setQueryData(toKey, moved.to)
      return { previousFrom, previousTo }
    },
    onError: (error, { opportunity, from, to }, context) => {
      if (context !== undefined) {
        queryClient.setQueryData(opportunityQueries.column(from.id).queryKey, context.previousFrom)
        queryClient.setQueryData(opportunityQueries.column(to.id).queryKey, context.previousTo)
      }
      showToast({
        title: `${opportunity.lead_name ?? 'The opportunity'} was not moved to ${to.label}`,
        description: `${saveErrorMessage(error, 'status_id')} It is back in ${from.label}.`,
        tone: 'error',
      })
    },
    onSuccess: (_saved, request) => {
      const { opportunity, from, to } = request
      if (request.isUndo === true) {
        showToast({ title: `${opportunity.lead_name ?? 'The opportunity'} is back in ${to.label}` })
        return
      }
      showToast({
        title: `${opportunity.lead_name ?? 'The opportunity'} moved to ${to.label}`,
        action: {
          label: 'Undo',
          onPress: () => {
            move.mutate({ opportunity: { ...opportunity, status_id: to.id }, from: to, to: from, isUndo: true })
          },
        },
      })
    },
    onSettled: (_data, _error, { opportunity, from, to }) => {
      void queryClient.invalidateQueries({ queryKey: opportunityQueries.column(from.id).queryKey })
      void queryClient.invalidateQueries({ queryKey: opportunityQueries.column(to.id).queryKey })
      void queryClient.invalidateQueries({ queryKey: leadQueries.detail(opportunity.lead_id).queryKey })
    },
    meta: { errorTitle: false },
  })
  return move
}
