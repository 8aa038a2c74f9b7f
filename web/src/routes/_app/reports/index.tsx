import { createFileRoute, type SearchSchemaInput } from '@tanstack/react-router'
import { authQueries } from '../../../features/auth/auth-queries'
import { setupQueries } from '../../../features/leads/lead-queries'
import { opportunityQueries } from '../../../features/opportunities/opportunity-queries'
import { reportParamsOf, type ReportParams } from '../../../features/reports/report-params'
import { ReportPage } from '../../../features/reports/report-page'
import { reportSearchOf } from '../../../features/reports/report-search'

export const Route = createFileRoute('/_app/reports/')({
  // A link may leave out any param: the page fills in the defaults.
  validateSearch: (search: Partial<Record<keyof ReportParams, unknown>> & SearchSchemaInput) => reportParamsOf(search),
  // What the groups depend on: opening a group's list reads nothing again.
  loaderDeps: ({ search: { group: _group, ...query } }) => query,
  // The report's sums are read before the screen shows, as the other screens' lists are, so that a fresh load takes
  // them from the page (and the server draws the report). A failed read is the page's to show, with its retry.
  loader: async ({ context: { queryClient }, deps }) => {
    // The report's own modules come with its screen's code (preloaded with the page), not in every screen's first one.
    const [session, { reportQueries }, { reportSearchIn }] = await Promise.all([
      queryClient.query(authQueries.session()),
      import('../../../features/reports/report-queries'),
      import('../../../features/reports/report-search'),
    ])
    // This year is the session's (the zone the page shows), not the module's: on the server, pages of several sessions
    // load at once.
    const { group: _group, ...query } = reportSearchIn(deps, session.time_zone)
    const optional = (read: Promise<unknown>) => read.catch(() => undefined)
    await Promise.all([
      queryClient.query(opportunityQueries.pipelines()),
      queryClient.query(setupQueries.members()),
      queryClient.query(opportunityQueries.organization(session.organization.id)),
      optional(queryClient.query(reportQueries.groups(query))),
      query.status === 'any' ? optional(queryClient.query(reportQueries.groups({ ...query, status: 'won' }))) : null,
    ])
  },
  component: ReportsRoute,
})

function ReportsRoute() {
  return <ReportPage search={reportSearchOf(Route.useSearch())} />
}
