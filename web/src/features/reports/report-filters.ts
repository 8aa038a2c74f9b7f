// What a report asks the API for, and what its choices are called.

import type { Grouping, ReportSearch, StatusChoice } from './report-search'

export const GROUPING_CHOICES = [
  { id: 'owner', label: 'Owner', groupBy: 'user_id' },
  { id: 'week', label: 'Week', groupBy: 'date_won__week' },
  { id: 'month', label: 'Month', groupBy: 'date_won__month' },
  { id: 'quarter', label: 'Quarter', groupBy: 'date_won__quarter' },
  { id: 'year', label: 'Year', groupBy: 'date_won__year' },
] as const satisfies readonly { id: Grouping; label: string; groupBy: string }[]

export const STATUS_LABELS = [
  { id: 'any', label: 'Any status' },
  { id: 'won', label: 'Won' },
  { id: 'active', label: 'Active' },
  { id: 'lost', label: 'Lost' },
] as const satisfies readonly { id: StatusChoice; label: string }[]

/** The API's `_group_by` for a grouping. */
export function groupByOf(by: Grouping): string {
  return GROUPING_CHOICES.find((g) => g.id === by)?.groupBy ?? 'date_won__month'
}

/** The list filters a report puts on `GET /opportunity/`. */
export function reportFilters(search: Omit<ReportSearch, 'group'>): Record<string, string | undefined> {
  return {
    pipeline_id: search.pipeline,
    status_type: search.status === 'any' ? undefined : search.status,
    user_id__in: search.owners,
    date_won__gte: search.from,
    date_won__lte: search.to,
  }
}
