import { infiniteQueryOptions, queryOptions } from '@tanstack/react-query'
import type { Organization } from '@leadline/shared/organization-schema'
import type { Pipeline } from '@leadline/shared/pipeline-schema'
import { api } from '../../lib/api'
import type { OpportunityColumnPage } from './board-moves'
import type { BoardFilters } from './board-search'
import { setupListQuery } from '../../lib/setup-query'

export const CARDS_PER_PAGE = 20

/*
 * One infinite query per status column and filters: its first page carries the API's aggregates for the whole
 * filtered column, so the header is right however many cards are loaded. Keys are `['opportunities', 'column',
 * statusId, filters]`: a move invalidates a status's columns under every filter by the prefix. Moving a card is opportunity-move.ts, kept out of the route's
 * loader so that a first visit to another screen does not load it.
 */
export const opportunityQueries = {
  all: () => ['opportunities'] as const,
  pipelines: () => setupListQuery<Pipeline>(['pipelines'], 'pipeline/', { _limit: 100 }),
  organization: (id: string) =>
    queryOptions({
      queryKey: ['organization', id],
      queryFn: () => api.get<Organization>(`organization/${encodeURIComponent(id)}/`),
      staleTime: 5 * 60_000,
    }),
  column: (statusId: string, filters: BoardFilters) =>
    infiniteQueryOptions({
      queryKey: [...opportunityQueries.all(), 'column', statusId, filters],
      queryFn: ({ pageParam }) =>
        api.get<OpportunityColumnPage>('opportunity/', {
          status_id: statusId,
          ...filters,
          _limit: CARDS_PER_PAGE,
          _skip: pageParam,
        }),
      initialPageParam: 0,
      getNextPageParam: (last, pages) =>
        last.has_more ? pages.reduce((sum, page) => sum + page.data.length, 0) : undefined,
    }),
}
