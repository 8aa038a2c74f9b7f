import { queryOptions } from '@tanstack/react-query'
import type { ListEnvelope } from '@leadline/shared/list'
import type { Pipeline } from '@leadline/shared/pipeline-schema'
import type { LeadStatus } from '@leadline/shared/status-schema'
import { api } from '../../lib/api'

/*
 * Pipelines carry their opportunity statuses, so every write here (pipeline or status) makes `['pipelines']` stale
 * and the MutationCache refetches it. Lead statuses share `['statuses', 'lead']` with the lead screens' picker.
 */
export const settingsQueries = {
  pipelines: () =>
    queryOptions({
      queryKey: ['pipelines'] as const,
      queryFn: () => api.get<ListEnvelope<Pipeline>>('pipeline/'),
      select: (page) => page.data,
    }),
  leadStatuses: () =>
    queryOptions({
      queryKey: ['statuses', 'lead'] as const,
      queryFn: () => api.get<ListEnvelope<LeadStatus>>('status/lead/'),
      select: (page) => page.data,
    }),
}
