import { Link } from '@tanstack/react-router'
import { useQuery } from '@tanstack/react-query'
import type { Contact } from '@leadline/shared/contact-schema'
import { useState, type SubmitEvent } from 'react'
import { Button } from '../../components/ui/button'
import { SelectField } from '../../components/ui/select-field'
import { TextField } from '../../components/ui/text-field'
import { placeErrors } from '../../lib/form-errors'
import { ComposerFrame } from '../messages/composer-frame'
import { useMessageSend } from '../messages/message-send'
import { SendAtField, SendButtons, SendNoticeBar } from '../messages/send-notice'
import { AddressField } from './address-field'
import { AttachmentField } from './attachment-field'
import type { Address } from './email-address'
import { isUploading, withTemplateFiles } from './email-attachments'
import { EmailBodyField } from './email-body-field'
import {
  composerFields,
  contactAddresses,
  contactOf,
  defaultSender,
  EMAIL_FIELDS,
  emailBodyOf,
  senderOptions,
  type EmailAction,
  type EmailDraft,
  type EmailField,
} from './email-draft'
import { composerSource } from './email-format'
import { useEmailStatus, useSaveEmail } from './email-mutations'
import { emailQueries } from './email-queries'
import type { EmailActivity } from './email-wire'
import { TemplatePicker } from './template-picker'

// The lead page's email composer; loaded when "Send email" (or a thread's "Reply" or "Edit draft") first opens it.

export interface EmailComposerProps {
  leadId: string
  contacts: readonly Contact[]
  /** A draft to carry on with. */
  draft?: EmailActivity | undefined
  /** The email a new one answers. */
  replyTo?: EmailActivity | undefined
  onClose: () => void
}
type Fields = Omit<EmailDraft, 'sender'>

const emptyFields: Fields = {
  to: [],
  cc: [],
  bcc: [],
  subject: '',
  body: '',
  attachments: [],
  contactId: undefined,
  templateId: undefined,
  inReplyToId: undefined,
}

const recipientName = (to: readonly Address[]) => {
  const first = to[0]
  return first === undefined ? 'your recipients' : first.name === '' ? first.email : first.name
}

