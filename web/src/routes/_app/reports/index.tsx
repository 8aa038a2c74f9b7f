import { createFileRoute, type SearchSchemaInput } from '@tanstack/react-router'
import { reportParamsOf, type ReportParams } from '../../../features/reports/report-params'
import { ReportPage } from '../../../features/reports/report-page'
import { reportSearchOf } from '../../../features/reports/report-search'

// No loader: it would bring the report's queries into every screen's first bundle; the page shows its own loading.
export const Route = createFileRoute('/_app/reports/')({
  // A link may leave out any param: the page fills in the defaults.
  validateSearch: (search: Partial<Record<keyof ReportParams, unknown>> & SearchSchemaInput) => reportParamsOf(search),
  component: ReportsRoute,
})

function ReportsRoute() {
  return <ReportPage search={reportSearchOf(Route.useSearch())} />
}
