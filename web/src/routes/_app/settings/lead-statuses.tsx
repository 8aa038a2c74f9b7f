import { createFileRoute } from '@tanstack/react-router'
import { LeadStatusesPage } from '../../../features/settings/lead-statuses-page'
import { settingsQueries } from '../../../features/settings/settings-queries'

export const Route = createFileRoute('/_app/settings/lead-statuses')({
  loader: ({ context: { queryClient } }) => queryClient.query(settingsQueries.leadStatuses()),
  component: LeadStatusesPage,
})
