import { useId } from 'react'
import { FieldErrorText } from './field-error-text'

/**
 * A checkbox with its label, and what describes it (a hint, an error) named by its `aria-describedby`. A native
 * input: a settings switch needs no more, and it costs the screens that use it nothing of React Aria's.
 */
export function CheckboxField({
  label,
  description,
  checked,
  isDisabled = false,
  error,
  onChange,
}: {
  label: string
  description?: string
  checked: boolean
  isDisabled?: boolean
  error?: string | undefined
  onChange: (checked: boolean) => void
}) {
  const id = useId()
  const described = [description === undefined ? '' : `${id}-hint`, error === undefined ? '' : `${id}-error`]
    .filter((part) => part !== '')
    .join(' ')
  return (
    <div className="flex flex-col gap-1">
      <label className="flex items-center gap-2 text-sm font-medium text-slate-900">
        <input
          type="checkbox"
          className="size-4 rounded border-slate-300 accent-indigo-600"
          checked={checked}
          disabled={isDisabled}
          aria-invalid={error === undefined ? undefined : true}
          aria-describedby={described === '' ? undefined : described}
          onChange={(event) => {
            onChange(event.target.checked)
          }}
        />
        {label}
      </label>
      {description === undefined ? null : (
        <p id={`${id}-hint`} className="text-xs text-slate-500">
          {description}
        </p>
      )}
      <FieldErrorText id={`${id}-error`} error={error} />
    </div>
  )
}
