// The board's search params (they live in the URL); no React, so the rule is unit-tested. It runs on every first
// visit (the router validates search params before any route chunk loads), so it stays small.
import type { ValuePeriod } from '@leadline/shared/money'

export interface BoardSearch {
  /** The pipeline shown; the organization's first when absent or unknown. */
  pipeline?: string | undefined
  /** Owners' user ids, comma-separated. */
  owner?: string | undefined
  period?: ValuePeriod | undefined
  /** The `date_won` range, inclusive, as `YYYY-MM-DD`. */
  won_from?: string | undefined
  won_to?: string | undefined
  /** A lead search: only opportunities of the leads it finds. */
  lead_query?: string | undefined
  /** The list of the same opportunities instead of the board. */
  view?: 'list' | undefined
  /** The list's order, as the API's `_order_by`: a sortable field, a leading "-" for descending. */
  sort?: string | undefined
  /** The opportunity open in the side panel. */
  opportunity?: string | undefined
}

/** `YYYY-MM-DD` with a month and a day that can be (the API checks the rest, such as February 30). */
const DAY = /^\d{4}-(0\d|1[012])-([0-2]\d|3[01])$/

/**
 * What each key accepts, as small as can be. The list's sortable columns are the API's `_order_by` fields; the
 * periods are VALUE_PERIODS, written out rather than imported, which would bring the money formatting along.
 */
const RULES: Record<keyof BoardSearch, RegExp> = {
  pipeline: /^pipe_/,
  owner: /^user_\w+(,user_\w+)*$/,
  period: /^(one_time|monthly|annual)$/,
  won_from: DAY,
  won_to: DAY,
  lead_query: /\S/,
  view: /^list$/,
  sort: /^-?(lead_name|(annualized_)?value|confidence|user_name|date_won)$/,
  opportunity: /^oppo_/,
}

/**
 * Every key is always present: the router merges this over the raw params, so a rejected value must be overwritten.
 */
export function boardSearchOf(search: Record<string, unknown>): BoardSearch {
  const valid: Record<string, string | undefined> = {}
  for (const [key, rule] of Object.entries(RULES)) {
    const value = search[key]
    valid[key] = typeof value === 'string' && rule.test(value) ? value : undefined
  }
  return valid
}

/**
 * The filters of a search as `GET /opportunity/` takes them, and nothing else: the opportunity queries' keys hold
 * them, so another param (the list's order, an open panel) does not refetch the board.
 */
export function filtersOf(search: BoardSearch) {
  return {
    user_id__in: search.owner,
    value_period: search.period,
    date_won__gte: search.won_from,
    date_won__lte: search.won_to,
    lead_query: search.lead_query,
  }
}

/** What narrows the opportunities shown, on the board and in the list alike. */
export type BoardFilters = ReturnType<typeof filtersOf>

/** The pipeline a search asks for, else the first one. */
export function pipelineOf<P extends { id: string }>(pipelines: readonly P[], id: string | undefined): P | undefined {
  return pipelines.find((p) => p.id === id) ?? pipelines[0]
}
