import type { Pipeline } from '@leadline/shared/pipeline-schema'
import type { LeadStatus } from '@leadline/shared/status-schema'
import { wholeListQuery } from '../../lib/setup-query'

/*
 * Pipelines carry their opportunity statuses, so every write here (pipeline or status) makes `['pipelines']` stale
 * and the MutationCache refetches it. Lead statuses share `['statuses', 'lead']` with the lead screens' picker.
 */
export const settingsQueries = {
  pipelines: () => wholeListQuery<Pipeline>(['pipelines'], 'pipeline/'),
  leadStatuses: () => wholeListQuery<LeadStatus>(['statuses', 'lead'], 'status/lead/'),
}
