import { TextField } from './text-field'

export interface DateRange {
  /** `YYYY-MM-DD`, or undefined for no bound. */
  from: string | undefined
  to: string | undefined
}

export interface DateRangeFieldsProps extends DateRange {
  fromLabel: string
  toLabel: string
  /** Both bounds, the one changed and the other as it was; a cleared field removes its bound. */
  onChange: (range: DateRange) => void
  inputClassName?: string
}

/** Two calendar days bounding a list's filter, side by side. */
export function DateRangeFields({ from, to, fromLabel, toLabel, onChange, inputClassName }: DateRangeFieldsProps) {
  const bound = (day: string) => (day === '' ? undefined : day)
  return (
    <>
      <TextField
        type="date"
        label={fromLabel}
        value={from ?? ''}
        inputClassName={inputClassName}
        onChange={(day) => {
          onChange({ from: bound(day), to })
        }}
      />
      <TextField
        type="date"
        label={toLabel}
        value={to ?? ''}
        inputClassName={inputClassName}
        onChange={(day) => {
          onChange({ from, to: bound(day) })
        }}
      />
    </>
  )
}
