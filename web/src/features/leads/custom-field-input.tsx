import { useId } from 'react'
import type { CustomField, CustomValue } from '@leadline/shared/custom-field-schema'
import type { EditorProps } from '../../components/ui/inline-edit'
import { SelectField } from '../../components/ui/select-field'
import { inputStyles, labelStyles, TextField } from '../../components/ui/text-field'
import { formatCalendarDate, formatDateTime, fromDateTimeLocalInput, toDateTimeLocalInput } from '../../lib/format'

/** The values stored for one field on a lead or contact (`custom.<field id>`), always as a list. */
export function customValuesOf(record: Record<string, unknown>, field: CustomField): CustomValue[] {
  const raw = record[`custom.${field.id}`]
  const list: unknown[] = Array.isArray(raw) ? raw : [raw]
  return list.filter((v): v is CustomValue => typeof v === 'string' || typeof v === 'number')
}

/** Multiple values are edited one per line. */
const SEPARATOR = '\n'

/** The editor's text for the stored values. */
export function customDraftOf(field: CustomField, values: CustomValue[]): string {
  const texts = values.map((v) => (field.type === 'datetime' ? toDateTimeLocalInput(String(v)) : String(v)))
  return texts.join(SEPARATOR)
}

/** The editor's text as the value the API takes: null unsets, numbers for number fields, lists for multiples. */
export function customValueFromDraft(field: CustomField, draft: string): CustomValue | CustomValue[] | null {
  const one = (text: string): CustomValue => {
    if (field.type === 'number') {
      const number = Number(text)
      // Anything else goes as typed, and the API says what is wrong with it.
      return text.trim() !== '' && Number.isFinite(number) ? number : text
    }
    if (field.type === 'datetime') return fromDateTimeLocalInput(text)
    return text
  }
  const texts = draft
    .split(SEPARATOR)
    .map((t) => t.trim())
    .filter((t) => t !== '')
  if (texts.length === 0) return null
  if (field.accepts_multiple_values) return texts.map(one)
  return one(field.type === 'textarea' ? draft.trim() : (texts[0] ?? ''))
}

export function CustomValueDisplay({ field, values }: { field: CustomField; values: CustomValue[] }) {
  if (values.length === 0) return <span className="text-slate-400">—</span>
  const text = (value: CustomValue) => {
    if (field.type === 'date') return formatCalendarDate(String(value))
    if (field.type === 'datetime') return formatDateTime(String(value))
    if (field.type === 'number' && typeof value === 'number') return value.toLocaleString()
    return String(value)
  }
  return (
    <span className={field.type === 'textarea' ? 'whitespace-pre-wrap' : undefined}>{values.map(text).join(', ')}</span>
  )
}

export interface CustomFieldEditorProps extends EditorProps {
  field: CustomField
  /** Choices for `user` and `contact` fields: ids with names. */
  references?: { value: string; label: string }[]
}

/** The input that fits the field's type, labelled with the field's name. */
export function CustomFieldEditor({ field, label, draft, setDraft, error, references = [] }: CustomFieldEditorProps) {
  const id = useId()
  if (field.type === 'choices' && field.accepts_multiple_values) {
    const chosen = new Set(draft.split(SEPARATOR).filter((t) => t !== ''))
    return (
      <fieldset className="flex flex-col gap-1">
        <legend className={labelStyles}>{label}</legend>
        {(field.choices ?? []).map((choice) => (
          <label key={choice} className="flex items-center gap-2 text-sm">
            <input
              type="checkbox"
              checked={chosen.has(choice)}
              onChange={(event) => {
                const next = new Set(chosen)
                if (event.target.checked) next.add(choice)
                else next.delete(choice)
                setDraft((field.choices ?? []).filter((c) => next.has(c)).join(SEPARATOR))
              }}
            />
            {choice}
          </label>
        ))}
        {error === undefined ? null : <p className="text-sm text-red-700">{error}</p>}
      </fieldset>
    )
  }
  if (
    (field.type === 'choices' || field.type === 'user' || field.type === 'contact') &&
    !field.accepts_multiple_values
  ) {
    const options = field.type === 'choices' ? (field.choices ?? []).map((c) => ({ value: c, label: c })) : references
    return (
      <SelectField label={label} value={draft} onChange={setDraft} options={options} emptyLabel="None" error={error} />
    )
  }
  if ((field.type === 'date' || field.type === 'datetime') && !field.accepts_multiple_values) {
    return (
      <div className="flex flex-col gap-1">
        <label htmlFor={id} className={labelStyles}>
          {label}
        </label>
        <input
          id={id}
          type={field.type === 'date' ? 'date' : 'datetime-local'}
          value={draft}
          aria-invalid={error === undefined ? undefined : true}
          aria-describedby={error === undefined ? undefined : `${id}-error`}
          onChange={(event) => {
            setDraft(event.target.value)
          }}
          className={inputStyles}
        />
        {error === undefined ? null : (
          <p id={`${id}-error`} className="text-sm text-red-700">
            {error}
          </p>
        )}
      </div>
    )
  }
  return (
    <TextField
      label={label}
      value={draft}
      onChange={setDraft}
      error={error}
      multiline={field.type === 'textarea' || field.accepts_multiple_values}
      inputMode={field.type === 'number' ? 'decimal' : undefined}
      description={field.accepts_multiple_values ? 'One value per line.' : (field.description ?? undefined)}
      autoFocus
    />
  )
}
