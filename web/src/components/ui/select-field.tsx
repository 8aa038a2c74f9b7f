import { useId, type ChangeEvent } from 'react'
import { inputStyles, labelStyles } from './text-field'
import { cx } from '../../lib/cx'
import { FieldErrorText } from './field-error-text'

export interface SelectOption {
  value: string
  label: string
}

export interface SelectFieldProps {
  label: string
  value: string
  options: readonly SelectOption[]
  onChange: (value: string) => void
  error?: string | undefined
  /** Offer an empty choice with this text (e.g. "None"). */
  emptyLabel?: string
  isDisabled?: boolean
  name?: string
  className?: string
  hideLabel?: boolean
}

/**
 * A native `<select>`: a labelled combobox for assistive technology and the keyboard, and the smallest code that
 * does so (the status picker sits on every lead page).
 */
export function SelectField({
  label,
  value,
  options,
  onChange,
  error,
  emptyLabel,
  isDisabled = false,
  name,
  className,
  hideLabel = false,
}: SelectFieldProps) {
  const id = useId()
  const errorId = `${id}-error`
  return (
    <div className={cx('flex flex-col gap-1', className)}>
      <label htmlFor={id} className={hideLabel ? 'sr-only' : labelStyles}>
        {label}
      </label>
      <select
        id={id}
        name={name}
        value={value}
        disabled={isDisabled}
        aria-invalid={error === undefined ? undefined : true}
        aria-describedby={error === undefined ? undefined : errorId}
        onChange={(event: ChangeEvent<HTMLSelectElement>) => {
          onChange(event.target.value)
        }}
        // Room for the arrow: padding-right comes after the field's padding-inline in Tailwind's stylesheet.
        className={cx(inputStyles, 'pr-8')}
      >
        {emptyLabel === undefined ? null : <option value="">{emptyLabel}</option>}
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
      <FieldErrorText id={errorId} error={error} />
    </div>
  )
}
