import { useId, type HTMLAttributes } from 'react'
import { cx } from '../../lib/cx'
import { FieldErrorText } from './field-error-text'

export interface TextFieldProps {
  label: string
  value: string
  onChange: (value: string) => void
  /** A message from the server (or the form) shown beside the field; the field is marked invalid while it is set. */
  error?: string | undefined
  description?: string | undefined
  multiline?: boolean
  rows?: number
  /** `date` and `datetime-local` are the browser's own pickers, with keyboard entry; their values are ISO text. */
  type?: 'text' | 'search' | 'url' | 'email' | 'tel' | 'password' | 'date' | 'time' | 'datetime-local' | undefined
  placeholder?: string
  name?: string
  autoComplete?: string
  inputMode?: HTMLAttributes<HTMLInputElement>['inputMode']
  autoFocus?: boolean
  isRequired?: boolean
  /** The label is read by assistive technology but not shown (a search box whose button says what it is). */
  hideLabel?: boolean
  /** Layout of the label, field and messages together (flex, width). */
  className?: string
  /** The input's own width class, instead of the container's full width (a date beside others, say). */
  inputWidth?: string
}

const fieldBox =
  'rounded-md border border-slate-300 bg-white px-3 py-2 text-sm text-slate-900 shadow-xs outline-none placeholder:text-slate-400 focus:border-indigo-500 aria-invalid:border-red-500 disabled:bg-slate-100'

const fieldRing = 'focus-visible:ring-2 focus-visible:ring-indigo-500/40'

/**
 * A field's look; `width` replaces its full width and `ring` its focus ring (a button styled as a field rings like a
 * button), so that neither competes with the one it replaces.
 */
export function fieldStyles({ width = 'w-full', ring = fieldRing }: { width?: string; ring?: string } = {}): string {
  return cx(width, fieldBox, ring)
}

export const inputStyles = fieldStyles()

export const labelStyles = 'text-sm font-medium text-slate-700'

/*
 * Native <label>, <input> and <textarea> wired by ids rather than React Aria's TextField: the same names, invalid
 * state and descriptions for assistive technology, and about 11 KB gzipped less on every first route (budget 130 KB).
 */
export function TextField({
  label,
  value,
  onChange,
  error,
  description,
  multiline = false,
  rows = 3,
  isRequired = false,
  hideLabel = false,
  className,
  inputWidth,
  type = 'text',
  ...props
}: TextFieldProps) {
  const id = useId()
  const descriptionId = description === undefined ? undefined : `${id}-description`
  const errorId = error === undefined ? undefined : `${id}-error`
  const describedBy = [errorId, descriptionId].filter((d) => d !== undefined).join(' ')
  const field = {
    ...props,
    id,
    value,
    required: isRequired,
    'aria-invalid': error === undefined ? undefined : true,
    'aria-describedby': describedBy === '' ? undefined : describedBy,
    className: fieldStyles({ width: inputWidth }),
  }
  return (
    <div className={cx('flex flex-col gap-1', className)}>
      <label htmlFor={id} className={hideLabel ? 'sr-only' : labelStyles}>
        {label}
      </label>
      {multiline ? (
        <textarea
          {...field}
          rows={rows}
          onChange={(event) => {
            onChange(event.target.value)
          }}
        />
      ) : (
        <input
          {...field}
          type={type}
          onChange={(event) => {
            onChange(event.target.value)
          }}
        />
      )}
      {description === undefined ? null : (
        <p id={descriptionId} className="text-xs text-slate-500">
          {description}
        </p>
      )}
      <FieldErrorText id={errorId} error={error} />
    </div>
  )
}
