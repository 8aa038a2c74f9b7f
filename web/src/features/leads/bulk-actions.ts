import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query'
import type { BulkDelete, BulkEdit, BulkEditType } from '@leadline/shared/bulk-action-schema'
import { BULK_ACTION_BUSY_STATUSES } from '@leadline/shared/bulk-action-statuses'
import { api } from '../../lib/api'
import { searchTerms } from './lead-columns'
import { leadQueries } from './lead-queries'
import type { Selection } from './bulk-selection'

// Bulk actions on the leads list (issue 33): what is selected (rows, or every lead the search matches), the request
// that names it, and the job's state as the API tells it (polled while it runs).

/** The search without its `sort:` clauses: a bulk action takes leads in id order, and refuses a sort. */
export function withoutSort(query: string): string {
  return searchTerms(query)
    .filter((t) => !t.toLowerCase().startsWith('sort:'))
    .join(' ')
}

/** The leads a bulk action is over, as its body names them. */
export function selectionBody(selection: Selection, query: string | undefined): Record<string, unknown> {
  return selection.all ? { query: withoutSort(query ?? '') } : { lead_ids: [...selection.ids] }
}

/** What a bulk edit does, as its body says it. */
export type EditChange =
  | { type: Extract<BulkEditType, 'set_lead_status'>; lead_status_id: string }
  | { type: 'set_custom_field'; custom_field_id: string; value: unknown; operation: 'replace' | 'add' | 'remove' }
  | { type: 'clear_custom_field'; custom_field_id: string }

export function editBody(change: EditChange): Record<string, unknown> {
  if (change.type !== 'set_custom_field') return { ...change }
  const { value, operation, custom_field_id } = change
  return {
    type: change.type,
    custom_field_id,
    ...(Array.isArray(value) ? { custom_field_values: value } : { custom_field_value: value }),
    custom_field_operation: operation,
  }
}

export type BulkKind = 'edit' | 'delete'
export type BulkJob = BulkEdit | BulkDelete

export function isBusy(job: BulkJob): boolean {
  return BULK_ACTION_BUSY_STATUSES.includes(job.status)
}

export const bulkQueries = {
  /** The job, read again every half second while it runs. */
  job: (kind: BulkKind, id: string) =>
    queryOptions({
      queryKey: ['bulk-actions', kind, id],
      queryFn: () => api.get<BulkJob>(`bulk_action/${kind}/${encodeURIComponent(id)}/`),
      refetchInterval: (q) => (q.state.data === undefined || isBusy(q.state.data) ? 500 : false),
    }),
}

export function useStartBulkAction() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: ({ kind, body }: { kind: BulkKind; body: Record<string, unknown> }) =>
      api.post<BulkJob>(`bulk_action/${kind}/`, body),
    onSuccess: (job, { kind }) => {
      queryClient.setQueryData(bulkQueries.job(kind, job.id).queryKey, job)
    },
  })
}

export function useUndoBulkEdit() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (id: string) => api.post<BulkEdit>(`bulk_action/edit/${encodeURIComponent(id)}/undo/`, {}),
    onSuccess: (job) => {
      queryClient.setQueryData(bulkQueries.job('edit', job.id).queryKey, job)
    },
  })
}

/** Once a job has changed leads, every lead screen reads them again. */
export function useLeadsChanged() {
  const queryClient = useQueryClient()
  return () => queryClient.invalidateQueries({ queryKey: leadQueries.all() })
}
