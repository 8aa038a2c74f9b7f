import type { Opportunity, OpportunityAggregates } from '@leadline/shared/opportunity-schema'
import type { OpportunityStatus } from '@leadline/shared/status-schema'

export type BoardStatus = Pick<OpportunityStatus, 'id' | 'label' | 'type'>

/** `GET /opportunity/`: a page of cards and, for every match however it is paged, the totals. */
export type OpportunityColumnPage = OpportunityAggregates & { has_more: boolean; data: Opportunity[] }

interface Pages {
  pages: OpportunityColumnPage[]
  pageParams: number[]
}

export type ColumnTotals = Omit<OpportunityColumnPage, 'data' | 'has_more'>

/** The column totals with one opportunity added (sign 1) or taken away (sign -1), as the API sums them. */
export function withOpportunity(totals: ColumnTotals, opportunity: Opportunity, sign: 1 | -1): ColumnTotals {
  const period = opportunity.value_period
  const next: ColumnTotals = {
    ...totals,
    total_results: totals.total_results + sign,
    count_by_value_period: { ...totals.count_by_value_period },
    total_value_annualized: totals.total_value_annualized + sign * (opportunity.annualized_value ?? 0),
    expected_value_annualized: totals.expected_value_annualized + sign * (opportunity.annualized_expected_value ?? 0),
  }
  next.count_by_value_period[period] += sign
  next[`total_value_${period}`] += sign * (opportunity.value ?? 0)
  next[`expected_value_${period}`] += sign * (opportunity.expected_value ?? 0)
  return next
}

/**
 * Both columns after a move, as the server will have them: the card leaves wherever it is loaded in `from` and
 * goes first in `to`; the first page of each (which the header reads) has its totals adjusted. A column not loaded
 * stays undefined.
 */
export function moveBetweenColumns<D extends Pages>(
  from: D | undefined,
  to: D | undefined,
  opportunity: Opportunity,
  status: BoardStatus,
  today: string,
): { from: D | undefined; to: D | undefined } {
  const moved: Opportunity = {
    ...opportunity,
    status_id: status.id,
    status_label: status.label,
    status_type: status.type,
    // Won without a close date: the API dates it the mover's today, and so does the card until the API answers.
    date_won: status.type === 'won' && opportunity.date_won === null ? today : opportunity.date_won,
  }
  const nextFrom =
    from === undefined
      ? undefined
      : {
          ...from,
          pages: from.pages.map((page, index) => {
            const data = page.data.filter((o) => o.id !== opportunity.id)
            return index === 0 ? { ...withOpportunity(page, opportunity, -1), data } : { ...page, data }
          }),
        }
  const nextTo =
    to === undefined
      ? undefined
      : {
          ...to,
          pages: to.pages.map((page, index) =>
            index === 0 ? { ...withOpportunity(page, moved, 1), data: [moved, ...page.data] } : page,
          ),
        }
  return { from: nextFrom, to: nextTo }
}

/** An active opportunity whose expected close date has passed; dates compare as `YYYY-MM-DD` text. */
export function isOverdue(opportunity: Pick<Opportunity, 'status_type' | 'date_won'>, today: string): boolean {
  return opportunity.status_type === 'active' && opportunity.date_won !== null && opportunity.date_won < today
}
