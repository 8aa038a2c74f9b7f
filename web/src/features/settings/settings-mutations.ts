import { useMutation, useQueryClient } from '@tanstack/react-query'
import type { LeadStatus, OpportunityStatus, OpportunityStatusType } from '@leadline/shared/status-schema'
import type { Pipeline } from '@leadline/shared/pipeline-schema'
import { showToast } from '../../components/ui/toast'
import { api, saveErrorMessage } from '../../lib/api'
import { settingsQueries } from './settings-queries'

// Apart from the query options, which the route loaders (in the first bundle) import: these load with the screens.

const pipelinesKey = settingsQueries.pipelines().queryKey
const leadStatusesKey = settingsQueries.leadStatuses().queryKey
const pipelinePath = (id: string) => `pipeline/${encodeURIComponent(id)}/`
const opportunityStatusPath = (id: string) => `status/opportunity/${encodeURIComponent(id)}/`
const leadStatusPath = (id: string) => `status/lead/${encodeURIComponent(id)}/`

// The forms show the API's message beside their control: no toast (`errorTitle: false`).

export function useCreatePipeline() {
  return useMutation({
    mutationKey: pipelinesKey,
    mutationFn: (name: string) => api.post<Pipeline>('pipeline/', { name }),
    meta: { errorTitle: false },
  })
}

export function useRenamePipeline() {
  return useMutation({
    mutationKey: pipelinesKey,
    mutationFn: ({ id, name }: { id: string; name: string }) => api.put<Pipeline>(pipelinePath(id), { name }),
    meta: { errorTitle: false },
  })
}

export function useDeletePipeline() {
  return useMutation({
    mutationKey: pipelinesKey,
    mutationFn: (id: string) => api.delete(pipelinePath(id)),
    meta: { errorTitle: false },
  })
}

/** The new order shows at once; if the API refuses it, the old one comes back and the user is told. */
export function useReorderStatuses() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationKey: pipelinesKey,
    mutationFn: ({ pipeline, statuses }: { pipeline: Pipeline; statuses: OpportunityStatus[] }) =>
      api.put<Pipeline>(pipelinePath(pipeline.id), { statuses: statuses.map((s) => ({ id: s.id })) }),
    onMutate: async ({ pipeline, statuses }) => {
      await queryClient.cancelQueries({ queryKey: pipelinesKey })
      const previous = queryClient.getQueryData(pipelinesKey)
      if (previous !== undefined) {
        queryClient.setQueryData(pipelinesKey, {
          ...previous,
          data: previous.data.map((p) => (p.id === pipeline.id ? { ...p, statuses } : p)),
        })
      }
      return { previous }
    },
    onError: (error, { pipeline }, context) => {
      if (context?.previous !== undefined) queryClient.setQueryData(pipelinesKey, context.previous)
      showToast({
        title: `The new order of ${pipeline.name} was not saved`,
        description: `${saveErrorMessage(error, 'statuses')} The statuses are back in their old order.`,
        tone: 'error',
      })
    },
    meta: { errorTitle: false },
  })
}

export interface OpportunityStatusBody {
  label?: string
  type?: OpportunityStatusType
  pipeline_id?: string
}

export function useSaveOpportunityStatus() {
  return useMutation({
    mutationKey: pipelinesKey,
    mutationFn: ({ id, body }: { id: string | undefined; body: OpportunityStatusBody }) =>
      id === undefined
        ? api.post<OpportunityStatus>('status/opportunity/', body)
        : api.put<OpportunityStatus>(opportunityStatusPath(id), body),
    meta: { errorTitle: false },
  })
}

export function useDeleteOpportunityStatus() {
  return useMutation({
    mutationKey: pipelinesKey,
    mutationFn: (id: string) => api.delete(opportunityStatusPath(id)),
    meta: { errorTitle: false },
  })
}

export function useSaveLeadStatus() {
  return useMutation({
    mutationKey: leadStatusesKey,
    mutationFn: ({ id, label }: { id: string | undefined; label: string }) =>
      id === undefined
        ? api.post<LeadStatus>('status/lead/', { label })
        : api.put<LeadStatus>(leadStatusPath(id), { label }),
    meta: { errorTitle: false },
  })
}

export function useDeleteLeadStatus() {
  return useMutation({
    mutationKey: leadStatusesKey,
    mutationFn: (id: string) => api.delete(leadStatusPath(id)),
    meta: { errorTitle: false },
  })
}
