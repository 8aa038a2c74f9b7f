import { createFileRoute } from '@tanstack/react-router'
import { leadQueries, setupQueries, type LeadSearch } from '../../../features/leads/lead-queries'
import { LeadsListPage } from '../../../features/leads/leads-list-page'

export const Route = createFileRoute('/_app/leads/')({
  validateSearch: (search: Record<string, unknown>): LeadSearch => {
    const query = typeof search.query === 'string' && search.query.trim() !== '' ? search.query : undefined
    const page = Number(search.page)
    return {
      ...(query === undefined ? {} : { query }),
      ...(Number.isInteger(page) && page > 1 ? { page } : {}),
    }
  },
  loaderDeps: ({ search }) => search,
  loader: async ({ context: { queryClient }, deps }) => {
    // For the New lead dialog; not awaited, and a failure only leaves the status list short.
    queryClient.query(setupQueries.statuses()).catch(() => undefined)
    await queryClient.query(leadQueries.list(deps))
  },
  component: LeadsRoute,
})

function LeadsRoute() {
  const search = Route.useSearch()
  return <LeadsListPage search={search} />
}
