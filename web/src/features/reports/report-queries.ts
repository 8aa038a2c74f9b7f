import { infiniteQueryOptions, queryOptions } from '@tanstack/react-query'
import type { Opportunity, OpportunityAggregates } from '@leadline/shared/opportunity-schema'
import { api } from '../../lib/api'
import type { ReportGroup, ReportPage } from './report-groups'
import { groupByOf, reportFilters } from './report-filters'
import type { ReportSearch } from './report-search'

export const DRILL_PAGE = 50

interface OpportunityPage extends OpportunityAggregates {
  has_more: boolean
  data: Opportunity[]
}

interface GroupedPage {
  has_more: boolean
  data: (ReportGroup & { objects: Opportunity[] })[]
}

/** What a drill-down reads: a group's own filters, or (the group without a key) its place at the end of the list. */
export type DrillSource =
  { filters: Record<string, string | undefined> } | { grouped: Record<string, string | undefined>; offset: number }

/** The report's search without the drill-down: what its groups depend on. */
export type ReportQuery = Omit<ReportSearch, 'group'>

/*
 * The report reads every group's sums in one request (`_limit=0`: groups without their objects), however many
 * opportunities there are; the drill-down pages through one group's opportunities.
 */
export const reportQueries = {
  all: () => ['opportunities', 'report'] as const,
  groups: (search: ReportQuery) =>
    queryOptions({
      queryKey: [...reportQueries.all(), 'groups', search],
      queryFn: () =>
        api.get<ReportPage>('opportunity/', { ...reportFilters(search), _group_by: groupByOf(search.by), _limit: 0 }),
    }),
  drill: (source: DrillSource) =>
    infiniteQueryOptions({
      queryKey: [...reportQueries.all(), 'drill', source],
      queryFn: async ({ pageParam }) => {
        if ('filters' in source) {
          const page = await api.get<OpportunityPage>('opportunity/', {
            ...source.filters,
            _order_by: '-date_won',
            _skip: pageParam,
            _limit: DRILL_PAGE,
          })
          return { has_more: page.has_more, data: page.data }
        }
        // The group without a key comes last in a grouped list: read from where it starts, keep only its objects.
        const page = await api.get<GroupedPage>('opportunity/', {
          ...source.grouped,
          _skip: source.offset + pageParam,
          _limit: DRILL_PAGE,
        })
        return { has_more: page.has_more, data: page.data.filter((g) => g.key === null).flatMap((g) => g.objects) }
      },
      initialPageParam: 0,
      getNextPageParam: (last, pages) =>
        last.has_more ? pages.reduce((sum, page) => sum + page.data.length, 0) : undefined,
    }),
}
