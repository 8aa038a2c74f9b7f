import { useQuery } from '@tanstack/react-query'
import { useEffect, useRef } from 'react'
import { Button } from '../../components/ui/button'
import { showToast } from '../../components/ui/toast'
import { saveErrorMessage } from '../../lib/api'
import { bulkQueries, isBusy, useLeadsChanged, useUndoBulkEdit, type BulkJob, type BulkKind } from './bulk-actions'
import { selectedCount, type Selection } from './bulk-selection'

// The leads list's bulk bar (what is selected, and what can be done to it) and the running job's progress. The
// dialogs that say what to do load on first use (bulk-dialogs.tsx).

const count = (n: number) => `${n.toLocaleString('en-US')} ${n === 1 ? 'lead' : 'leads'}`

export function BulkBar({
  selection,
  total,
  pageCount,
  onSelectAll,
  onClear,
  onEdit,
  onDelete,
}: {
  selection: Selection
  /** How many leads the search matches. */
  total: number
  /** How many rows the page shows. */
  pageCount: number
  onSelectAll: () => void
  onClear: () => void
  onEdit: () => void
  onDelete: () => void
}) {
  const n = selectedCount(selection, total)
  const wholePage = !selection.all && n > 0 && n === pageCount && total > pageCount
  return (
    <div
      role="region"
      aria-label="Selected leads"
      className="flex flex-wrap items-center gap-2 rounded-lg border border-indigo-200 bg-indigo-50 px-4 py-2 text-sm text-slate-800"
    >
      <p aria-live="polite" className="font-medium">
        {selection.all ? `All ${count(total)} matching are selected` : `${count(n)} selected`}
      </p>
      {wholePage ? (
        <Button size="sm" variant="quiet" onPress={onSelectAll}>
          {`Select all ${count(total)} matching`}
        </Button>
      ) : null}
      <div className="ml-auto flex flex-wrap gap-2">
        <Button size="sm" onPress={onEdit}>
          Edit selected leads
        </Button>
        <Button size="sm" variant="danger" onPress={onDelete}>
          Delete selected leads
        </Button>
        <Button size="sm" variant="quiet" onPress={onClear}>
          Clear selection
        </Button>
      </div>
    </div>
  )
}

/** What a finished job did, in words. */
function outcome(kind: BulkKind, job: BulkJob): string {
  if (job.status === 'error') return job.error ?? 'The bulk action failed.'
  if (kind === 'delete') return `Deleted ${count(job.n_leads_processed)}.`
  const edit = job as Extract<BulkJob, { type: string }>
  if (job.status === 'undone') return `Undone: ${count(edit.n_leads_undone)} put back.`
  return `${edit.n_leads_changed.toLocaleString('en-US')} of ${count(job.n_leads ?? 0)} changed.`
}

/**
 * A bulk job as it runs: a progress bar of leads done, then what it did; a finished edit offers Undo in a toast.
 * The list is read again once the job has changed leads.
 */
export function BulkJobStatus({ kind, id, onDismiss }: { kind: BulkKind; id: string; onDismiss: () => void }) {
  const job = useQuery(bulkQueries.job(kind, id)).data
  const leadsChanged = useLeadsChanged()
  const undo = useUndoBulkEdit()
  const seen = useRef<string | undefined>(undefined)
  const status = job?.status
  useEffect(() => {
    if (job === undefined || isBusy(job) || seen.current === job.status) return
    seen.current = job.status
    void leadsChanged()
    if (kind === 'edit' && job.status === 'done') {
      showToast(
        {
          title: 'Bulk edit done',
          description: outcome(kind, job),
          action: {
            label: 'Undo',
            onPress: () => {
              undo.mutate(id, {
                onError: (error) => {
                  showToast({
                    title: 'The edit was not undone',
                    description: saveErrorMessage(error, 'status'),
                    tone: 'error',
                  })
                },
              })
            },
          },
        },
        30_000,
      )
    }
    // Only a change of status is news.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [status])
  if (job === undefined) return null
  const undoing = job.status === 'undoing'
  const total = undoing ? (job as Extract<BulkJob, { type: string }>).n_leads_changed : (job.n_leads ?? 0)
  const done = undoing ? (job as Extract<BulkJob, { type: string }>).n_leads_undone : job.n_leads_processed
  const label = undoing ? 'Undoing the bulk edit' : kind === 'edit' ? 'Bulk edit' : 'Bulk delete'
  return (
    <div
      role="status"
      className="flex flex-wrap items-center gap-3 rounded-lg border border-slate-200 bg-white px-4 py-2 text-sm text-slate-800"
    >
      {isBusy(job) ? (
        <>
          <span className="font-medium">{label}</span>
          <progress
            aria-label={`${label} progress`}
            className="h-2 w-48"
            max={Math.max(total, 1)}
            value={job.n_leads === null ? undefined : done}
          />
          <span>
            {job.n_leads === null ? 'Finding the leads…' : `${done.toLocaleString('en-US')} of ${count(total)}`}
          </span>
        </>
      ) : (
        <>
          <span className={job.status === 'error' ? 'text-red-700' : undefined}>
            {`${label}: ${outcome(kind, job)}`}
          </span>
          <Button size="sm" variant="quiet" className="ml-auto" onPress={onDismiss}>
            Dismiss
          </Button>
        </>
      )}
    </div>
  )
}
