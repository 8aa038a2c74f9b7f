import { useQuery, useSuspenseQuery } from '@tanstack/react-query'
import { useState, type SubmitEvent } from 'react'
import type { Contact } from '@leadline/shared/contact-schema'
import type { EmailTemplate } from '@leadline/shared/email-template-schema'
import { Button } from '../../components/ui/button'
import { CheckboxField } from '../../components/ui/checkbox-field'
import { ConfirmedMutationDelete } from '../../components/ui/confirmed-mutation-delete'
import { Dialog } from '../../components/ui/dialog'
import { FormActions } from '../../components/ui/form-actions'
import { SelectField } from '../../components/ui/select-field'
import { TextField } from '../../components/ui/text-field'
import { api } from '../../lib/api'
import { placeErrors } from '../../lib/form-errors'
import { useFormMutation } from '../../lib/form-mutation'
import { wholeListQuery } from '../../lib/setup-query'
import { AttachmentField } from '../email/attachment-field'
import { attachmentsOf, isUploading, withTemplateFiles } from '../email/email-attachments'
import { RenderedTemplatePreview } from '../email/rendered-template'
import { emailQueries } from '../email/email-queries'
import { LeadComboBox } from '../opportunities/opportunity-form-lead'
import { settingsPage, SettingsScreen } from './settings-layout'
import { SettingsTable } from './settings-table'

// The organization's templates (admins only): shared ones and the admin's own. A rep's personal templates stay
// theirs to make from the composer, as before.

const ALL = ['email-templates'] as const
const templatesList = () => wholeListQuery<EmailTemplate>([...ALL, 'settings'], 'email_template/', { _limit: 100 })

interface TemplateInput {
  name: string
  subject: string
  body: string
  is_shared: boolean
  attachments: { url: string; filename: string; content_type: string; size: number }[]
}

const path = (id: string) => `email_template/${encodeURIComponent(id)}/`

const cell = 'px-3 py-2 align-middle'

export const EmailTemplatesPage = settingsPage(EmailTemplatesPageContent)

function EmailTemplatesPageContent() {
  const { data: templates } = useSuspenseQuery(templatesList())
  const [editing, setEditing] = useState<EmailTemplate | 'new' | undefined>(undefined)
  const [previewing, setPreviewing] = useState<EmailTemplate | undefined>(undefined)
  const remove = useFormMutation(ALL, (id: string) => api.delete(path(id)))
  return (
    <SettingsScreen
      title="Email templates"
      description="Subjects and bodies reps start an email from. Placeholders such as {{ contact.first_name }} are filled in for the lead and contact the email is for. Shared templates are everyone’s; personal ones only their author’s."
      actions={
        <Button
          variant="primary"
          onPress={() => {
            setEditing('new')
          }}
        >
          New template
        </Button>
      }
    >
      <SettingsTable
        label="Email templates"
        framed
        columns={['Name', 'Subject', 'Who sees it']}
        rows={templates}
        ifNone="There are no email templates yet."
      >
        {(template) => (
          <tr key={template.id}>
            <th scope="row" className={`${cell} font-medium text-slate-900`}>
              {template.name}
            </th>
            <td className={cell}>{template.subject}</td>
            <td className={cell}>{template.is_shared ? 'Shared' : 'Personal'}</td>
            <td className={`${cell} text-right`}>
              <div className="flex justify-end gap-2">
                <Button
                  aria-label={`Preview ${template.name}`}
                  onPress={() => {
                    setPreviewing(template)
                  }}
                >
                  Preview
                </Button>
                <Button
                  aria-label={`Edit ${template.name}`}
                  onPress={() => {
                    setEditing(template)
                  }}
                >
                  Edit
                </Button>
                <ConfirmedMutationDelete
                  label="Delete"
                  title={`Delete the template “${template.name}”?`}
                  mutation={remove}
                  variables={template.id}
                  failure="The template was not deleted"
                  onDeleted={() => {
                    if (previewing?.id === template.id) setPreviewing(undefined)
                  }}
                >
                  Emails already written from it stay as they are.
                </ConfirmedMutationDelete>
              </div>
            </td>
          </tr>
        )}
      </SettingsTable>
      {previewing === undefined ? null : (
        <TemplatePreview
          key={previewing.id}
          template={previewing}
          onClose={() => {
            setPreviewing(undefined)
          }}
        />
      )}
      {editing === undefined ? null : (
        <TemplateDialog
          template={editing === 'new' ? undefined : editing}
          onClose={() => {
            setEditing(undefined)
          }}
        />
      )}
    </SettingsScreen>
  )
}

