import { useSuspenseQuery } from '@tanstack/react-query'
import { orderedNamesPage } from './ordered-names-screen'
import { settingsQueries } from './settings-queries'
import { useDeleteLeadStatus, useReorderLeadStatuses, useSaveLeadStatus } from './settings-mutations'

/** Lead statuses in the organization's order, which every status picker follows. */
export const LeadStatusesPage = orderedNamesPage({
  title: 'Lead statuses',
  description: 'Every lead has one of these statuses.',
  noun: 'lead status',
  consequence: 'The status is deleted. One that leads still use is refused: move them to another status first.',
  field: 'label',
  useItems: () => useSuspenseQuery(settingsQueries.leadStatuses()).data,
  useSave: useSaveLeadStatus,
  useDelete: useDeleteLeadStatus,
  useReorder: useReorderLeadStatuses,
})
