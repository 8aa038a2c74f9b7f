import { queryOptions, useQuery } from '@tanstack/react-query'
import type { Lead } from '@leadline/shared/lead-schema'
import type { LeadSummaries } from '@leadline/shared/lead-summary-schema'
import { api } from '../../lib/api'
import { formatCalendarDate, formatDateTime, formatRelative } from '../../lib/format'
import { nextTaskDate, type LeadColumn } from './lead-columns'
import { leadQueries } from './lead-queries'

// The leads list's Last activity and Next task columns (issue 33, decision 0059). A lead's next task is in the lead
// (its open tasks); its last activity is not, so the page asks GET /lead/summaries/ for its leads' in one request,
// and only while Last activity shows.

/** The columns whose cells LeadSummaryCell draws. */
export function isSummaryColumn(column: Pick<LeadColumn, 'id'>): boolean {
  return column.id === 'last_activity' || column.id === 'next_task'
}

/** The leads a page must ask the API about: all of its leads while Last activity shows, else none. */
export function summaryLeadIds(
  leads: readonly Pick<Lead, 'id'>[],
  columns: readonly Pick<LeadColumn, 'id'>[],
): string[] {
  return columns.some((c) => c.id === 'last_activity') ? [...new Set(leads.map((l) => l.id))] : []
}

/** When each lead last had a call, email, note or SMS; null for none. */
export type LastActivities = ReadonlyMap<string, string | null>

function byLead(page: LeadSummaries): LastActivities {
  return new Map(page.data.map((s) => [s.lead_id, s.date_last_activity]))
}

export const leadSummaryQueries = {
  /** Under the leads' key, so that whatever refreshes the leads refreshes these. */
  page: (leadIds: readonly string[]) =>
    queryOptions({
      queryKey: [...leadQueries.all(), 'summaries', leadIds],
      queryFn: ({ signal }) => api.get<LeadSummaries>('lead/summaries/', { lead_id__in: leadIds.join(',') }, signal),
      select: byLead,
    }),
}

export interface PageSummaries {
  lastActivity: LastActivities | undefined
  /** The request failed: the cells say so rather than show "none". */
  isError: boolean
}

/** The page's last activities, in one request for `leadIds` (summaryLeadIds); none is made for no ids. */
export function useLeadSummaries(leadIds: readonly string[]): PageSummaries {
  const query = useQuery({ ...leadSummaryQueries.page(leadIds), enabled: leadIds.length > 0 })
  return { lastActivity: query.data, isError: query.isError }
}

/** What a summary cell shows: a time and how it reads, nothing (—), still loading, or not loaded. */
export type SummaryCell =
  { kind: 'time'; dateTime: string; text: string; title: string } | { kind: 'none' | 'loading' | 'failed' }

export function summaryCell(
  lead: Pick<Lead, 'id' | 'tasks'>,
  column: Pick<LeadColumn, 'id'>,
  summaries: PageSummaries,
  now: Date = new Date(),
): SummaryCell {
  if (column.id === 'next_task') {
    const date = nextTaskDate(lead)
    if (date === null) return { kind: 'none' }
    // A date-only task stays that calendar date in every zone; a timed one shows its time in the user's.
    const isDay = /^\d{4}-\d{2}-\d{2}$/.test(date)
    const text = isDay ? formatCalendarDate(date) : formatDateTime(date)
    return { kind: 'time', dateTime: date, text, title: text }
  }
  const at = summaries.lastActivity?.get(lead.id)
  if (at === undefined) return { kind: summaries.isError ? 'failed' : 'loading' }
  if (at === null) return { kind: 'none' }
  return { kind: 'time', dateTime: at, text: formatRelative(at, now), title: formatDateTime(at) }
}

/** A Last activity or Next task cell of the leads list. */
export function LeadSummaryCell({
  lead,
  column,
  summaries,
}: {
  lead: Lead
  column: LeadColumn
  summaries: PageSummaries
}) {
  const cell = summaryCell(lead, column, summaries)
  switch (cell.kind) {
    case 'time':
      return (
        <time dateTime={cell.dateTime} title={cell.title} className="whitespace-nowrap">
          {cell.text}
        </time>
      )
    case 'none':
      return <span className="text-slate-400">—</span>
    case 'loading':
      return <span className="text-slate-400">…</span>
    case 'failed':
      return <span className="text-slate-400">Not loaded</span>
  }
}
