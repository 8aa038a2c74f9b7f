import { useInfiniteQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { cx } from '../../lib/cx'
import { Button, focusRing } from '../../components/ui/button'
import { EmptyState, Skeleton, QueryErrorState } from '../../components/ui/feedback'
import { formatCalendarDate } from '../../lib/format'
import { ExportButton } from '../exports/export-button'
import { exportParams } from '../exports/export-queries'
import { downloadText, toCsv } from './report-csv'
import { drillFilters, groupLabel, type ReportPage } from './report-groups'
import { reportQueries, type DrillSource } from './report-queries'
import { drillCsvRows } from './report-rows'
import { groupByOf, reportFilters } from './report-filters'
import type { ReportSearch } from './report-search'

/** Where a group's opportunities are read from: its own filters, or its place at the end of the grouped list. */
function drillSource(search: ReportSearch, key: string, page: ReportPage): DrillSource | undefined {
  const filters = drillFilters(search, key)
  if (filters !== undefined) return { filters }
  const keyless = page.data.find((g) => g.key === null)
  if (keyless === undefined) return undefined
  return {
    grouped: { ...reportFilters(search), _group_by: groupByOf(search.by) },
    offset: page.total_results - keyless.total_results,
  }
}

/** One group's opportunities, a page at a time, with its own URL (`?group=2026-03`) and a way back. */
export function ReportDrill({ search, group, page }: { search: ReportSearch; group: string; page: ReportPage }) {
  const found = page.data.find((g) => (g.key ?? 'none') === group)
  const label = groupLabel(search.by, found ?? { key: group })
  const source = drillSource(search, group, page)
  return (
    <section aria-labelledby="drill-heading" className="flex flex-col gap-3">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h2 id="drill-heading" className="text-lg font-semibold text-slate-900">
          {label}: opportunities
        </h2>
        <Link
          from="/reports/"
          to="/reports"
          search={(prev) => ({ ...prev, group: undefined })}
          className={cx('rounded text-sm font-medium text-indigo-700 hover:underline', focusRing)}
        >
          Back to the report
        </Link>
      </div>
      {source === undefined || found === undefined ? (
        <EmptyState title="No opportunities in this group">This report has no such group.</EmptyState>
      ) : (
        <DrillList source={source} label={label} />
      )}
    </section>
  )
}

function DrillList({ source, label }: { source: DrillSource; label: string }) {
  const list = useInfiniteQuery(reportQueries.drill(source))
  const opportunities = list.data?.pages.flatMap((p) => p.data) ?? []
  if (list.isPending) return <Skeleton className="h-40" />
  if (list.isError) return <QueryErrorState title="The opportunities did not load" query={list} />
  if (opportunities.length === 0) return <EmptyState title="No opportunities in this group" />
  const download = async () => {
    // The whole group, not only the pages on screen.
    let more = list.hasNextPage
    let data: typeof list.data | undefined = list.data
    while (more) {
      const next = await list.fetchNextPage()
      more = next.hasNextPage
      data = next.data
    }
    const all = data?.pages.flatMap((p) => p.data) ?? opportunities
    downloadText(`${fileSafe(label)}.csv`, toCsv(drillCsvRows(all)))
  }
  return (
    <div className="flex flex-col gap-3">
      <div className="relative overflow-x-auto rounded-lg border border-slate-200 bg-white">
        <table className="w-full text-sm">
          <caption className="sr-only">{label}: opportunities</caption>
          <thead className="border-b border-slate-200 bg-slate-50 text-left text-slate-600">
            <tr>
              {['Lead', 'Status', 'Value', 'Owner', 'Date won'].map((name) => (
                <th key={name} scope="col" className="px-3 py-2 font-medium">
                  {name}
                </th>
              ))}
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {opportunities.map((o) => (
              <tr key={o.id}>
                <td className="px-3 py-2">
                  <Link
                    to="/leads/$leadId"
                    params={{ leadId: o.lead_id }}
                    className={cx('rounded font-medium text-indigo-700 hover:underline', focusRing)}
                  >
                    {o.lead_name ?? 'Unnamed lead'}
                  </Link>
                </td>
                <td className="px-3 py-2">{o.status_label}</td>
                <td className="px-3 py-2 tabular-nums">{o.value_formatted ?? '—'}</td>
                <td className="px-3 py-2">{o.user_name ?? 'No owner'}</td>
                <td className="px-3 py-2">{o.date_won === null ? '—' : formatCalendarDate(o.date_won)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div className="flex flex-wrap gap-2">
        {list.hasNextPage ? (
          <Button size="sm" isPending={list.isFetchingNextPage} onPress={() => void list.fetchNextPage()}>
            Load more
          </Button>
        ) : null}
        <Button size="sm" onPress={() => void download()}>
          Download CSV
        </Button>
      </div>
      {/* The group without a key has no filters of its own to ask an export with: its CSV above is the way out. */}
      {'filters' in source ? (
        <ExportButton
          subject={{ object: 'opportunity', params: exportParams(source.filters) }}
          title="Export opportunities"
        />
      ) : null}
    </div>
  )
}

function fileSafe(name: string): string {
  return name.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'opportunities'
}
