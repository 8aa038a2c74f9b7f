// What a report's group is called and which opportunities it holds; no React, so the rules are unit-tested.

import type { OpportunityAggregates } from '@leadline/shared/opportunity-schema'
import { intersect, periodRange } from './report-dates'
import { reportFilters } from './report-filters'
import { NO_KEY, type Grouping, type ReportSearch } from './report-search'

/** A group as `GET /opportunity/?_group_by=…&_limit=0` answers it: its key, its own fields, its sums. */
export interface ReportGroup extends OpportunityAggregates {
  key: string | null
  user_name?: string | null
}

export interface ReportPage extends OpportunityAggregates {
  has_more: boolean
  data: ReportGroup[]
}

const months = new Intl.DateTimeFormat('en-US', { month: 'long', year: 'numeric', timeZone: 'UTC' })

/** "March 2026", "Q1 2026", "Week 14, 2026", "2026", an owner's name, or what a group without a key lacks. */
export function groupLabel(by: Grouping, group: Pick<ReportGroup, 'key' | 'user_name'>): string {
  const { key } = group
  if (key === null || key === NO_KEY) return by === 'owner' ? 'No owner' : 'No date won'
  switch (by) {
    case 'owner':
      return group.user_name ?? key
    case 'month':
      return months.format(new Date(Date.UTC(Number(key.slice(0, 4)), Number(key.slice(5, 7)) - 1, 1)))
    case 'quarter':
      return `${key.slice(5)} ${key.slice(0, 4)}`
    case 'week':
      return `Week ${String(Number(key.slice(6)))}, ${key.slice(0, 4)}`
    case 'year':
      return key
  }
}

const shortMonths = new Intl.DateTimeFormat('en-US', { month: 'short', year: 'numeric', timeZone: 'UTC' })
const TICK_MAX = 14

/** A group's name under its bars: short, as many sit side by side (`Mar 2026`, `W09 2026`); the bars' names are whole. */
export function groupTick(by: Grouping, group: Pick<ReportGroup, 'key' | 'user_name'>): string {
  const { key } = group
  if (key !== null && key !== NO_KEY && by === 'month') {
    return shortMonths.format(new Date(Date.UTC(Number(key.slice(0, 4)), Number(key.slice(5, 7)) - 1, 1)))
  }
  if (key !== null && key !== NO_KEY && by === 'week') return `${key.slice(5)} ${key.slice(0, 4)}`
  const label = groupLabel(by, group)
  return label.length > TICK_MAX ? `${label.slice(0, TICK_MAX - 1)}…` : label
}

/** Every how many groups a tick is labelled so that labels of about `chars` characters do not overlap. */
export function tickEvery(step: number, chars: number, charWidth = 7): number {
  return Math.max(1, Math.ceil((chars * charWidth + 8) / Math.max(step, 1)))
}

/** The URL's form of a group's key (`none` for the group without one). */
export function groupParam(key: string | null): string {
  return key ?? NO_KEY
}

/**
 * The list filters of a group's opportunities: the report's, narrowed to the owner or to the group's days within
 * the report's range. Undefined for the group without a key, which no filter can single out.
 */
export function drillFilters(search: ReportSearch, key: string): Record<string, string | undefined> | undefined {
  if (key === NO_KEY) return undefined
  const filters = reportFilters(search)
  if (search.by === 'owner') return { ...filters, user_id__in: undefined, user_id: key }
  const days = periodRange(key)
  if (days === undefined) return undefined
  const { from, to } = intersect({ from: search.from, to: search.to }, days)
  return { ...filters, date_won__gte: from, date_won__lte: to }
}
