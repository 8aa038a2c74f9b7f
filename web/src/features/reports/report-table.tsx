import { Link } from '@tanstack/react-router'
import { formatMoney } from '@leadline/shared/money'
import { cx } from '../../lib/cx'
import { focusRing } from '../../components/ui/button'
import { groupLabel, groupParam, type ReportPage } from './report-groups'
import { groupingLabel, MONEY_COLUMNS } from './report-rows'
import type { OpportunityAggregates } from '@leadline/shared/opportunity-schema'
import type { Grouping } from './report-search'

const cell = 'px-3 py-2 text-right tabular-nums whitespace-nowrap'

/** One row per group, each group's name a link to its opportunities; the totals row is the API's, not a sum here. */
export function ReportTable({ by, page, currency }: { by: Grouping; page: ReportPage; currency: string }) {
  return (
    <div className="relative overflow-x-auto rounded-lg border border-slate-200 bg-white">
      <table className="w-full text-sm">
        <caption className="sr-only">Opportunities by {groupingLabel(by).toLowerCase()}</caption>
        <thead className="border-b border-slate-200 bg-slate-50 text-slate-600">
          <tr>
            <th scope="col" className="px-3 py-2 text-left font-medium">
              {groupingLabel(by)}
            </th>
            <th scope="col" className={cx(cell, 'font-medium')}>
              Count
            </th>
            {MONEY_COLUMNS.map((c) => (
              <th key={c.field} scope="col" className={cx(cell, 'font-medium')}>
                {c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {page.data.map((group) => (
            <tr key={groupParam(group.key)}>
              <th scope="row" className="px-3 py-2 text-left font-medium">
                <Link
                  from="/reports/"
                  to="/reports"
                  search={(prev) => ({ ...prev, group: groupParam(group.key) })}
                  className={cx('rounded text-indigo-700 hover:underline', focusRing)}
                >
                  {groupLabel(by, group)}
                </Link>
              </th>
              <FigureCells figures={group} currency={currency} />
            </tr>
          ))}
        </tbody>
        <tfoot className="border-t-2 border-slate-200 bg-slate-50 font-semibold">
          <tr>
            <th scope="row" className="px-3 py-2 text-left">
              Total
            </th>
            <FigureCells figures={page} currency={currency} />
          </tr>
        </tfoot>
      </table>
    </div>
  )
}

/** A group's or the totals' count and sums. */
function FigureCells({ figures, currency }: { figures: OpportunityAggregates; currency: string }) {
  return (
    <>
      <td className={cell}>{figures.total_results}</td>
      {MONEY_COLUMNS.map((c) => (
        <td key={c.field} className={cell}>
          {formatMoney(figures[c.field], currency)}
        </td>
      ))}
    </>
  )
}
