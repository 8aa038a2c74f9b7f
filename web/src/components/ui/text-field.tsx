import { useId, type HTMLAttributes } from 'react'
import { twMerge } from '../../lib/class-merge'
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
  className?: string
  inputClassName?: string
}

export const inputStyles =
  'w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-sm text-slate-900 shadow-xs outline-none placeholder:text-slate-400 focus:border-indigo-500 focus-visible:ring-2 focus-visible:ring-indigo-500/40 aria-invalid:border-red-500 disabled:bg-slate-100'

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
  inputClassName,
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
    className: twMerge(inputStyles, inputClassName),
  }
  return (
    <div className={twMerge('flex flex-col gap-1', className)}>
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
