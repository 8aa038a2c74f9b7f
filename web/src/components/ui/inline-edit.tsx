import { useRef, useState, type SubmitEvent, type KeyboardEvent, type ReactNode } from 'react'
import { Button } from './button'
import { TextField } from './text-field'

export interface EditorProps {
  label: string
  draft: string
  setDraft: (value: string) => void
  error: string | undefined
}

export interface InlineEditProps {
  /** The caption above the value, and the editor field's label. */
  label: string
  /** The value is its own caption (a row's title): the label shows on the editor's field only. */
  hideLabel?: boolean
  /** What the buttons name when the label would not say which one this is (`Rename Alpha`); the label by default. */
  subject?: string
  /** The visible text of the button that opens the editor. */
  editText?: string
  /** Other controls after that button (a row's Delete). */
  actions?: ReactNode
  /** The value as the editor's text. */
  value: string
  /** How the value reads when not editing. */
  display: ReactNode
  /** Saves the draft; resolves to an error message to show beside the field, or undefined when it was saved. */
  onSave: (draft: string) => Promise<string | undefined>
  multiline?: boolean
  type?: 'text' | 'url' | 'email' | 'tel'
  /** Another input than a text field (a select, a date…): it must be labelled with `label`. */
  renderEditor?: (props: EditorProps) => ReactNode
}

/** A labelled value with an "Edit <label>" button that turns into a small form; Escape cancels, Enter saves. */
export function InlineEdit({
  label,
  hideLabel = false,
  subject = label,
  editText = 'Edit',
  actions,
  value,
  display,
  onSave,
  multiline = false,
  type,
  renderEditor,
}: InlineEditProps) {
  const [draft, setDraft] = useState<string>()
  const [error, setError] = useState<string>()
  const [isSaving, setSaving] = useState(false)
  const form = useRef<HTMLFormElement>(null)
  // Closing the editor removes the focused input or button; focus goes back to "Edit …" instead of <body>, unless
  // the user has moved on elsewhere while a save was under way.
  const refocusEdit = useRef(false)

  const cancel = () => {
    const active = document.activeElement
    refocusEdit.current = active === null || active === document.body || form.current?.contains(active) === true
    setDraft(undefined)
    setError(undefined)
  }

  const submit = async (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault()
    if (draft === undefined) return
    if (draft === value) {
      cancel()
      return
    }
    setSaving(true)
    const message = await onSave(draft)
    setSaving(false)
    if (message === undefined) cancel()
    else setError(message)
  }

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key === 'Escape') {
      event.stopPropagation()
      cancel()
    }
  }

  if (draft === undefined) {
    return (
      // On a narrow screen the buttons go under the value rather than over it: the value keeps at least 7rem
      // beside them (with no basis it shrank to nothing and a long name ran under the buttons).
      <div className="group flex flex-wrap items-start justify-between gap-3 py-1.5">
        <div className="min-w-0 flex-1 basis-28">
          {hideLabel ? null : <div className="text-xs font-medium text-slate-500">{label}</div>}
          <div className={`text-sm break-words text-slate-900 ${hideLabel ? '' : 'mt-0.5'}`}>{display}</div>
        </div>
        <div className="ml-auto flex flex-wrap items-center justify-end gap-1">
          <Button
            size="sm"
            variant="quiet"
            aria-label={`${editText} ${subject}`}
            ref={(button) => {
              if (button !== null && refocusEdit.current) {
                refocusEdit.current = false
                button.focus()
              }
            }}
            onPress={() => {
              setDraft(value)
            }}
          >
            {editText}
          </Button>
          {actions}
        </div>
      </div>
    )
  }

  const editorProps: EditorProps = {
    label,
    draft,
    setDraft: (next) => {
      setDraft(next)
      setError(undefined)
    },
    error,
  }
  return (
    <form
      ref={form}
      onSubmit={(event) => {
        void submit(event)
      }}
      noValidate
      className="rounded-md bg-slate-50 p-2"
    >
      {/* Escape from any field of the editor bubbles here; the wrapper is not a control of its own. */}
      <div role="presentation" onKeyDown={onKeyDown} className="flex flex-col gap-2">
        {renderEditor === undefined ? (
          <TextField
            label={label}
            value={draft}
            onChange={editorProps.setDraft}
            error={error}
            multiline={multiline}
            type={type}
            autoFocus
          />
        ) : (
          renderEditor(editorProps)
        )}
        <div className="flex justify-end gap-2">
          <Button size="sm" variant="quiet" onPress={cancel}>
            Cancel
          </Button>
          <Button size="sm" type="submit" variant="primary" isPending={isSaving} aria-label={`Save ${subject}`}>
            Save
          </Button>
        </div>
      </div>
    </form>
  )
}
