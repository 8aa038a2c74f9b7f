import { CONTACT_INFO_TYPES, type ContactInfoType } from '@leadline/shared/contact-info-types'
import type { Contact } from '@leadline/shared/contact-schema'
import type { CustomField } from '@leadline/shared/custom-field-schema'
import { useRef, useState, type SubmitEvent } from 'react'
import { Button } from '../../components/ui/button'
import { FormActions } from '../../components/ui/form-actions'
import { SelectField } from '../../components/ui/select-field'
import { TextField } from '../../components/ui/text-field'
import { saveErrors } from '../../lib/form-errors'
import { bindFields } from '../../lib/form-fields'
import { newRowKey, useRemovalFocus } from '../../lib/row-keys'
import { bodyOf, draftOf, type Entry } from './contact-draft'
import { CustomFieldsFieldset } from './custom-field-editor'
import type { ReferenceOption } from './custom-field-input'
import { useSaveContact } from './lead-queries'

// The add/edit contact form: loaded when a contact dialog first opens, so the lead page stays inside its budget.

type ListKey = 'emails' | 'phones' | 'urls'

const lists: { key: ListKey; field: string; noun: string; label: string; type: 'email' | 'tel' | 'url' }[] = [
  { key: 'phones', field: 'phone', noun: 'phone', label: 'Phone', type: 'tel' },
  { key: 'emails', field: 'email', noun: 'email', label: 'Email', type: 'email' },
  { key: 'urls', field: 'url', noun: 'URL', label: 'URL', type: 'url' },
]

const typeOptions = CONTACT_INFO_TYPES.map((t) => ({ value: t, label: t }))

function isInfoType(value: string): value is ContactInfoType {
  return (CONTACT_INFO_TYPES as readonly string[]).includes(value)
}

export interface ContactFormProps {
  leadId: string
  contact: Contact | undefined
  /** The organization's contact custom fields (hidden ones excluded) and the names their values refer to. */
  fields: readonly CustomField[]
  referencesOf: (field: CustomField) => readonly ReferenceOption[]
  onDone: () => void
}

export function ContactForm({ leadId, contact, fields, referencesOf, onDone }: ContactFormProps) {
  const [initial] = useState(() => draftOf(contact, fields))
  const [draft, setDraft] = useState(initial)
  const saveContact = useSaveContact(leadId)
  const removal = useRemovalFocus()
  const addButtons = useRef(new Map<ListKey, HTMLButtonElement>())
  const { fieldErrors, generalError } = saveErrors(saveContact.error)
  const field = bindFields(draft, setDraft, fieldErrors)

  // Blank entries are dropped before saving, so the API's indexes count only the filled ones.
  const errorAt = (key: ListKey, field: string, index: number): string | undefined => {
    const entries = draft[key]
    if (entries[index]?.value.trim() === '') return undefined
    const filledIndex = entries.slice(0, index).filter((e) => e.value.trim() !== '').length
    return fieldErrors[`${key}.${filledIndex}.${field}`]
  }

  const setEntry = (key: ListKey, entryKey: string, change: Partial<Entry>) => {
    setDraft((d) => ({ ...d, [key]: d[key].map((e) => (e.key === entryKey ? { ...e, ...change } : e)) }))
  }

  const removeEntry = (key: ListKey, index: number) => {
    const entries = draft[key]
    const entryKey = entries[index]?.key
    removal.removing(
      entries.map((e) => e.key),
      index,
      addButtons.current.get(key),
    )
    setDraft((d) => ({ ...d, [key]: d[key].filter((e) => e.key !== entryKey) }))
  }

  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault()
    saveContact.mutate({ contactId: contact?.id, body: bodyOf(draft, initial, fields) }, { onSuccess: onDone })
  }

  return (
    <form onSubmit={submit} noValidate className="flex flex-col gap-4">
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
        <TextField label="Name" {...field('name')} autoFocus />
        <TextField label="Title" {...field('title')} />
      </div>
      {lists.map(({ key, field, noun, label, type }) => (
        <fieldset key={key} className="flex flex-col gap-2">
          <legend className="mb-1 text-sm font-semibold text-slate-900">
            {label === 'URL' ? 'URLs' : `${label}s`}
          </legend>
          {draft[key].map((entry, index) => (
            <div key={entry.key} className="flex items-end gap-2">
              <TextField
                label={`${label} ${String(index + 1)}`}
                type={type}
                value={entry.value}
                onChange={(value) => {
                  setEntry(key, entry.key, { value })
                }}
                error={errorAt(key, field, index)}
                className="flex-1"
                autoFocus={index > 0 && index === draft[key].length - 1 && entry.value === ''}
              />
              <SelectField
                label={`${label} ${String(index + 1)} type`}
                hideLabel
                value={entry.type ?? ''}
                options={typeOptions}
                emptyLabel="type…"
                onChange={(value) => {
                  setEntry(key, entry.key, { type: isInfoType(value) ? value : undefined })
                }}
                error={errorAt(key, 'type', index)}
                className="w-28"
              />
              <Button
                ref={removal.ref(entry.key)}
                size="sm"
                variant="quiet"
                aria-label={`Remove ${noun} ${String(index + 1)}`}
                className="mb-1"
                onPress={() => {
                  removeEntry(key, index)
                }}
              >
                Remove
              </Button>
            </div>
          ))}
          <Button
            ref={(element: HTMLButtonElement | null) => {
              if (element === null) addButtons.current.delete(key)
              else addButtons.current.set(key, element)
            }}
            size="sm"
            variant="quiet"
            tone="accent"
            className="w-fit"
            onPress={() => {
              setDraft((d) => ({ ...d, [key]: [...d[key], { key: newRowKey(), type: undefined, value: '' }] }))
            }}
          >
            {`Add ${noun}`}
          </Button>
        </fieldset>
      ))}
      <CustomFieldsFieldset
        fields={fields}
        draftOf={(field) => draft.custom[field.id] ?? ''}
        setDraft={(field, text) => {
          setDraft((d) => ({ ...d, custom: { ...d.custom, [field.id]: text } }))
        }}
        errors={fieldErrors}
        referencesOf={referencesOf}
      />
      <FormActions
        error={generalError}
        submitLabel="Save contact"
        isPending={saveContact.isPending}
        onCancel={onDone}
      />
    </form>
  )
}
