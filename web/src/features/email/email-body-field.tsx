import { useEffect, useId, useLayoutEffect, useRef } from 'react'
import { Button } from '../../components/ui/button'
import { inputStyles, labelStyles } from '../../components/ui/text-field'
import { linkSelection, listSelection, wrapSelection, type TextEdit } from './email-format'
import { FieldErrorText } from '../../components/ui/field-error-text'

export interface EmailBodyFieldProps {
  value: string
  onChange: (value: string) => void
  error?: string | undefined
  autoFocus?: boolean
}

const tools: { label: string; shown: string; edit: (edit: TextEdit) => TextEdit }[] = [
  { label: 'Bold', shown: 'B', edit: (e) => wrapSelection(e, '**') },
  { label: 'Italic', shown: 'I', edit: (e) => wrapSelection(e, '_') },
  { label: 'Link', shown: 'Link', edit: linkSelection },
  { label: 'Bulleted list', shown: '• List', edit: listSelection },
]

/** The message: a text box whose toolbar writes formatting marks around the selection, which stays selected. */
export function EmailBodyField({ value, onChange, error, autoFocus }: EmailBodyFieldProps) {
  const id = useId()
  const box = useRef<HTMLTextAreaElement>(null)
  const selection = useRef<{ start: number; end: number }>(undefined)
  // Focus on opening a reply or a draft, which the user asked for.
  useEffect(() => {
    if (autoFocus === true) box.current?.focus()
  }, [autoFocus])
  useLayoutEffect(() => {
    const wanted = selection.current
    if (wanted === undefined || box.current === null) return
    selection.current = undefined
    box.current.focus()
    box.current.setSelectionRange(wanted.start, wanted.end)
  }, [value])
  const describedBy = error === undefined ? `${id}-help` : `${id}-error ${id}-help`
  return (
    <div className="flex flex-col gap-1">
      <div className="flex flex-wrap items-end justify-between gap-2">
        <label htmlFor={id} className={labelStyles}>
          Message
        </label>
        <div role="toolbar" aria-label="Formatting" aria-controls={id} className="flex gap-1">
          {tools.map((tool) => (
            <Button
              key={tool.label}
              variant="quiet"
              aria-label={tool.label}
              size="toolbar"
              onPress={() => {
                const textarea = box.current
                if (textarea === null) return
                const next = tool.edit({ value, start: textarea.selectionStart, end: textarea.selectionEnd })
                selection.current = { start: next.start, end: next.end }
                onChange(next.value)
              }}
            >
              <span
                aria-hidden="true"
                className={tool.label === 'Bold' ? 'font-bold' : tool.label === 'Italic' ? 'italic' : ''}
              >
                {tool.shown}
              </span>
            </Button>
          ))}
        </div>
      </div>
      <textarea
        ref={box}
        id={id}
        rows={8}
        value={value}
        aria-invalid={error === undefined ? undefined : true}
        aria-describedby={describedBy}
        className={inputStyles}
        onChange={(event) => {
          onChange(event.target.value)
        }}
      />
      <FieldErrorText id={`${id}-error`} error={error} />
      <p id={`${id}-help`} className="text-xs text-slate-500">
        **bold**, _italic_, [a link](https://…); lines starting with “- ” or “1. ” make a list.
      </p>
    </div>
  )
}
