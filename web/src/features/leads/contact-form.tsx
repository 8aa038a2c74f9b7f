import { CONTACT_INFO_TYPES, type ContactInfoType } from '@leadline/shared/contact-info-types'
import type { Contact } from '@leadline/shared/contact-schema'
import type { CustomField } from '@leadline/shared/custom-field-schema'
import { useState, type SubmitEvent } from 'react'
import { Button } from '../../components/ui/button'
import { SelectField } from '../../components/ui/select-field'
import { TextField } from '../../components/ui/text-field'
import { isApiError } from '../../lib/api'
import {
  CustomFieldEditor,
  customDraftOf,
  customValueFromDraft,
  customValuesOf,
  type ReferenceOption,
} from './custom-field-input'
import { useSaveContact, type ContactBody } from './lead-queries'

// The add/edit contact form: loaded when a contact dialog first opens, so the lead page stays inside its budget.

interface Entry {
  type: ContactInfoType | undefined
  value: string
}

interface ContactDraft {
  name: string
  title: string
  emails: Entry[]
  phones: Entry[]
  urls: Entry[]
  /** The editor text of each custom field, by field id. */
  custom: Record<string, string>
}

function draftOf(contact: Contact | undefined, fields: readonly CustomField[]): ContactDraft {
  return {
    name: contact?.name ?? '',
    title: contact?.title ?? '',
    emails: contact?.emails.map((e) => ({ type: e.type, value: e.email })) ?? [],
    phones: contact?.phones.map((p) => ({ type: p.type, value: p.phone })) ?? [],
    urls: contact?.urls.map((u) => ({ type: u.type, value: u.url })) ?? [],
    custom: Object.fromEntries(
      fields.map((f) => [f.id, contact === undefined ? '' : customDraftOf(f, customValuesOf(contact, f))]),
    ),
  }
}

/** The body to save: blank entries dropped, and only the custom fields whose text changed (null unsets). */
function bodyOf(draft: ContactDraft, initial: ContactDraft, fields: readonly CustomField[]): ContactBody {
  const filled = (entries: Entry[]) => entries.filter((e) => e.value.trim() !== '')
  const typed = (e: Entry) => (e.type === undefined ? {} : { type: e.type })
  const body: ContactBody = {
    name: draft.name.trim() === '' ? null : draft.name.trim(),
    title: draft.title.trim() === '' ? null : draft.title.trim(),
    emails: filled(draft.emails).map((e) => ({ ...typed(e), email: e.value.trim() })),
    phones: filled(draft.phones).map((e) => ({ ...typed(e), phone: e.value.trim() })),
    urls: filled(draft.urls).map((e) => ({ ...typed(e), url: e.value.trim() })),
  }
  for (const field of fields) {
    const text = draft.custom[field.id] ?? ''
    if (text !== (initial.custom[field.id] ?? '')) body[`custom.${field.id}`] = customValueFromDraft(field, text)
  }
  return body
}

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
  const fieldErrors = isApiError(saveContact.error) ? saveContact.error.fieldErrors : {}
  const generalError =
    saveContact.error !== null && Object.keys(fieldErrors).length === 0 ? saveContact.error.message : undefined

  // Blank entries are dropped before saving, so the API's indexes count only the filled ones.
  const errorAt = (key: ListKey, field: string, index: number): string | undefined => {
    const entries = draft[key]
    if (entries[index]?.value.trim() === '') return undefined
    const filledIndex = entries.slice(0, index).filter((e) => e.value.trim() !== '').length
    return fieldErrors[`${key}.${filledIndex}.${field}`]
  }

  const setEntry = (key: ListKey, index: number, change: Partial<Entry>) => {
    setDraft((d) => ({ ...d, [key]: d[key].map((e, i) => (i === index ? { ...e, ...change } : e)) }))
  }

  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault()
    saveContact.mutate({ contactId: contact?.id, body: bodyOf(draft, initial, fields) }, { onSuccess: onDone })
  }

  return (
    <form onSubmit={submit} noValidate className="flex flex-col gap-4">
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
        <TextField
          label="Name"
          value={draft.name}
          onChange={(name) => {
            setDraft((d) => ({ ...d, name }))
          }}
          error={fieldErrors.name}
          autoFocus
        />
        <TextField
          label="Title"
          value={draft.title}
          onChange={(title) => {
            setDraft((d) => ({ ...d, title }))
          }}
          error={fieldErrors.title}
        />
      </div>
      {lists.map(({ key, field, noun, label, type }) => (
        <fieldset key={key} className="flex flex-col gap-2">
          <legend className="mb-1 text-sm font-semibold text-slate-900">
            {label === 'URL' ? 'URLs' : `${label}s`}
          </legend>
          {draft[key].map((entry, index) => (
            <div key={index} className="flex items-end gap-2">
              <TextField
                label={`${label} ${String(index + 1)}`}
                type={type}
                value={entry.value}
                onChange={(value) => {
                  setEntry(key, index, { value })
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
                  setEntry(key, index, { type: isInfoType(value) ? value : undefined })
                }}
                error={errorAt(key, 'type', index)}
                className="w-28"
              />
              <Button
                size="sm"
                variant="quiet"
                aria-label={`Remove ${noun} ${String(index + 1)}`}
                className="mb-1"
                onPress={() => {
                  setDraft((d) => ({ ...d, [key]: d[key].filter((_, i) => i !== index) }))
                }}
              >
                Remove
              </Button>
            </div>
          ))}
          <Button
            size="sm"
            variant="quiet"
            className="w-fit text-indigo-700"
            onPress={() => {
              setDraft((d) => ({ ...d, [key]: [...d[key], { type: undefined, value: '' }] }))
            }}
          >
            {`Add ${noun}`}
          </Button>
        </fieldset>
      ))}
      {fields.length === 0 ? null : (
        <fieldset className="flex flex-col gap-3">
          <legend className="mb-1 text-sm font-semibold text-slate-900">Custom fields</legend>
          {fields.map((field) => (
            <CustomFieldEditor
              key={field.id}
              field={field}
              label={field.name}
              draft={draft.custom[field.id] ?? ''}
              setDraft={(text) => {
                setDraft((d) => ({ ...d, custom: { ...d.custom, [field.id]: text } }))
              }}
              error={fieldErrors[`custom.${field.id}`]}
              references={referencesOf(field)}
              autoFocus={false}
            />
          ))}
        </fieldset>
      )}
      {generalError === undefined ? null : (
        <p role="alert" className="text-sm text-red-700">
          {generalError}
        </p>
      )}
      <div className="flex justify-end gap-2">
        <Button onPress={onDone}>Cancel</Button>
        <Button type="submit" variant="primary" isPending={saveContact.isPending}>
          Save contact
        </Button>
      </div>
    </form>
  )
}
