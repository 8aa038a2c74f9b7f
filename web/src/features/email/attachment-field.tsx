import { useId, useRef, useState } from 'react'
import { Button } from '../../components/ui/button'
import { saveErrorMessage } from '../../lib/api'
import { newRowKey } from '../../lib/row-keys'
import {
  ATTACHMENT_MAX_BYTES,
  attachedFile,
  fileLabel,
  formatSize,
  screenFiles,
  type ComposerAttachment,
} from './email-attachments'
import { useUploadAttachment } from './email-mutations'

export interface AttachmentFieldProps {
  attachments: readonly ComposerAttachment[]
  /** Changes the list; given as a function of it, since an upload ends after other changes. */
  onChange: (update: (list: ComposerAttachment[]) => ComposerAttachment[]) => void
  /** The API's word on the email's files. */
  error?: string | undefined
}

/**
 * The email's files: "Attach files" opens the browser's file picker, and each file chosen uploads at once and shows
 * in the list (its name, size, "Uploading…" until it is up) with its Remove button. A file too large is refused
 * before it is sent; what went wrong stays in red below until the next choice, and a live region says what happened.
 */
export function AttachmentField({ attachments, onChange, error }: AttachmentFieldProps) {
  const id = useId()
  const input = useRef<HTMLInputElement>(null)
  const attachButton = useRef<HTMLButtonElement>(null)
  const count = useRef(0)
  // Files removed while uploading: their upload's end changes nothing and says nothing.
  const dropped = useRef(new Set<string>())
  const upload = useUploadAttachment()
  const [failures, setFailures] = useState<{ key: string; text: string }[]>([])
  const [said, setSaid] = useState('')

  const attach = (files: File[]) => {
    const { accepted, refused } = screenFiles(files, attachments.length)
    setFailures(refused.map((text) => ({ key: newRowKey(), text })))
    setSaid('')
    for (const file of accepted) {
      count.current += 1
      const key = `new-${String(count.current)}`
      onChange((list) => [...list, { key, state: 'uploading', filename: file.name, size: file.size }])
      upload.mutateAsync(file).then(
        (uploaded) => {
          if (dropped.current.has(key)) return
          onChange((list) =>
            list.map((a) => (a.key === key ? { key, state: 'attached', file: attachedFile(uploaded) } : a)),
          )
          setSaid(`Attached ${file.name}.`)
        },
        (failure: unknown) => {
          onChange((list) => list.filter((a) => a.key !== key))
          if (dropped.current.has(key)) return
          const text = `${file.name} was not attached: ${saveErrorMessage(failure, 'file')}`
          setFailures((f) => [...f, { key: newRowKey(), text }])
        },
      )
    }
  }

  const remove = (attachment: ComposerAttachment, name: string) => {
    if (attachment.state === 'uploading') dropped.current.add(attachment.key)
    onChange((list) => list.filter((a) => a.key !== attachment.key))
    setSaid(`Removed ${name}.`)
    // Its button is gone: the focus goes back to where files are added.
    attachButton.current?.focus()
  }

  return (
    <div className="flex flex-col gap-1.5">
      <div className="flex flex-wrap items-center gap-2">
        <Button
          ref={attachButton}
          size="sm"
          aria-describedby={`${id}-limit`}
          onPress={() => {
            input.current?.click()
          }}
        >
          Attach files
        </Button>
        <span id={`${id}-limit`} className="text-xs text-slate-600">
          Up to {formatSize(ATTACHMENT_MAX_BYTES)} each
        </span>
        <input
          ref={input}
          type="file"
          multiple
          hidden
          onChange={(event) => {
            const files = [...(event.target.files ?? [])]
            // The same file may be chosen again after it was removed.
            event.target.value = ''
            attach(files)
          }}
        />
      </div>
      {attachments.length === 0 ? null : (
        <ul aria-label="Attachments" className="flex flex-wrap gap-1.5">
          {attachments.map((a) => {
            const name = a.state === 'attached' ? fileLabel(a.file) : fileLabel({ filename: a.filename })
            return (
              <li
                key={a.key}
                className="inline-flex items-center gap-1.5 rounded bg-slate-100 py-0.5 pr-0.5 pl-2 text-sm text-slate-800"
              >
                <span className="max-w-60 truncate">{name}</span>
                <span className="text-xs text-slate-600">
                  {formatSize(a.state === 'attached' ? a.file.size : a.size)}
                </span>
                {a.state === 'uploading' ? <span className="text-xs text-amber-900">Uploading…</span> : null}
                <button
                  type="button"
                  aria-label={`Remove ${name}`}
                  className="rounded px-1 text-slate-600 hover:bg-slate-200 focus-visible:ring-2 focus-visible:ring-indigo-500 focus-visible:outline-none"
                  onClick={() => {
                    remove(a, name)
                  }}
                >
                  ×
                </button>
              </li>
            )
          })}
        </ul>
      )}
      {error === undefined ? null : <p className="text-sm text-red-700">{error}</p>}
      {/* Polite like a status, without the role: the composer's one status is its send and Undo line. */}
      <div aria-live="polite" className="text-sm text-red-700">
        {failures.map((failure) => (
          <p key={failure.key}>{failure.text}</p>
        ))}
        <p className="sr-only">{said}</p>
      </div>
    </div>
  )
}
