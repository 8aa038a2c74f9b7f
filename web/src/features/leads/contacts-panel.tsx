import type { Contact, ContactInfoType } from '@leadline/shared/contact-schema'
import type { Lead } from '@leadline/shared/lead-schema'
import { useState, type SubmitEvent } from 'react'
import { Button } from '../../components/ui/button'
import { Dialog } from '../../components/ui/dialog'
import { Panel } from '../../components/ui/panel'
import { TextField } from '../../components/ui/text-field'
import { isApiError } from '../../lib/api'
import { useDeleteContact, useSaveContact, type ContactBody } from './lead-queries'

export function ContactsPanel({ lead }: { lead: Lead }) {
  const [editing, setEditing] = useState<Contact | 'new'>()
  const [deleting, setDeleting] = useState<Contact>()
  return (
    <Panel
      title="Contacts"
      actions={
        <Button
          size="sm"
          onPress={() => {
            setEditing('new')
          }}
        >
          Add contact
        </Button>
      }
    >
      {lead.contacts.length === 0 ? (
        <p className="text-sm text-slate-500">No contacts yet.</p>
      ) : (
        <ul className="flex flex-col divide-y divide-slate-100">
          {lead.contacts.map((contact) => (
            <li key={contact.id} className="py-3 first:pt-0 last:pb-0">
              <ContactCard
                contact={contact}
                onEdit={() => {
                  setEditing(contact)
                }}
                onDelete={() => {
                  setDeleting(contact)
                }}
              />
            </li>
          ))}
        </ul>
      )}
      <Dialog
        title={editing === 'new' || editing === undefined ? 'Add contact' : `Edit ${editing.display_name}`}
        isOpen={editing !== undefined}
        onOpenChange={(open) => {
          if (!open) setEditing(undefined)
        }}
        isDismissable={false}
      >
        {editing === undefined ? null : (
          <ContactForm
            leadId={lead.id}
            contact={editing === 'new' ? undefined : editing}
            onDone={() => {
              setEditing(undefined)
            }}
          />
        )}
      </Dialog>
      <DeleteContactDialog
        contact={deleting}
        onDone={() => {
          setDeleting(undefined)
        }}
      />
    </Panel>
  )
}

function ContactCard({ contact, onEdit, onDelete }: { contact: Contact; onEdit: () => void; onDelete: () => void }) {
  const name = contact.display_name === '' ? 'Unnamed contact' : contact.display_name
  return (
    <div className="flex items-start justify-between gap-2">
      <div className="min-w-0 text-sm">
        <p className="font-medium text-slate-900">{name}</p>
        {contact.title === null ? null : <p className="text-slate-500">{contact.title}</p>}
        <ul className="mt-1 flex flex-col gap-0.5 text-slate-700">
          {contact.phones.map((phone) => (
            <li key={`p-${phone.phone}`}>
              <a href={`tel:${phone.phone}`} className="hover:underline">
                {phone.phone_formatted}
              </a>{' '}
              <span className="text-xs text-slate-400">{phone.type}</span>
            </li>
          ))}
          {contact.emails.map((email) => (
            <li key={`e-${email.email}`} className="truncate">
              <a href={`mailto:${email.email}`} className="text-indigo-700 hover:underline">
                {email.email}
              </a>
            </li>
          ))}
          {contact.urls.map((url) => (
            <li key={`u-${url.url}`} className="truncate">
              <a href={url.url} target="_blank" rel="noreferrer noopener" className="text-indigo-700 hover:underline">
                {url.url}
              </a>
            </li>
          ))}
        </ul>
      </div>
      <div className="flex shrink-0 gap-1">
        <Button size="sm" variant="quiet" aria-label={`Edit contact ${name}`} onPress={onEdit}>
          Edit
        </Button>
        <Button
          size="sm"
          variant="quiet"
          className="text-red-700"
          aria-label={`Delete contact ${name}`}
          onPress={onDelete}
        >
          Delete
        </Button>
      </div>
    </div>
  )
}

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
}

function draftOf(contact: Contact | undefined): ContactDraft {
  return {
    name: contact?.name ?? '',
    title: contact?.title ?? '',
    emails: contact?.emails.map((e) => ({ type: e.type, value: e.email })) ?? [],
    phones: contact?.phones.map((p) => ({ type: p.type, value: p.phone })) ?? [],
    urls: contact?.urls.map((u) => ({ type: u.type, value: u.url })) ?? [],
  }
}

function bodyOf(draft: ContactDraft): ContactBody {
  const filled = (entries: Entry[]) => entries.filter((e) => e.value.trim() !== '')
  const typed = (e: Entry) => (e.type === undefined ? {} : { type: e.type })
  return {
    name: draft.name.trim() === '' ? null : draft.name.trim(),
    title: draft.title.trim() === '' ? null : draft.title.trim(),
    emails: filled(draft.emails).map((e) => ({ ...typed(e), email: e.value.trim() })),
    phones: filled(draft.phones).map((e) => ({ ...typed(e), phone: e.value.trim() })),
    urls: filled(draft.urls).map((e) => ({ ...typed(e), url: e.value.trim() })),
  }
}

type ListKey = 'emails' | 'phones' | 'urls'

const lists: { key: ListKey; field: string; noun: string; label: string; type: 'email' | 'tel' | 'url' }[] = [
  { key: 'phones', field: 'phone', noun: 'phone', label: 'Phone', type: 'tel' },
  { key: 'emails', field: 'email', noun: 'email', label: 'Email', type: 'email' },
  { key: 'urls', field: 'url', noun: 'URL', label: 'URL', type: 'url' },
]

function ContactForm({
  leadId,
  contact,
  onDone,
}: {
  leadId: string
  contact: Contact | undefined
  onDone: () => void
}) {
  const [draft, setDraft] = useState(() => draftOf(contact))
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

  const setEntry = (key: ListKey, index: number, value: string) => {
    setDraft((d) => ({ ...d, [key]: d[key].map((e, i) => (i === index ? { ...e, value } : e)) }))
  }

  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault()
    saveContact.mutate({ contactId: contact?.id, body: bodyOf(draft) }, { onSuccess: onDone })
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
                label={`${label} ${index + 1}`}
                type={type}
                value={entry.value}
                onChange={(value) => {
                  setEntry(key, index, value)
                }}
                error={errorAt(key, field, index)}
                className="flex-1"
                autoFocus={index > 0 && index === draft[key].length - 1 && entry.value === ''}
              />
              <Button
                size="sm"
                variant="quiet"
                aria-label={`Remove ${noun} ${index + 1}`}
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

function DeleteContactDialog({ contact, onDone }: { contact: Contact | undefined; onDone: () => void }) {
  const deleteContact = useDeleteContact()
  return (
    <Dialog
      title={`Delete ${contact?.display_name ?? 'contact'}?`}
      isOpen={contact !== undefined}
      onOpenChange={(open) => {
        if (!open) onDone()
      }}
      size="sm"
    >
      <p className="text-sm text-slate-700">The contact and its phones, emails and URLs are deleted.</p>
      <div className="flex justify-end gap-2">
        <Button autoFocus onPress={onDone}>
          Cancel
        </Button>
        <Button
          variant="danger"
          isPending={deleteContact.isPending}
          onPress={() => {
            if (contact !== undefined) deleteContact.mutate(contact.id, { onSuccess: onDone })
          }}
        >
          Delete
        </Button>
      </div>
    </Dialog>
  )
}
