import { createFileRoute, notFound } from '@tanstack/react-router'
import { leadPageSearchOf } from '../../../features/leads/activity-kinds'
import { leadQueries, setupQueries } from '../../../features/leads/lead-queries'
import { LeadPage } from '../../../features/leads/lead-page'
import { NotFoundPage } from '../../../features/shell/error-pages'
import { taskQueries } from '../../../features/tasks/task-queries'
import { isApiError } from '../../../lib/api'

export const Route = createFileRoute('/_app/leads/$leadId')({
  validateSearch: leadPageSearchOf,
  loaderDeps: ({ search: { activity } }) => ({ activity }),
  loader: async ({ context: { queryClient }, params: { leadId }, deps: { activity } }) => {
    // Started, not awaited: the panels show their own loading and error states.
    queryClient.query(leadQueries.activities(leadId, activity)).catch(ignore)
    queryClient.query(taskQueries.lead(leadId)).catch(ignore)
    queryClient.query(setupQueries.statuses()).catch(ignore)
    queryClient.query(setupQueries.customFields('lead')).catch(ignore)
    queryClient.query(setupQueries.customFields('contact')).catch(ignore)
    try {
      await queryClient.query(leadQueries.detail(leadId))
    } catch (error) {
      if (!isApiError(error, 404)) throw error
      notFound({ throw: true })
    }
  },
  component: LeadRoute,
  notFoundComponent: () => <NotFoundPage what="lead" />,
})

function ignore() {
  // A failed prefetch is retried by the component that needs the data.
}

function LeadRoute() {
  const { leadId } = Route.useParams()
  const { activity } = Route.useSearch()
  return <LeadPage leadId={leadId} activity={activity} />
}
