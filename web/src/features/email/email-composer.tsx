import { useQuery } from '@tanstack/react-query'
import type { Contact } from '@leadline/shared/contact-schema'
import { useEffect, useId, useRef, useState, type SubmitEvent } from 'react'
import { Button } from '../../components/ui/button'
import { SelectField } from '../../components/ui/select-field'
import { TextField } from '../../components/ui/text-field'
import { placeErrors } from '../../lib/form-errors'
import { browserTimeZone, formatDateTime, fromDateTimeLocalInput } from '../../lib/format'
import { SendNoticeBar, type SendNotice } from '../phone/send-notice'
import { SEND_IN_SECONDS } from '../phone/sms-draft'
import { AddressField } from './address-field'
import { AttachmentField } from './attachment-field'
import type { Address } from './email-address'
import { isUploading } from './email-attachments'
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
  const headingId = useId()
  const bodyBox = useRef<HTMLDivElement>(null)
  const undoButton = useRef<HTMLButtonElement>(null)
  const accounts = useQuery(emailQueries.accounts())
  const known = contactAddresses(contacts)
  // The draft being carried on with, if any: sending sends it rather than a new email.
  const [carried, setCarried] = useState(draft)
  const [fields, setFields] = useState<Fields>(() => composerFields(known, draft, replyTo))
  const [from, setFrom] = useState('')
  const [mode, setMode] = useState<'send' | 'schedule'>('send')
  const [sendAt, setSendAt] = useState('')
  const [formErrors, setFormErrors] = useState<Partial<Record<EmailField, string>>>({})
  const [notice, setNotice] = useState<SendNotice>()
  // Where the focus goes on opening: a new email is addressed first; a reply or a draft is written on.
  const [writeOn] = useState(draft !== undefined || replyTo !== undefined)
  const save = useSaveEmail(leadId)
  const status = useEmailStatus(leadId)
  const focusBody = () => {
    bodyBox.current?.querySelector('textarea')?.focus()
  }

  // The window closes with the server's: after it, Undo could only fail. Focus on Undo moves back to the message.
  const windowId = notice?.kind === 'window' ? notice.id : undefined
  useEffect(() => {
    if (windowId === undefined) return
    const timer = setTimeout(() => {
      if (undoButton.current !== null && document.activeElement === undoButton.current) focusBody()
      setNotice((n) => (n?.kind === 'window' && n.id === windowId ? undefined : n))
    }, SEND_IN_SECONDS * 1000)
    return () => {
      clearTimeout(timer)
    }
  }, [windowId])

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

  const submit = (action: EmailAction['kind']) => {
    const result = emailBodyOf(
      { ...fields, sender, contactId },
      action === 'schedule'
        ? { kind: 'schedule', sendAt: sendAt === '' ? '' : fromDateTimeLocalInput(sendAt) }
        : { kind: action },
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
            setNotice({ kind: 'said', text: 'Saved as a draft.', tone: 'plain' })
            return
          }
          setFields(emptyFields)
          setCarried(undefined)
          setMode('send')
          setSendAt('')
          setNotice(
            email.status === 'scheduled' && email.date_scheduled !== null
              ? {
                  kind: 'said',
                  text: `Your email to ${name} is scheduled for ${formatDateTime(email.date_scheduled)}.`,
                  tone: 'plain',
                }
              : { kind: 'window', id: email.id, name },
          )
        },
      },
    )
  }

  const undo = (id: string) => {
    status.mutate(
      { id, to: 'draft' },
      {
        onSuccess: (email) => {
          // The email comes back to be edited, unless another is being written: then it waits in its thread.
          if (fields.subject.trim() === '' && fields.body.trim() === '' && fields.attachments.length === 0) {
            setCarried(email)
            setFields(composerFields(known, email, undefined))
            setFrom(email.sender ?? '')
            setNotice({ kind: 'said', text: 'Not sent. The email is back here as a draft.', tone: 'plain' })
          } else {
            setNotice({ kind: 'said', text: 'Not sent. It is kept as a draft in its thread.', tone: 'plain' })
          }
          focusBody()
        },
        onError: (error) => {
          setNotice({ kind: 'said', text: `It could not be undone: ${error.message}`, tone: 'error' })
        },
      },
    )
  }

  return (
    <section aria-labelledby={headingId} className="mb-4 rounded-md border border-cyan-200 bg-cyan-50/40 p-3">
      <div className="flex items-center justify-between gap-2">
        <h3 id={headingId} className="text-sm font-semibold text-slate-900">
          Email
        </h3>
        <Button size="sm" variant="quiet" onPress={onClose}>
          Close
        </Button>
      </div>
      <form
        onSubmit={(event: SubmitEvent<HTMLFormElement>) => {
          event.preventDefault()
          submit(mode)
        }}
        noValidate
        className="mt-2 flex flex-col gap-3"
      >
        {noAccount ? (
          <p className="text-sm text-slate-700">
            {accounts.data.length > 0
              ? 'None of your addresses is verified yet: open the link emailed to each to send from it. Until then you can save drafts.'
              : 'You have no email account to send from yet. An admin must add one for you (email accounts); until then you can save drafts.'}
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
        <AddressField
          label="To"
          addresses={fields.to}
          onChange={(to) => {
            change({ to }, ['to'])
          }}
          suggestions={known.map((k) => k.address)}
          error={errors.to}
          autoFocus={!writeOn}
        />
        <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
          <AddressField
            label="Cc"
            addresses={fields.cc}
            onChange={(cc) => {
              change({ cc }, ['to'])
            }}
            suggestions={known.map((k) => k.address)}
            error={errors.cc}
          />
          <AddressField
            label="Bcc"
            addresses={fields.bcc}
            onChange={(bcc) => {
              change({ bcc }, ['to'])
            }}
            suggestions={known.map((k) => k.address)}
            error={errors.bcc}
          />
        </div>
        <TemplatePicker
          leadId={leadId}
          contactId={contactId ?? contacts[0]?.id}
          onUse={(templateId, rendered) => {
            change(
              {
                templateId,
                subject: rendered.subject,
                body: composerSource(rendered.body_html, rendered.body_text),
              },
              ['subject', 'body_text'],
            )
            focusBody()
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
        <div ref={bodyBox}>
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
        {mode === 'schedule' ? (
          <TextField
            type="datetime-local"
            label="Send at"
            value={sendAt}
            onChange={setSendAt}
            description={`In your time zone (${browserTimeZone()}).`}
            error={errors.date_scheduled}
            autoFocus
          />
        ) : null}
        {server.general === undefined ? null : (
          <p role="alert" className="text-sm text-red-700">
            {server.general}
          </p>
        )}
        <div className="flex flex-wrap justify-end gap-2">
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
          <Button
            size="sm"
            onPress={() => {
              setMode((m) => (m === 'send' ? 'schedule' : 'send'))
              setFormErrors((e) => ({ ...e, date_scheduled: undefined }))
            }}
          >
            {mode === 'send' ? 'Schedule for later' : 'Send now instead'}
          </Button>
          <Button
            type="submit"
            size="sm"
            variant="primary"
            isDisabled={noAccount || uploading}
            isPending={save.isPending}
          >
            {mode === 'send' ? 'Send' : 'Schedule'}
          </Button>
        </div>
      </form>
      <SendNoticeBar
        notice={notice}
        noun="email"
        undoButton={undoButton}
        undoPending={status.isPending}
        onUndo={undo}
      />
    </section>
  )
}
