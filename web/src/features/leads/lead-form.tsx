import { useQuery } from '@tanstack/react-query'
import { useNavigate } from '@tanstack/react-router'
import { useState, type SubmitEvent } from 'react'
import { Dialog } from '../../components/ui/dialog'
import { FormActions } from '../../components/ui/form-actions'
import { SelectField } from '../../components/ui/select-field'
import { TextField } from '../../components/ui/text-field'
import { showToast } from '../../components/ui/toast'
import { isApiError } from '../../lib/api'
import { bindFields } from '../../lib/form-fields'
import { setupQueries, useCreateLead, type LeadBody } from './lead-queries'

interface NewLeadValues {
  name: string
  status_id: string
  url: string
  description: string
  contact_name: string
  contact_email: string
  contact_phone: string
}

const empty: NewLeadValues = {
  name: '',
  status_id: '',
  url: '',
  description: '',
  contact_name: '',
  contact_email: '',
  contact_phone: '',
}

/** Which input shows each of the API's `field-errors` keys. */
const errorFields: Record<string, keyof NewLeadValues> = {
  name: 'name',
  status_id: 'status_id',
  status: 'status_id',
  url: 'url',
  description: 'description',
  'contacts.0.name': 'contact_name',
  'contacts.0.emails.0.email': 'contact_email',
  'contacts.0.phones.0.phone': 'contact_phone',
}

function toBody(values: NewLeadValues): LeadBody {
  const text = (value: string) => (value.trim() === '' ? undefined : value.trim())
  const contactName = text(values.contact_name)
  const email = text(values.contact_email)
  const phone = text(values.contact_phone)
  const hasContact = contactName !== undefined || email !== undefined || phone !== undefined
  return {
    name: values.name.trim(),
    ...(values.status_id === '' ? {} : { status_id: values.status_id }),
    ...(text(values.url) === undefined ? {} : { url: text(values.url) }),
    ...(text(values.description) === undefined ? {} : { description: text(values.description) }),
    ...(hasContact
      ? {
          contacts: [
            {
              ...(contactName === undefined ? {} : { name: contactName }),
              ...(email === undefined ? {} : { emails: [{ email }] }),
              ...(phone === undefined ? {} : { phones: [{ phone }] }),
            },
          ],
        }
      : {}),
  }
}

export function NewLeadDialog({ isOpen, onOpenChange }: { isOpen: boolean; onOpenChange: (open: boolean) => void }) {
  return (
    <Dialog title="New lead" isOpen={isOpen} onOpenChange={onOpenChange} isDismissable={false}>
      <NewLeadForm
        onDone={() => {
          onOpenChange(false)
        }}
      />
    </Dialog>
  )
}

function NewLeadForm({ onDone }: { onDone: () => void }) {
  const [values, setValues] = useState(empty)
  const [localErrors, setLocalErrors] = useState<Partial<Record<keyof NewLeadValues, string>>>({})
  const statuses = useQuery(setupQueries.statuses())
  const createLead = useCreateLead()
  const navigate = useNavigate()

  const serverErrors: Partial<Record<keyof NewLeadValues, string>> = {}
  const otherErrors: string[] = []
  if (isApiError(createLead.error)) {
    for (const [key, message] of Object.entries(createLead.error.fieldErrors)) {
      const field = errorFields[key]
      if (field === undefined) otherErrors.push(`${key}: ${message}`)
      else serverErrors[field] = message
    }
    if (Object.keys(createLead.error.fieldErrors).length === 0) otherErrors.push(createLead.error.message)
  } else if (createLead.error !== null) {
    otherErrors.push(createLead.error.message)
  }
  const field = bindFields(values, setValues, { ...serverErrors, ...localErrors }, (key) => {
    setLocalErrors((current) => {
      const { [key]: _edited, ...rest } = current
      return rest
    })
  })

  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault()
    if (values.name.trim() === '') {
      setLocalErrors({ name: 'Give the lead a name.' })
      return
    }
    createLead.mutate(toBody(values), {
      onSuccess: (lead) => {
        onDone()
        showToast({ title: `Lead “${lead.display_name}” created` })
        void navigate({ to: '/leads/$leadId', params: { leadId: lead.id } })
      },
    })
  }

  const statusOptions = (statuses.data ?? []).map((s) => ({ value: s.id, label: s.label }))

  return (
    <form onSubmit={submit} noValidate className="flex flex-col gap-4">
      <TextField label="Name" {...field('name')} autoFocus />
      <SelectField
        label="Status"
        {...field('status_id')}
        options={statusOptions}
        emptyLabel={statusOptions[0] === undefined ? 'Default status' : `Default (${statusOptions[0].label})`}
      />
      <TextField label="URL" type="url" {...field('url')} />
      <TextField label="Description" multiline rows={2} {...field('description')} />
      <fieldset className="flex flex-col gap-3 rounded-md border border-slate-200 p-3">
        <legend className="px-1 text-sm font-semibold text-slate-900">First contact</legend>
        <TextField label="Contact" {...field('contact_name')} placeholder="Full name" />
        <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
          <TextField label="Email" type="email" {...field('contact_email')} />
          <TextField label="Phone" type="tel" {...field('contact_phone')} />
        </div>
      </fieldset>
      {otherErrors.length === 0 ? null : (
        <div role="alert" className="rounded-md bg-red-50 p-3 text-sm text-red-800">
          {otherErrors.map((message) => (
            <p key={message}>{message}</p>
          ))}
        </div>
      )}
      <FormActions submitLabel="Create lead" isPending={createLead.isPending} onCancel={onDone} />
    </form>
  )
}