function TemplateDialog({ template, onClose }: { template: EmailTemplate | undefined; onClose: () => void }) {
  const save = useFormMutation(ALL, (body: TemplateInput) =>
    template === undefined
      ? api.post<EmailTemplate>('email_template/', body)
      : api.put<EmailTemplate>(path(template.id), body),
  )
  const [name, setName] = useState(template?.name ?? '')
  const [subject, setSubject] = useState(template?.subject ?? '')
  const [body, setBody] = useState(template?.body ?? '')
  const [shared, setShared] = useState(template?.is_shared ?? true)
  const [files, setFiles] = useState(() => withTemplateFiles([], template?.attachments ?? []))
  const changed =
    <T,>(set: (value: T) => void) =>
    (value: T) => {
      set(value)
      save.reset()
    }
  const { beside, general } = placeErrors(['name', 'subject', 'body', 'is_shared', 'attachments'], save.error)
  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault()
    if (isUploading(files)) return
    const attachments = attachmentsOf(files).map((file) => ({
      ...file,
      content_type: file.content_type ?? 'application/octet-stream',
    }))
    save.mutate({ name: name.trim(), subject, body, is_shared: shared, attachments }, { onSuccess: onClose })
  }
  return (
    <Dialog
      title={template === undefined ? 'New template' : `Edit “${template.name}”`}
      isOpen
      onOpenChange={(open) => {
        if (!open) onClose()
      }}
    >
      <form onSubmit={submit} className="flex flex-col gap-4" noValidate>
        <TextField label="Name" value={name} onChange={changed(setName)} isRequired autoFocus error={beside.name} />
        <TextField label="Subject" value={subject} onChange={changed(setSubject)} error={beside.subject} />
        <TextField
          label="Body"
          multiline
          rows={8}
          value={body}
          onChange={changed(setBody)}
          error={beside.body}
          description="HTML; placeholders such as {{ contact.first_name }} or {{ lead.display_name }}."
        />
        <CheckboxField
          label="Shared with everyone"
          description="Off: a personal template, yours only."
          checked={shared}
          onChange={changed(setShared)}
          error={beside.is_shared}
        />
        <AttachmentField
          attachments={files}
          onChange={(update) => {
            setFiles(update)
            save.reset()
          }}
          error={beside.attachments}
        />
        <FormActions
          error={general}
          submitLabel={template === undefined ? 'Create template' : 'Save'}
          isPending={save.isPending}
          onCancel={onClose}
        />
      </form>
    </Dialog>
  )
}

/** The template rendered by the API for a lead and contact picked here, with its warnings. */
function TemplatePreview({ template, onClose }: { template: EmailTemplate; onClose: () => void }) {
  const [leadId, setLeadId] = useState('')
  const [contactId, setContactId] = useState('')
  const contacts = useQuery({
    ...wholeListQuery<Contact>(['contacts', 'of-lead', leadId], 'contact/', { lead_id: leadId, _limit: 100 }),
    enabled: leadId !== '',
  })
  const chosenContact = contactId !== '' ? contactId : (contacts.data?.[0]?.id ?? '')
  const rendered = useQuery({
    ...emailQueries.rendered(template.id, leadId, chosenContact),
    enabled: leadId !== '' && chosenContact !== '',
  })
  return (
    <section
      aria-labelledby="template-preview-heading"
      className="flex flex-col gap-3 rounded-lg border border-slate-200 bg-white p-4"
    >
      <div className="flex items-center justify-between gap-2">
        <h2 id="template-preview-heading" className="text-lg font-semibold text-slate-900">
          Preview of “{template.name}”
        </h2>
        <Button onPress={onClose}>Close preview</Button>
      </div>
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
        <LeadComboBox
          leadId={leadId}
          onChange={(id) => {
            setLeadId(id)
            setContactId('')
          }}
          error={undefined}
        />
        <SelectField
          label="Contact"
          value={chosenContact}
          options={(contacts.data ?? []).map((c) => ({ value: c.id, label: c.display_name || c.name || c.id }))}
          emptyLabel={leadId === '' ? 'Pick a lead first' : 'This lead has no contacts'}
          isDisabled={leadId === '' || (contacts.data ?? []).length === 0}
          onChange={setContactId}
        />
      </div>
      <div aria-live="polite" className="text-sm">
        {leadId === '' || chosenContact === '' ? (
          <p className="text-slate-500">Pick a lead and one of its contacts to see the template filled in for them.</p>
        ) : (
          <RenderedTemplatePreview query={rendered} />
        )}
      </div>
    </section>
  )
}
