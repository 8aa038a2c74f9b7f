import { useQuery } from '@tanstack/react-query'
import type { Contact } from '@leadline/shared/contact-schema'
import type { CustomField } from '@leadline/shared/custom-field-schema'
import type { Lead } from '@leadline/shared/lead-schema'
import { lazy, Suspense, useState } from 'react'
import { Button } from '../../components/ui/button'
import { ConfirmDialog, Dialog } from '../../components/ui/dialog'
import { ExternalLink } from '../../components/ui/external-link'
import { Panel } from '../../components/ui/panel'
import { cx } from '../../lib/cx'
import { RowActions } from '../../components/ui/row-actions'
import { CustomValueDisplay, useReferenceOptions, type ReferenceOption } from './custom-field-input'
import { customValuesOf } from './custom-values'
import { setupQueries, useDeleteContact } from './lead-queries'

const ContactForm = lazy(() => import('./contact-form').then((m) => ({ default: m.ContactForm })))

export function ContactsPanel({ lead }: { lead: Lead }) {
  const [editing, setEditing] = useState<Contact | 'new'>()
  const [deleting, setDeleting] = useState<Contact>()
  const customFields = useQuery(setupQueries.customFields('contact'))
  const fields = (customFields.data ?? []).filter((f) => f.type !== 'hidden')
  const referencesOf = useReferenceOptions(lead, fields)
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
                fields={fields}
                referencesOf={referencesOf}
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
          <Suspense fallback={<p className="text-sm text-slate-500">Loading…</p>}>
            <ContactForm
              leadId={lead.id}
              contact={editing === 'new' ? undefined : editing}
              fields={fields}
              referencesOf={referencesOf}
              onDone={() => {
                setEditing(undefined)
              }}
            />
          </Suspense>
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

interface ContactCardProps {
  contact: Contact
  fields: readonly CustomField[]
  referencesOf: (field: CustomField) => readonly ReferenceOption[]
  onEdit: () => void
  onDelete: () => void
}

function ContactCard({ contact, fields, referencesOf, onEdit, onDelete }: ContactCardProps) {
  const name = contact.display_name === '' ? 'Unnamed contact' : contact.display_name
  const filled = fields
    .map((field) => ({ field, values: customValuesOf(contact, field) }))
    .filter(({ values }) => values.length > 0)
  return (
    <div className="flex items-start justify-between gap-2">
      <div className="min-w-0 text-sm">
        <p className="font-medium text-slate-900">{name}</p>
        {/* No title is null or "" (as Close sends it): neither shows an empty line. */}
        {contact.title ? <p className="text-slate-500">{contact.title}</p> : null}
        <ul className="mt-1 flex flex-col gap-0.5 text-slate-700">
          {contact.phones.map((phone) => (
            <li key={`p-${phone.phone}`}>
              <ContactWay href={`tel:${phone.phone}`} text={phone.phone_formatted} type={phone.type} />
            </li>
          ))}
          {contact.emails.map((email) => (
            <li key={`e-${email.email}`} className="wrap-anywhere">
              <ContactWay href={`mailto:${email.email}`} text={email.email} type={email.type} link="text-indigo-700" />
            </li>
          ))}
          {contact.urls.map((url) => (
            <li key={`u-${url.url}`} className="wrap-anywhere">
              <ExternalLink url={url.url} />
            </li>
          ))}
        </ul>
        {filled.length === 0 ? null : (
          <dl className="mt-1 grid grid-cols-[auto_1fr] gap-x-2 text-slate-700">
            {filled.map(({ field, values }) => (
              <div key={field.id} className="contents">
                <dt className="text-slate-500">{field.name}</dt>
                <dd className="min-w-0 break-words">
                  <CustomValueDisplay field={field} values={values} references={referencesOf(field)} />
                </dd>
              </div>
            ))}
          </dl>
        )}
      </div>
      <RowActions
        editLabel={`Edit contact ${name}`}
        deleteLabel={`Delete contact ${name}`}
        className="shrink-0"
        onEdit={onEdit}
        onDelete={onDelete}
      />
    </div>
  )
}

function DeleteContactDialog({ contact, onDone }: { contact: Contact | undefined; onDone: () => void }) {
  const deleteContact = useDeleteContact()
  return (
    <ConfirmDialog
      title={`Delete ${contact?.display_name ?? 'contact'}?`}
      isOpen={contact !== undefined}
      onCancel={onDone}
      isPending={deleteContact.isPending}
      onConfirm={() => {
        if (contact !== undefined) deleteContact.mutate(contact.id, { onSuccess: onDone })
      }}
    >
      The contact and its phones, emails and URLs are deleted.
    </ConfirmDialog>
  )
}

/** One way to reach a contact: its link, then its kind (office, mobile…). */
function ContactWay({ href, text, type, link }: { href: string; text: string; type: string; link?: string }) {
  return (
    <>
      <a href={href} className={cx(link, 'hover:underline')}>
        {text}
      </a>{' '}
      <span className="text-xs text-slate-500">{type}</span>
    </>
  )
}
