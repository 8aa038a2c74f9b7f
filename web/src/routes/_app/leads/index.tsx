import { createFileRoute } from '@tanstack/react-router'
import { leadQueries, searchErrorOf, setupQueries } from '../../../features/leads/lead-queries'
import { leadSearchOf } from '../../../features/leads/lead-search'
import { LeadsListPage } from '../../../features/leads/leads-list-page'

export const Route = createFileRoute('/_app/leads/')({
  validateSearch: leadSearchOf,
  // Only the validated keys: any other param in the URL must not become part of the list's query key.
  loaderDeps: ({ search: { query, page } }) => ({ query, page }),
  loader: async ({ context: { queryClient }, deps }) => {
    // For the New lead dialog; not awaited, and a failure only leaves the status list short.
    queryClient.query(setupQueries.statuses()).catch(() => undefined)
    try {
      await queryClient.query(leadQueries.list(deps))
    } catch (error) {
      // A search the API cannot parse stays on the list, shown beside the search box.
      if (searchErrorOf(error) === undefined) throw error
    }
  },
  component: LeadsRoute,
})

function LeadsRoute() {
  const { query, page } = Route.useSearch()
  return <LeadsListPage search={{ query, page }} />
}
