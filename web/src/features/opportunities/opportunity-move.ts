import { useMutation, useQueryClient, type InfiniteData } from '@tanstack/react-query'
import type { Opportunity } from '@leadline/shared/opportunity-schema'
import { showToast } from '../../components/ui/toast'
import { localDate } from '../../lib/format'
import { api, saveErrorMessage } from '../../lib/api'
import { leadQueries } from '../leads/lead-queries'
import { moveBetweenColumns, type BoardStatus, type OpportunityColumnPage } from './board-moves'
import type { BoardFilters } from './board-search'
import { opportunityQueries } from './opportunity-queries'

type ColumnData = InfiniteData<OpportunityColumnPage, number>

/** A status's columns under every filter: the prefix of opportunityQueries.column's keys. */
const columnsKey = (statusId: string) => [...opportunityQueries.all(), 'column', statusId]

/** The list view's queries (opportunity-list.tsx), by prefix; not in opportunityQueries, which the route loads. */
export const listsKey = [...opportunityQueries.all(), 'list'] as const

/*
 * A move's mutation key matches no query; it refetches its two columns itself. The optimistic change goes to the
 * two columns on screen (those of the board's filters); once settled, both statuses' columns under every filter,
 * and every list, are refetched, since a move can take a card into or out of any of them.
 */

export interface MoveRequest {
  opportunity: Opportunity
  from: BoardStatus
  to: BoardStatus
  /** The board's filters when the move was asked for: the keys of the columns on screen. */
  filters: BoardFilters
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
    onMutate: async ({ opportunity, from, to, filters }) => {
      const fromKey = opportunityQueries.column(from.id, filters).queryKey
      const toKey = opportunityQueries.column(to.id, filters).queryKey
      await Promise.all([
        queryClient.cancelQueries({ queryKey: fromKey }),
        queryClient.cancelQueries({ queryKey: toKey }),
      ])
      const previousFrom = queryClient.getQueryData<ColumnData>(fromKey)
      const previousTo = queryClient.getQueryData<ColumnData>(toKey)
      const moved = moveBetweenColumns(previousFrom, previousTo, opportunity, to, localDate())
      if (moved.from !== undefined) queryClient.setQueryData(fromKey, moved.from)
      if (moved.to !== undefined) queryClient.setQueryData(toKey, moved.to)
      return { previousFrom, previousTo }
    },
    onError: (error, { opportunity, from, to, filters }, context) => {
      if (context !== undefined) {
        queryClient.setQueryData(opportunityQueries.column(from.id, filters).queryKey, context.previousFrom)
        queryClient.setQueryData(opportunityQueries.column(to.id, filters).queryKey, context.previousTo)
      }
      showToast({
        title: `${opportunity.lead_name ?? 'The opportunity'} was not moved to ${to.label}`,
        description: `${saveErrorMessage(error, 'status_id')} It is back in ${from.label}.`,
        tone: 'error',
      })
    },
    onSuccess: (_saved, request) => {
      const { opportunity, from, to, filters } = request
      if (request.isUndo === true) {
        showToast({ title: `${opportunity.lead_name ?? 'The opportunity'} is back in ${to.label}` })
        return
      }
      showToast({
        title: `${opportunity.lead_name ?? 'The opportunity'} moved to ${to.label}`,
        action: {
          label: 'Undo',
          onPress: () => {
            move.mutate({
              opportunity: { ...opportunity, status_id: to.id },
              from: to,
              to: from,
              filters,
              isUndo: true,
            })
          },
        },
      })
    },
    onSettled: (_data, _error, { opportunity, from, to }) => {
      void queryClient.invalidateQueries({ queryKey: columnsKey(from.id) })
      void queryClient.invalidateQueries({ queryKey: columnsKey(to.id) })
      void queryClient.invalidateQueries({ queryKey: listsKey })
      void queryClient.invalidateQueries({ queryKey: leadQueries.detail(opportunity.lead_id).queryKey })
    },
    meta: { errorTitle: false },
  })
  return move
}
