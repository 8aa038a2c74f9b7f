import type { ContactInfoType } from '@leadline/shared/contact-info-types'
import type { Contact } from '@leadline/shared/contact-schema'
import type { CustomField } from '@leadline/shared/custom-field-schema'
import { newRowKey } from '../../lib/row-keys'
import { customDraftOf, customValueFromDraft, customValuesOf } from './custom-values'
import type { ContactBody } from './lead-queries'

// The contact form's draft and the body it saves; no React, so the rules are unit-tested.

export interface Entry {
  /** Stays with the entry while others are added and removed (`newRowKey`). */
  key: string
  type: ContactInfoType | undefined
  value: string
}

export interface ContactDraft {
  name: string
  title: string
  emails: Entry[]
  phones: Entry[]
  urls: Entry[]
  /** The editor text of each custom field, by field id. */
  custom: Record<string, string>
}

export function draftOf(contact: Contact | undefined, fields: readonly CustomField[]): ContactDraft {
  return {
    name: contact?.name ?? '',
    title: contact?.title ?? '',
    emails: contact?.emails.map((e) => ({ key: newRowKey(), type: e.type, value: e.email })) ?? [],
    phones: contact?.phones.map((p) => ({ key: newRowKey(), type: p.type, value: p.phone })) ?? [],
    urls: contact?.urls.map((u) => ({ key: newRowKey(), type: u.type, value: u.url })) ?? [],
    custom: Object.fromEntries(
      fields.map((f) => [f.id, contact === undefined ? '' : customDraftOf(f, customValuesOf(contact, f))]),
    ),
  }
}

/** The body to save: blank entries dropped, and only the custom fields whose text changed (null unsets). */
export function bodyOf(draft: ContactDraft, initial: ContactDraft, fields: readonly CustomField[]): ContactBody {
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
