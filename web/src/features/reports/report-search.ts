// The report's search params (they live in the URL, so a report can be shared and reloaded); no React, so the rules
// are unit-tested.

import { localDateIn } from '@leadline/shared/task-dates'
import { localDate } from '../../lib/format'

export const GROUPINGS = ['owner', 'week', 'month', 'quarter', 'year'] as const
export type Grouping = (typeof GROUPINGS)[number]

export const STATUS_CHOICES = ['any', 'won', 'active', 'lost'] as const
export type StatusChoice = (typeof STATUS_CHOICES)[number]

/** The drill-down's key for the group without one (no owner, no date won). */
export const NO_KEY = 'none'

export interface ReportSearch {
  by: Grouping
  /** One pipeline, or all of them when absent. */
  pipeline: string | undefined
  status: StatusChoice
  /** Owners' user ids, comma-separated; everyone's when absent. */
  owners: string | undefined
  /** `date_won` from and to, both included (`YYYY-MM-DD`); open when absent. */
  from: string | undefined
  to: string | undefined
  /** `all`: no date range at all (without it and without `from`/`to`, the range is this year). */
  dates: 'all' | undefined
  /** The group drilled into: its key (`2026-03`, `2026-Q1`, `2026-W14`, `2026`, a user id) or `none`. */
  group: string | undefined
}

const DAY = /^\d{4}-\d\d-\d\d$/

/** `value` when it is a string `pattern` accepts. */
function text(value: unknown, pattern: RegExp): string | undefined {
  return typeof value === 'string' && pattern.test(value) ? value : undefined
}

/**
 * The report a URL asks for: each param checked, a rejected one dropped. Defaults: grouped by month, any status, this year (in the user's zone). A group key the report does
 * not have (of the wrong shape, say) is left to the drill-down, which says it finds no such group.
 */
export function reportSearchOf(search: Record<string, unknown>, today: string = localDate()): ReportSearch {
  const dates = search.dates === 'all' ? 'all' : undefined
  const from = dates === undefined ? text(search.from, DAY) : undefined
  const to = dates === undefined ? text(search.to, DAY) : undefined
  const unset = dates === undefined && from === undefined && to === undefined
  return {
    by: GROUPINGS.find((g) => g === search.by) ?? 'month',
    pipeline: text(search.pipeline, /^pipe_\w+$/),
    status: STATUS_CHOICES.find((s) => s === search.status) ?? 'any',
    owners: text(search.owners, /^user_\w+(,user_\w+)*$/),
    from: unset ? `${today.slice(0, 4)}-01-01` : from,
    to: unset ? `${today.slice(0, 4)}-12-31` : to,
    dates,
    group: text(search.group, /^[\w-]+$/),
  }
}

/**
 * `reportSearchOf` with this year taken in `timeZone` rather than the display zone: the route's loader, which on the
 * server runs for several sessions' pages at once.
 */
export function reportSearchIn(search: Record<string, unknown>, timeZone: string): ReportSearch {
  return reportSearchOf(search, localDateIn(timeZone, new Date()))
}
