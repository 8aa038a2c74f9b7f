import { useMutation } from '@tanstack/react-query'
import { useId, useState, type DragEvent } from 'react'
import type { ImportView } from '@leadline/shared/import-schema'
import type { UploadProgress } from '../../lib/api-upload'
import { cx } from '../../lib/cx'
import { previewFile, type FilePreview } from './import-preview'
import { importQueries, importRequests } from './import-queries'

/** Step 1: a file dropped or picked is previewed from its first bytes, then uploaded whole, streamed by the browser. */
export function ImportUpload({ onUploaded }: { onUploaded: (view: ImportView) => void }) {
  const inputId = useId()
  const [file, setFile] = useState<File | undefined>()
  const [preview, setPreview] = useState<FilePreview | undefined>()
  const [progress, setProgress] = useState<UploadProgress | undefined>()
  const [isOver, setOver] = useState(false)
  const upload = useMutation({
    mutationKey: importQueries.all(),
    mutationFn: (chosen: File) => importRequests.upload(chosen, setProgress),
    meta: { errorTitle: false },
    onSuccess: onUploaded,
  })

  const take = (chosen: File | undefined) => {
    if (chosen === undefined || upload.isPending) return
    setFile(chosen)
    setPreview(undefined)
    setProgress(undefined)
    void previewFile(chosen).then(setPreview, () => {
      setPreview({ kind: 'none', reason: 'No preview: the file could not be read.' })
    })
    upload.mutate(chosen)
  }
  const onDrop = (event: DragEvent<HTMLDivElement>) => {
    event.preventDefault()
    setOver(false)
    take(event.dataTransfer.files[0])
  }
  const percent =
    progress === undefined || progress.total === 0 ? 0 : Math.round((progress.sent / progress.total) * 100)

  return (
    <section aria-labelledby="import-upload-heading" className="flex flex-col gap-3">
      <h2 id="import-upload-heading" className="text-lg font-semibold text-slate-900">
        1. Upload
      </h2>
      <div
        onDragOver={(event) => {
          event.preventDefault()
          setOver(true)
        }}
        onDragLeave={() => {
          setOver(false)
        }}
        onDrop={onDrop}
        className={cx(
          'flex flex-col items-center gap-2 rounded-lg border-2 border-dashed p-8 text-center text-sm text-slate-700',
          isOver ? 'border-indigo-500 bg-indigo-50' : 'border-slate-300 bg-white',
        )}
      >
        <p>Drop a CSV file here, or</p>
        <label
          htmlFor={inputId}
          className="cursor-pointer rounded-md border border-slate-300 bg-white px-3.5 py-2 font-medium text-slate-800 hover:bg-slate-50 has-[:focus-visible]:ring-2 has-[:focus-visible]:ring-indigo-500"
        >
          Choose a CSV file
          <input
            id={inputId}
            type="file"
            accept=".csv,.tsv,.txt,text/csv,text/plain"
            className="sr-only"
            disabled={upload.isPending}
            onChange={(event) => {
              take(event.target.files?.[0])
              // The same file chosen again (after an error) must fire a change again.
              event.target.value = ''
            }}
          />
        </label>
        <p className="text-xs text-slate-500">Leads with their contacts, addresses, custom fields and opportunities.</p>
      </div>
      {file === undefined ? null : (
        <div className="flex flex-col gap-2">
          <p className="text-sm text-slate-700">
            {file.name} ({formatBytes(file.size)})
          </p>
          {upload.isPending ? (
            <div className="flex items-center gap-3">
              <div
                role="progressbar"
                aria-label="Upload progress"
                aria-valuemin={0}
                aria-valuemax={100}
                aria-valuenow={percent}
                className="h-2 w-64 overflow-hidden rounded-full bg-slate-200"
              >
                <div className="h-full bg-indigo-600" style={{ width: `${String(percent)}%` }} />
              </div>
              <span className="text-sm text-slate-600">Uploading… {percent}%</span>
            </div>
          ) : null}
          {upload.error === null ? null : (
            <p role="alert" className="text-sm text-red-700">
              {upload.error.message}
            </p>
          )}
          <PreviewTable preview={preview} />
        </div>
      )}
    </section>
  )
}

function PreviewTable({ preview }: { preview: FilePreview | undefined }) {
  if (preview === undefined) return null
  if (preview.kind === 'none') return <p className="text-sm text-slate-600">{preview.reason}</p>
  return (
    <div className="relative overflow-x-auto rounded-lg border border-slate-200 bg-white">
      <table className="w-full text-left text-sm">
        <caption className="sr-only">Preview of the file</caption>
        <thead className="border-b border-slate-200 bg-slate-50 text-xs font-semibold text-slate-600">
          <tr>
            {preview.columns.map((column, i) => (
              <th key={i} scope="col" className="px-3 py-2 whitespace-nowrap">
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {preview.rows.map((row, r) => (
            <tr key={r}>
              {preview.columns.map((_column, c) => (
                <td key={c} className="px-3 py-2 whitespace-nowrap text-slate-700">
                  {row[c] ?? ''}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${String(bytes)} bytes`
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`
}