export function EmailComposer({ leadId, contacts, draft, replyTo, onClose }: EmailComposerProps) {
  const accounts = useQuery(emailQueries.accounts())
  const known = contactAddresses(contacts)
  // The draft being carried on with, if any: sending sends it rather than a new email.
  const [carried, setCarried] = useState(draft)
  const [fields, setFields] = useState<Fields>(() => composerFields(known, draft, replyTo))
  const [from, setFrom] = useState('')
  const [formErrors, setFormErrors] = useState<Partial<Record<EmailField, string>>>({})
  const { sending, messageBox, undoButton } = useMessageSend('email')
  // Where the focus goes on opening: a new email is addressed first; a reply or a draft is written on.
  const [writeOn] = useState(draft !== undefined || replyTo !== undefined)
  const save = useSaveEmail(leadId)
  const status = useEmailStatus(leadId)

  const own = senderOptions(accounts.data ?? [])
  const sender = from !== '' ? from : defaultSender(own, carried, replyTo)
  // A draft written as an address the user no longer has keeps it until they choose another.
  const senders =
    sender === '' || own.some((o) => o.value === sender) ? own : [...own, { value: sender, label: sender }]
  const noAccount = accounts.isSuccess && own.length === 0
  const contactId = contactOf(fields.to, known) ?? fields.contactId
  const server = placeErrors(EMAIL_FIELDS, save.error)
  const errors = { ...server.beside, ...formErrors }
  const uploading = isUploading(fields.attachments)
  // A change answers the composer's own complaint about that field.
  const change = (patch: Partial<Fields> | ((f: Fields) => Partial<Fields>), answers: readonly EmailField[]) => {
    setFields((f) => ({ ...f, ...(typeof patch === 'function' ? patch(f) : patch) }))
    setFormErrors((e) => Object.fromEntries(Object.entries(e).filter(([key]) => !answers.some((a) => a === key))))
  }
  // To, Cc and Bcc alike: the contacts' addresses are offered, and a change answers the complaint that none is given.
  const recipients = (key: 'to' | 'cc' | 'bcc') => ({
    addresses: fields[key],
    onChange: (addresses: Address[]) => {
      const patch: Partial<Fields> = {}
      patch[key] = addresses
      change(patch, ['to'])
    },
    suggestions: known.map((k) => k.address),
    error: errors[key],
  })

  const submit = (action: EmailAction['kind']) => {
    const result = emailBodyOf(
      { ...fields, sender, contactId },
      action === 'schedule' ? { kind: 'schedule', sendAt: sending.scheduledAt() } : { kind: action },
      new Date(),
    )
    if (!result.ok) {
      setFormErrors(result.errors)
      return
    }
    setFormErrors({})
    const name = recipientName(fields.to)
    save.mutate(
      { draftId: carried?.id, body: result.body },
      {
        onSuccess: (email) => {
          if (email.status === 'draft') {
            setCarried(email)
            sending.say('Saved as a draft.')
            return
          }
          setFields(emptyFields)
          setCarried(undefined)
          sending.sent(email, name)
        },
      },
    )
  }

  const undo = (id: string) => {
    status.mutate(
      { id, to: 'draft' },
      {
        onSuccess: (email) => {
          const writing = fields.subject.trim() !== '' || fields.body.trim() !== '' || fields.attachments.length > 0
          sending.undoneAsDraft(
            writing,
            () => {
              setCarried(email)
              setFields(composerFields(known, email, undefined))
              setFrom(email.sender ?? '')
            },
            'thread',
          )
        },
        onError: sending.undoFailed,
      },
    )
  }

  return (
    <ComposerFrame title="Email" className="border-cyan-200 bg-cyan-50/40" onClose={onClose}>
      <form
        onSubmit={(event: SubmitEvent<HTMLFormElement>) => {
          event.preventDefault()
          submit(sending.mode)
        }}
        noValidate
        className="mt-2 flex flex-col gap-3"
      >
        {noAccount ? (
          <p className="text-sm text-slate-700">
            {accounts.data.length > 0
              ? 'None of your addresses is verified yet: open the link emailed to each to send from it. Until then you can save drafts. '
              : 'You have no email account to send from yet. Until then you can save drafts. '}
            <Link to="/settings/profile" hash="email-accounts" className="text-indigo-700 underline">
              Your email accounts
            </Link>
          </p>
        ) : (
          <SelectField
            label="From"
            value={sender}
            options={senders}
            emptyLabel={
              accounts.isPending ? 'Loading your addresses…' : sender === '' ? 'Choose an address' : undefined
            }
            isDisabled={accounts.isPending}
            onChange={setFrom}
            error={errors.sender ?? (accounts.isError ? 'Your email accounts could not be loaded.' : undefined)}
          />
        )}
        <AddressField label="To" {...recipients('to')} autoFocus={!writeOn} />
        <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
          <AddressField label="Cc" {...recipients('cc')} />
          <AddressField label="Bcc" {...recipients('bcc')} />
        </div>
        <TemplatePicker
          leadId={leadId}
          contactId={contactId ?? contacts[0]?.id}
          onUse={(templateId, rendered, files) => {
            change(
              (now) => ({
                templateId,
                subject: rendered.subject,
                body: composerSource(rendered.body_html, rendered.body_text),
                attachments: withTemplateFiles(now.attachments, files),
              }),
              ['subject', 'body_text', 'attachments'],
            )
            sending.focusMessage()
          }}
        />
        {errors.template_id === undefined ? null : <p className="text-sm text-red-700">{errors.template_id}</p>}
        <TextField
          label="Subject"
          value={fields.subject}
          onChange={(subject) => {
            change({ subject }, ['subject'])
          }}
          error={errors.subject}
        />
        <div ref={messageBox}>
          <EmailBodyField
            value={fields.body}
            onChange={(body) => {
              change({ body }, ['body_text'])
            }}
            error={errors.body_text ?? errors.body_html}
            autoFocus={writeOn}
          />
        </div>
        <AttachmentField
          attachments={fields.attachments}
          onChange={(update) => {
            change((f) => ({ attachments: update(f.attachments) }), ['attachments'])
          }}
          error={errors.attachments}
        />
        <SendAtField sending={sending} error={errors.date_scheduled} />
        {server.general === undefined ? null : (
          <p role="alert" className="text-sm text-red-700">
            {server.general}
          </p>
        )}
        <SendButtons
          sending={sending}
          onModeChange={() => {
            setFormErrors((e) => ({ ...e, date_scheduled: undefined }))
          }}
          isDisabled={noAccount || uploading}
          isPending={save.isPending}
        >
          <Button
            size="sm"
            isDisabled={uploading}
            isPending={save.isPending}
            onPress={() => {
              submit('draft')
            }}
          >
            Save draft
          </Button>
        </SendButtons>
      </form>
      <SendNoticeBar sending={sending} undoButton={undoButton} undoPending={status.isPending} onUndo={undo} />
    </ComposerFrame>
  )
}
