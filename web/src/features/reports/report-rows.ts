// The report's table as rows of cells, shared by the screen and its CSV so that both say the same.

import type { Opportunity, OpportunityAggregates } from '@leadline/shared/opportunity-schema'
import type { CsvCell } from './report-csv'
import { majorUnits } from './report-csv'
import { groupLabel, type ReportGroup, type ReportPage } from './report-groups'
import { GROUPING_CHOICES } from './report-filters'
import type { Grouping } from './report-search'

/** The money columns of a group's row, each an aggregate in the currency's smallest unit. */
export const MONEY_COLUMNS = [
  { field: 'total_value_one_time', label: 'One-time', csv: 'Total one-time' },
  { field: 'total_value_monthly', label: 'Monthly', csv: 'Total monthly' },
  { field: 'total_value_annual', label: 'Annual', csv: 'Total annual' },
  { field: 'total_value_annualized', label: 'Annualized', csv: 'Total annualized' },
  { field: 'expected_value_annualized', label: 'Expected (annualized)', csv: 'Expected annualized' },
] as const satisfies readonly { field: keyof OpportunityAggregates; label: string; csv: string }[]

export function groupingLabel(by: Grouping): string {
  return GROUPING_CHOICES.find((g) => g.id === by)?.label ?? 'Group'
}

/**
 * The table's CSV: a header, one row per group as on screen, then the totals row from the API's aggregates. Money
 * as numbers in the currency's major unit (1500.5 for $1,500.50), the currency in its own column.
 */
export function reportCsvRows(by: Grouping, page: ReportPage, currency: string): CsvCell[][] {
  const row = (name: string, sums: OpportunityAggregates): CsvCell[] => [
    name,
    sums.total_results,
    ...MONEY_COLUMNS.map((c) => majorUnits(sums[c.field], currency)),
    currency,
  ]
  return [
    [groupingLabel(by), 'Count', ...MONEY_COLUMNS.map((c) => c.csv), 'Currency'],
    ...page.data.map((group: ReportGroup) => row(groupLabel(by, group), group)),
    row('Total', page),
  ]
}

/** A drill-down's CSV: one row per opportunity, values as numbers in the major unit with their own currency. */
export function drillCsvRows(opportunities: readonly Opportunity[]): CsvCell[][] {
  const money = (value: number | null, currency: string) => (value === null ? null : majorUnits(value, currency))
  return [
    ['Lead', 'Status', 'Value', 'Value period', 'Annualized value', 'Currency', 'Confidence', 'Owner', 'Date won'],
    ...opportunities.map((o) => [
      o.lead_name,
      o.status_label,
      money(o.value, o.value_currency),
      o.value_period,
      money(o.annualized_value, o.value_currency),
      o.value_currency,
      o.confidence,
      o.user_name,
      o.date_won,
    ]),
  ]
}
