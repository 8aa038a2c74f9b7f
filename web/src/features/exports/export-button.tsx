import { useQuery } from '@tanstack/react-query'
import { lazy, Suspense, useState } from 'react'
import type { ExportView } from '@leadline/shared/export-schema'
import { Button, focusRing } from '../../components/ui/button'
import { cx } from '../../lib/cx'
import { exportQueries, exportStateText, isFinished, type ExportSubject } from './export-queries'

// The dialog loads when first opened, keeping the lists inside their first-route budget.
const ExportDialog = lazy(() => import('./export-dialog').then((m) => ({ default: m.ExportDialog })))

/**
 * `Export` and, once asked for, the export's state as it is made, then a link to its file. The dialog asks what to
 * export; the state stays beside the button after it closes.
 */
export function ExportButton({ subject, title }: { subject: ExportSubject; title: string }) {
  const [isOpen, setOpen] = useState(false)
  const [asked, setAsked] = useState<ExportView | undefined>()
  return (
    <div className="flex flex-wrap items-center gap-3">
      <Button
        onPress={() => {
          setOpen(true)
        }}
      >
        Export
      </Button>
      {asked === undefined ? null : <ExportState key={asked.id} asked={asked} />}
      {isOpen ? (
        <Suspense fallback={null}>
          <ExportDialog
            title={title}
            subject={subject}
            onClose={() => {
              setOpen(false)
            }}
            onAsked={(view) => {
              setAsked(view)
              setOpen(false)
            }}
          />
        </Suspense>
      ) : null}
    </div>
  )
}

/** An export's state, polled while it is made, and its file's link once done. */
function ExportState({ asked }: { asked: ExportView }) {
  const { data, error } = useQuery({ ...exportQueries.detail(asked.id), initialData: asked })
  const view = data
  return (
    <p role="status" className="flex flex-wrap items-center gap-2 text-sm text-slate-700">
      <span>
        {error === null || isFinished(view) ? exportStateText(view) : `${exportStateText(view)} (${error.message})`}
      </span>
      {view.status === 'done' && view.download_url !== null ? (
        <a
          href={view.download_url}
          download
          className={cx('rounded font-medium text-indigo-700 hover:underline', focusRing)}
        >
          Download export
        </a>
      ) : null}
    </p>
  )
}
