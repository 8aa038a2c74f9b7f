import { createFileRoute } from '@tanstack/react-router'
import { leadQueries, searchErrorOf, setupQueries } from '../../../features/leads/lead-queries'
import { leadSearchOf } from '../../../features/leads/lead-search'
import { LeadsListPage } from '../../../features/leads/leads-list-page'
import { loadLeadsTable } from '../../../features/leads/leads-table-loader'
import { savedSearchQueries } from '../../../features/leads/saved-search-queries'
import { isApiError } from '../../../lib/api'

export const Route = createFileRoute('/_app/leads/')({
  validateSearch: leadSearchOf,
  // Only the validated keys: any other param in the URL must not become part of the list's query key.
  loaderDeps: ({ search: { query, smart_view } }) => ({ query, smart_view }),
  loader: async ({ context: { queryClient }, deps }) => {
    // The table's code comes while the first page is read, not after it (a failure shows when the table renders).
    loadLeadsTable().catch(() => undefined)
    // For the New lead dialog and the Smart Views; not awaited, and a failure only leaves those lists short.
    queryClient.query(setupQueries.statuses()).catch(() => undefined)
    queryClient.query(savedSearchQueries.list()).catch(() => undefined)
    // The columns' fields: read beside the first page rather than after it, when the table asks for them.
    queryClient.query(setupQueries.customFields('lead')).catch(() => undefined)
    let query = deps.query
    if (deps.smart_view !== undefined && query === undefined) {
      try {
        query = (await queryClient.query(savedSearchQueries.one(deps.smart_view))).query ?? undefined
      } catch (error) {
        // A view that is gone (or not shared with this user) is said on the page.
        if (isApiError(error, 404)) return
        throw error
      }
    }
    try {
      await queryClient.infiniteQuery(leadQueries.list(query))
    } catch (error) {
      // A search the API cannot parse stays on the list, shown beside the search box.
      if (searchErrorOf(error) === undefined) throw error
    }
  },
  component: LeadsRoute,
})

function LeadsRoute() {
  const { query, smart_view } = Route.useSearch()
  return <LeadsListPage search={{ query, smart_view }} />
}
