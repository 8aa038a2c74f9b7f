import { createFileRoute } from '@tanstack/react-router'
import { authQueries } from '../../../features/auth/auth-queries'
import { boardSearchOf, filtersOf, pipelineOf } from '../../../features/opportunities/board-search'
import { OpportunityBoardPage } from '../../../features/opportunities/opportunity-board-page'
import { OpportunityPanelSlot } from '../../../features/opportunities/opportunity-panel-slot'
import { opportunityQueries } from '../../../features/opportunities/opportunity-queries'

export const Route = createFileRoute('/_app/opportunities/')({
  validateSearch: boardSearchOf,
  // The whole search: the loader only starts queries, which the cache answers when nothing they depend on changed.
  loaderDeps: ({ search }) => search,
  loader: async ({ context: { queryClient }, deps }) => {
    const session = await queryClient.query(authQueries.session())
    const [pipelines] = await Promise.all([
      queryClient.query(opportunityQueries.pipelines()),
      queryClient.query(opportunityQueries.organization(session.organization.id)),
    ])
    // Started, not awaited: each column shows its own loading and error states. On the list view too, so that the
    // board is there at once when switched to (the list loads its own rows).
    for (const status of pipelineOf(pipelines, deps.pipeline)?.statuses ?? [])
      queryClient.infiniteQuery(opportunityQueries.column(status.id, filtersOf(deps))).catch(ignore)
  },
  component: BoardRoute,
})

function BoardRoute() {
  const search = Route.useSearch()
  return (
    <>
      <OpportunityBoardPage search={search} />
      <OpportunityPanelSlot opportunityId={search.opportunity} />
    </>
  )
}

function ignore() {
  // A failed prefetch is retried by the column that needs the data.
}
