import { useQuery, useSuspenseQuery } from '@tanstack/react-query'
import { useNavigate } from '@tanstack/react-router'
import { lazy, Suspense } from 'react'
import { Button } from '../../components/ui/button'
import { EmptyState, Skeleton, QueryErrorState } from '../../components/ui/feedback'
import { useDocumentTitle } from '../../lib/document-title'
import { authQueries } from '../auth/auth-queries'
import { opportunityQueries } from '../opportunities/opportunity-queries'
import { ReportControls, type ReportChange } from './report-controls'
import { downloadText, toCsv } from './report-csv'
import { ReportDrill } from './report-drill'
import { reportQueries } from './report-queries'
import { reportCsvRows } from './report-rows'
import type { ReportSearch } from './report-search'
import { ReportTable } from './report-table'

// The chart library stays out of every other screen's bundle, and out of this one's until the numbers are in.
const ReportChart = lazy(() => import('./report-chart').then((m) => ({ default: m.ReportChart })))

/** The opportunity report: totals per owner or period of `date_won`, as a chart and a table, and each group's list. */
export function ReportPage({ search }: { search: ReportSearch }) {
  useDocumentTitle('Reports')
  const { data: session } = useSuspenseQuery(authQueries.session())
  const { data: organization } = useSuspenseQuery(opportunityQueries.organization(session.organization.id))
  const navigate = useNavigate({ from: '/reports/' })
  const { group, ...query } = search
  const report = useQuery(reportQueries.groups(query))
  // Won against expected only where the report is not already limited to one status type.
  const won = useQuery({ ...reportQueries.groups({ ...query, status: 'won' }), enabled: search.status === 'any' })
  const change = (next: ReportChange) => {
    void navigate({ to: '/reports', search: (prev) => ({ ...prev, ...next, group: undefined }), replace: true })
  }
  const currency = organization.currency
  return (
    <div className="flex flex-col gap-4">
      <h1 className="text-2xl font-semibold tracking-tight text-slate-900">Reports</h1>
      <ReportControls search={search} onChange={change} />
      {report.isPending ? (
        <Skeleton className="h-72" />
      ) : report.isError ? (
        <QueryErrorState title="The report did not load" query={report} />
      ) : report.data.data.length === 0 ? (
        <EmptyState title="No opportunities match">Try another date range, status or owner.</EmptyState>
      ) : (
        <>
          <Suspense fallback={<Skeleton className="h-72" />}>
            {search.status === 'any' && won.data === undefined ? (
              <Skeleton className="h-72" />
            ) : (
              <ReportChart search={search} page={report.data} won={won.data} currency={currency} />
            )}
          </Suspense>
          {group === undefined ? (
            <section aria-label="Report table" className="flex flex-col gap-3">
              <ReportTable by={search.by} page={report.data} currency={currency} />
              <div>
                <Button
                  size="sm"
                  onPress={() => {
                    downloadText(`report-by-${search.by}.csv`, toCsv(reportCsvRows(search.by, report.data, currency)))
                  }}
                >
                  Download CSV
                </Button>
              </div>
            </section>
          ) : (
            <ReportDrill search={search} group={group} page={report.data} />
          )}
        </>
      )}
    </div>
  )
}
