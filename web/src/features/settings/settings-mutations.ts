import { useMutation, useQueryClient, type DataTag } from '@tanstack/react-query'
import type { ListEnvelope } from '@leadline/shared/list'
import type { Organization } from '@leadline/shared/organization-schema'
import type { LeadStatus, OpportunityStatus, OpportunityStatusType } from '@leadline/shared/status-schema'
import type { Pipeline } from '@leadline/shared/pipeline-schema'
import { showToast } from '../../components/ui/toast'
import { api, saveErrorMessage } from '../../lib/api'
import { useFormMutation } from '../../lib/form-mutation'
import { settingsQueries } from './settings-queries'

// Apart from the query options, which the route loaders (in the first bundle) import: these load with the screens.

const pipelinesKey = settingsQueries.pipelines().queryKey
const leadStatusesKey = settingsQueries.leadStatuses().queryKey
const pipelinePath = (id: string) => `pipeline/${encodeURIComponent(id)}/`
const opportunityStatusPath = (id: string) => `status/opportunity/${encodeURIComponent(id)}/`
const leadStatusPath = (id: string) => `status/lead/${encodeURIComponent(id)}/`

export function useCreatePipeline() {
  return useFormMutation(pipelinesKey, (name: string) => api.post<Pipeline>('pipeline/', { name }))
}

export function useRenamePipeline() {
  return useFormMutation(pipelinesKey, ({ id, name }: { id: string; name: string }) =>
    api.put<Pipeline>(pipelinePath(id), { name }),
  )
}

export function useDeletePipeline() {
  return useFormMutation(pipelinesKey, (id: string) => api.delete(pipelinePath(id)))
}

/**
 * A new order shows at once; if the API refuses it, the old one comes back and the user is told. `reorder` gives the
 * cached list in the new order.
 */
export function useOptimisticReorder<T, V>({
  queryKey,
  save,
  reorder,
  what,
  field,
}: {
  queryKey: DataTag<readonly unknown[], ListEnvelope<T>, Error>
  save: (variables: V) => Promise<unknown>
  reorder: (items: T[], variables: V) => T[]
  /** What was reordered, for the toast: `the statuses of Sales`. */
  what: (variables: V) => string
  /** The API's field whose message the toast shows. */
  field: string
}) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationKey: queryKey,
    mutationFn: save,
    onMutate: async (variables: V) => {
      await queryClient.cancelQueries({ queryKey })
      const previous = queryClient.getQueryData(queryKey)
      if (previous !== undefined)
        queryClient.setQueryData(queryKey, { ...previous, data: reorder(previous.data, variables) })
      return { previous }
    },
    onError: (error, variables, context) => {
      if (context?.previous !== undefined) queryClient.setQueryData(queryKey, context.previous)
      showToast({
        title: `The new order of ${what(variables)} was not saved`,
        description: `${saveErrorMessage(error, field)} They are back in their old order.`,
        tone: 'error',
      })
    },
    meta: { errorTitle: false },
  })
}

export function useReorderStatuses() {
  return useOptimisticReorder({
    queryKey: pipelinesKey,
    save: ({ pipeline, statuses }: { pipeline: Pipeline; statuses: OpportunityStatus[] }) =>
      api.put<Pipeline>(pipelinePath(pipeline.id), { statuses: statuses.map((s) => ({ id: s.id })) }),
    reorder: (pipelines, { pipeline, statuses }) =>
      pipelines.map((p) => (p.id === pipeline.id ? { ...p, statuses } : p)),
    what: ({ pipeline }) => `the statuses of ${pipeline.name}`,
    field: 'statuses',
  })
}

/** Close's way to reorder lead statuses: the organization, with every one of them in the new order. */
export function useReorderLeadStatuses() {
  return useOptimisticReorder({
    queryKey: leadStatusesKey,
    save: ({ organizationId, ordered }: { organizationId: string; ordered: LeadStatus[] }) =>
      api.put<Organization>(`organization/${encodeURIComponent(organizationId)}/`, {
        lead_statuses: ordered.map((s) => ({ id: s.id })),
      }),
    reorder: (_previous, { ordered }) => ordered,
    what: () => 'the lead statuses',
    field: 'lead_statuses',
  })
}

export interface OpportunityStatusBody {
  label?: string
  type?: OpportunityStatusType
  pipeline_id?: string
}

export function useSaveOpportunityStatus() {
  return useFormMutation(pipelinesKey, ({ id, body }: { id: string | undefined; body: OpportunityStatusBody }) =>
    id === undefined
      ? api.post<OpportunityStatus>('status/opportunity/', body)
      : api.put<OpportunityStatus>(opportunityStatusPath(id), body),
  )
}

export function useDeleteOpportunityStatus() {
  return useFormMutation(pipelinesKey, (id: string) => api.delete(opportunityStatusPath(id)))
}

export function useSaveLeadStatus() {
  return useFormMutation(leadStatusesKey, ({ id, name }: { id: string | undefined; name: string }) =>
    id === undefined
      ? api.post<LeadStatus>('status/lead/', { label: name })
      : api.put<LeadStatus>(leadStatusPath(id), { label: name }),
  )
}

export function useDeleteLeadStatus() {
  return useFormMutation(leadStatusesKey, (id: string) => api.delete(leadStatusPath(id)))
}
