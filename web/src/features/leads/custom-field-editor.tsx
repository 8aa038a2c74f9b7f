import { useId } from 'react'
import type { CustomField } from '@leadline/shared/custom-field-schema'
import type { EditorProps } from '../../components/ui/inline-edit'
import { SelectField } from '../../components/ui/select-field'
import { labelStyles, TextField } from '../../components/ui/text-field'
import type { ReferenceOption } from './custom-field-input'
import { CUSTOM_VALUE_SEPARATOR } from './custom-values'
import { FieldErrorText } from '../../components/ui/field-error-text'

// A custom field's input, apart from its display: the lead page loads it when a field is edited.

/** What a field's values can be picked from, or undefined when they are typed. */
function optionsOf(field: CustomField, references: readonly ReferenceOption[]): readonly ReferenceOption[] | undefined {
  if (field.type === 'choices') return (field.choices ?? []).map((c) => ({ value: c, label: c }))
  if (field.type === 'user' || field.type === 'contact') return references
  return undefined
}

export interface CustomFieldEditorProps extends EditorProps {
  field: CustomField
  /** Choices for `user` and `contact` fields: ids with names. */
  references?: readonly ReferenceOption[]
  /** Inline edits focus their input; a form with several fields does not. */
  autoFocus?: boolean
}

/** The input that fits the field's type, labelled with the field's name. */
export function CustomFieldEditor({
  field,
  label,
  draft,
  setDraft,
  error,
  references = [],
  autoFocus = true,
}: CustomFieldEditorProps) {
  const id = useId()
  const options = optionsOf(field, references)
  if (options !== undefined && field.accepts_multiple_values) {
    const chosen = new Set(draft.split(CUSTOM_VALUE_SEPARATOR).filter((t) => t !== ''))
    // A stored value that is no longer offered (a removed choice, a member who left) stays checked until unchecked.
    const offered = [
      ...options,
      ...[...chosen].filter((v) => !options.some((o) => o.value === v)).map((v) => ({ value: v, label: v })),
    ]
    return (
      <fieldset className="flex flex-col gap-1" aria-describedby={error === undefined ? undefined : `${id}-error`}>
        <legend className={labelStyles}>{label}</legend>
        {offered.length === 0 ? <p className="text-sm text-slate-500">Nothing to choose from.</p> : null}
        {offered.map((option) => (
          <label key={option.value} className="flex items-center gap-2 text-sm">
            <input
              type="checkbox"
              checked={chosen.has(option.value)}
              onChange={(event) => {
                const next = new Set(chosen)
                if (event.target.checked) next.add(option.value)
                else next.delete(option.value)
                setDraft(
                  offered
                    .map((o) => o.value)
                    .filter((v) => next.has(v))
                    .join(CUSTOM_VALUE_SEPARATOR),
                )
              }}
            />
            {option.label}
          </label>
        ))}
        <FieldErrorText id={`${id}-error`} error={error} />
      </fieldset>
    )
  }
  if (options !== undefined) {
    const offered =
      draft === '' || options.some((o) => o.value === draft) ? options : [...options, { value: draft, label: draft }]
    return (
      <SelectField label={label} value={draft} onChange={setDraft} options={offered} emptyLabel="None" error={error} />
    )
  }
  if ((field.type === 'date' || field.type === 'datetime') && !field.accepts_multiple_values) {
    return (
      <TextField
        type={field.type === 'date' ? 'date' : 'datetime-local'}
        label={label}
        value={draft}
        onChange={setDraft}
        error={error}
        autoFocus={autoFocus}
      />
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
      autoFocus={autoFocus}
    />
  )
}

/** A form's Custom fields group, an editor for each field; nothing when there are no fields. */
export function CustomFieldsFieldset({
  fields,
  draftOf,
  setDraft,
  errors,
  referencesOf,
}: {
  fields: readonly CustomField[]
  draftOf: (field: CustomField) => string
  setDraft: (field: CustomField, text: string) => void
  /** The form's errors, by the API's field name: `custom.<field id>`. */
  errors: Readonly<Partial<Record<string, string>>>
  referencesOf: (field: CustomField) => readonly ReferenceOption[]
}) {
  if (fields.length === 0) return null
  return (
    <fieldset className="flex flex-col gap-3">
      <legend className="mb-1 text-sm font-semibold text-slate-900">Custom fields</legend>
      {fields.map((field) => (
        <CustomFieldEditor
          key={field.id}
          field={field}
          label={field.name}
          draft={draftOf(field)}
          setDraft={(text) => {
            setDraft(field, text)
          }}
          error={errors[`custom.${field.id}`]}
          references={referencesOf(field)}
          autoFocus={false}
        />
      ))}
    </fieldset>
  )
}
