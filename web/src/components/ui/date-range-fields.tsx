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
  /** Each input's width class. */
  inputWidth?: string
}

/** Two calendar days bounding a list's filter, side by side. */
export function DateRangeFields({ from, to, fromLabel, toLabel, onChange, inputWidth }: DateRangeFieldsProps) {
  const bounds = [
    { label: fromLabel, value: from, rangeOf: (day: string | undefined) => ({ from: day, to }) },
    { label: toLabel, value: to, rangeOf: (day: string | undefined) => ({ from, to: day }) },
  ]
  return (
    <>
      {bounds.map(({ label, value, rangeOf }) => (
        <TextField
          key={label}
          type="date"
          label={label}
          value={value ?? ''}
          inputWidth={inputWidth}
          onChange={(day) => {
            onChange(rangeOf(day === '' ? undefined : day))
          }}
        />
      ))}
    </>
  )
}
