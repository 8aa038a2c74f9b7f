import { createFileRoute } from '@tanstack/react-router'
import { authQueries } from '../../../features/auth/auth-queries'
import { boardSearchOf, pipelineOf } from '../../../features/opportunities/board-search'
import { OpportunityBoardPage } from '../../../features/opportunities/opportunity-board-page'
import { OpportunityPanelSlot } from '../../../features/opportunities/opportunity-panel-slot'
import { opportunityQueries } from '../../../features/opportunities/opportunity-queries'

export const Route = createFileRoute('/_app/opportunities/')({
  validateSearch: boardSearchOf,
  loaderDeps: ({ search: { pipeline } }) => ({ pipeline }),
  loader: async ({ context: { queryClient }, deps }) => {
    const session = await queryClient.query(authQueries.session())
    const [pipelines] = await Promise.all([
      queryClient.query(opportunityQueries.pipelines()),
      queryClient.query(opportunityQueries.organization(session.organization.id)),
    ])
    // Started, not awaited: each column shows its own loading and error states.
    for (const status of pipelineOf(pipelines, deps.pipeline)?.statuses ?? [])
      queryClient.infiniteQuery(opportunityQueries.column(status.id)).catch(ignore)
  },
  component: BoardRoute,
})

function BoardRoute() {
  const { pipeline, opportunity } = Route.useSearch()
  return (
    <>
      <OpportunityBoardPage pipelineId={pipeline} />
      <OpportunityPanelSlot opportunityId={opportunity} />
    </>
  )
}

function ignore() {
  // A failed prefetch is retried by the column that needs the data.
}
