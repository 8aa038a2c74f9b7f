import { useMutation } from '@tanstack/react-query'
import { useState } from 'react'
import type { ImportView } from '@leadline/shared/import-schema'
import { Button, focusRing } from '../../components/ui/button'
import { ConfirmDialog } from '../../components/ui/dialog'
import { cx } from '../../lib/cx'
import { importQueries, importRequests } from './import-queries'

// Step 5 once started: a live progress bar while the import runs, then its counts, its failed rows and Undo.

export function ImportRun({ view, onChange }: { view: ImportView; onChange: (view: ImportView) => void }) {
  const [isConfirming, setConfirming] = useState(false)
  const undo = useMutation({
    mutationKey: importQueries.all(),
    mutationFn: () => importRequests.undo(view.id),
    meta: { errorTitle: false },
    onSuccess: (next) => {
      setConfirming(false)
      onChange(next)
    },
  })
  const { rows_done, rows_total } = view.progress
  const percent = rows_total === 0 ? 0 : Math.round((rows_done / rows_total) * 100)
  const running = view.status === 'queued' || view.status === 'running'

  return (
    <section aria-labelledby="import-run-heading" className="flex flex-col gap-3">
      <h2 id="import-run-heading" className="text-lg font-semibold text-slate-900">
        5. Run
      </h2>
      {running || view.status === 'done' ? (
        <div className="flex items-center gap-3">
          <div
            role="progressbar"
            aria-label="Import progress"
            aria-valuemin={0}
            aria-valuemax={rows_total}
            aria-valuenow={rows_done}
            aria-valuetext={`${rows_done.toLocaleString('en-US')} of ${rows_total.toLocaleString('en-US')} rows`}
            className="h-2 w-full max-w-md overflow-hidden rounded-full bg-slate-200"
          >
            <div className="h-full bg-indigo-600 transition-[width]" style={{ width: `${String(percent)}%` }} />
          </div>
          <span className="text-sm text-slate-600 tabular-nums">
            {rows_done.toLocaleString('en-US')} of {rows_total.toLocaleString('en-US')} rows
          </span>
        </div>
      ) : null}
      <p role="status" className="text-sm text-slate-800">
        {statusText(view)}
      </p>
      {view.status === 'done' || view.status === 'undoing' || view.status === 'undone' || view.status === 'error' ? (
        <dl className="grid max-w-md grid-cols-2 gap-x-6 gap-y-1 text-sm">
          <dt className="text-slate-600">Created</dt>
          <dd className="tabular-nums">{view.counts.created.toLocaleString('en-US')}</dd>
          <dt className="text-slate-600">Updated</dt>
          <dd className="tabular-nums">{view.counts.updated.toLocaleString('en-US')}</dd>
          <dt className="text-slate-600">Skipped</dt>
          <dd className="tabular-nums">{view.counts.skipped.toLocaleString('en-US')}</dd>
          <dt className="text-slate-600">Failed</dt>
          <dd className="tabular-nums">{view.counts.failed.toLocaleString('en-US')}</dd>
        </dl>
      ) : null}
      {view.failed_rows_url === null || running ? null : (
        <a
          href={view.failed_rows_url}
          download
          className={cx('self-start rounded text-sm font-medium text-indigo-700 hover:underline', focusRing)}
        >
          Download failed rows
        </a>
      )}
      {undo.error === null ? null : (
        <p role="alert" className="text-sm text-red-700">
          {undo.error.message}
        </p>
      )}
      {view.status === 'done' ? (
        <div>
          <Button
            tone="danger"
            onPress={() => {
              setConfirming(true)
            }}
          >
            Undo import
          </Button>
        </div>
      ) : null}
      <ConfirmDialog
        title="Undo this import?"
        isOpen={isConfirming}
        isPending={undo.isPending}
        confirmLabel="Undo import"
        onCancel={() => {
          setConfirming(false)
        }}
        onConfirm={() => {
          undo.mutate()
        }}
      >
        The leads it created are deleted, with their contacts and opportunities, and the leads it updated are put back
        as they were.
      </ConfirmDialog>
    </section>
  )
}

function statusText(view: ImportView): string {
  switch (view.status) {
    case 'queued':
      return 'The import is queued and starts in a moment…'
    case 'running':
      return 'Importing…'
    case 'done':
      return 'The import is done.'
    case 'error':
      return `The import failed: ${view.error ?? 'it stopped.'}`
    case 'undoing':
      return 'Undoing the import…'
    case 'undone':
      return 'The import was undone: what it created is deleted and what it updated is put back.'
    default:
      return ''
  }
}
