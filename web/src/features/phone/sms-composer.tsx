import { useQuery } from '@tanstack/react-query'
import type { Contact } from '@leadline/shared/contact-schema'
import { useState, type SubmitEvent } from 'react'
import { SelectField } from '../../components/ui/select-field'
import { TextField } from '../../components/ui/text-field'
import { authQueries } from '../auth/auth-queries'
import { placeErrors } from '../../lib/form-errors'
import { ComposerFrame } from '../messages/composer-frame'
import { useMessageSend } from '../messages/message-send'
import { SendAtField, SendButtons, SendNoticeBar } from '../messages/send-notice'
import { useSendSms, useSmsToDraft } from './phone-mutations'
import { phoneQueries } from './phone-queries'
import type { SmsActivity } from './sms-display'
import {
  defaultSender,
  sendingNumbers,
  recipientKey,
  recipientsOf,
  senderLabel,
  smsBodyOf,
  SMS_FIELDS,
  type SmsField,
} from './sms-draft'
import { smsLengthText } from './sms-segments'

// The lead page's SMS composer; loaded when "Send SMS" (or a draft's "Edit draft") first opens it.

export interface SmsComposerProps {
  leadId: string
  contacts: readonly Contact[]
  /** A draft to carry on with; without it, a new message. */
  draft?: SmsActivity | undefined
  onClose: () => void
}

export function SmsComposer({ leadId, contacts, draft, onClose }: SmsComposerProps) {
  const session = useQuery(authQueries.session())
  const numbers = useQuery(phoneQueries.internalNumbers())
  // The draft being carried on with, if any: sending sends it rather than a new message.
  const [carried, setCarried] = useState(draft)
  const recipients = recipientsOf(contacts, carried)
  const [to, setTo] = useState(() =>
    draft === undefined || draft.remote_phone === null ? '' : recipientKey(draft.contact_id, draft.remote_phone),
  )
  const [from, setFrom] = useState('')
  const [text, setText] = useState(draft?.text ?? '')
  const [formErrors, setFormErrors] = useState<Partial<Record<SmsField, string>>>({})
  const { sending, messageBox, undoButton } = useMessageSend('message')
  const send = useSendSms(leadId)
  const toDraft = useSmsToDraft(leadId)

  const recipient = recipients.find((r) => r.key === to) ?? recipients[0]
  const usable = sendingNumbers(numbers.data ?? [], session.data?.user.id)
  const sender = from !== '' ? from : defaultSender(numbers.data ?? [], session.data?.user.id, carried)
  const server = placeErrors(SMS_FIELDS, send.error)
  const errors = { ...server.beside, ...formErrors }
  const generalError = server.general
  const noNumbers = numbers.isSuccess && usable.length === 0
  const cannotSend = recipients.length === 0 || noNumbers

  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault()
    const result = smsBodyOf(
      { recipient, from: sender, text, mode: sending.mode, sendAt: sending.scheduledAt() },
      new Date(),
    )
    if (!result.ok) {
      setFormErrors(result.errors)
      return
    }
    setFormErrors({})
    const name = recipient?.name ?? 'the contact'
    send.mutate(
      { draftId: carried?.id, body: result.body },
      {
        onSuccess: (message) => {
          setText('')
          setCarried(undefined)
          sending.sent(message, name)
        },
      },
    )
  }

  const undo = (id: string) => {
    toDraft.mutate(id, {
      onSuccess: (message) => {
        sending.undoneAsDraft(
          text.trim() !== '',
          () => {
            setCarried(message)
            setTo(message.remote_phone === null ? '' : recipientKey(message.contact_id, message.remote_phone))
            setFrom(message.local_phone ?? '')
            setText(message.text)
          },
          'conversation',
        )
      },
      onError: sending.undoFailed,
    })
  }

  return (
    <ComposerFrame title="Send SMS" className="border-indigo-200 bg-indigo-50/40" onClose={onClose}>
      <form onSubmit={submit} noValidate className="mt-2 flex flex-col gap-3">
        <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
          {recipients.length === 0 ? (
            <p className="text-sm text-slate-700">
              None of this lead’s contacts has a phone number. Add one to a contact to text them.
            </p>
          ) : (
            <SelectField
              label="To"
              value={recipient?.key ?? ''}
              options={recipients.map((r) => ({ value: r.key, label: r.label }))}
              onChange={setTo}
              error={errors.remote_phone}
            />
          )}
          {noNumbers ? (
            <p className="text-sm text-slate-700">
              You have no phone number to send texts from yet: an admin adds a shared one, or one of your own (internal
              numbers).
            </p>
          ) : (
            <SelectField
              label="From"
              value={sender}
              options={usable.map((n) => ({ value: n.number, label: senderLabel(n) }))}
              emptyLabel={numbers.isPending ? 'Loading numbers…' : sender === '' ? 'Choose a number' : undefined}
              isDisabled={numbers.isPending}
              onChange={setFrom}
              error={errors.local_phone ?? (numbers.isError ? 'The numbers could not be loaded.' : undefined)}
            />
          )}
        </div>
        <div ref={messageBox}>
          <TextField
            label="Message"
            multiline
            rows={3}
            value={text}
            onChange={(value) => {
              setText(value)
              if (formErrors.text !== undefined) setFormErrors((e) => ({ ...e, text: undefined }))
            }}
            description={smsLengthText(text)}
            error={errors.text}
            autoFocus
          />
        </div>
        <SendAtField sending={sending} error={errors.date_scheduled} />
        {generalError === undefined ? null : (
          <p role="alert" className="text-sm text-red-700">
            {generalError}
          </p>
        )}
        <SendButtons
          sending={sending}
          onModeChange={() => {
            setFormErrors((e) => ({ ...e, date_scheduled: undefined }))
          }}
          isDisabled={cannotSend}
          isPending={send.isPending}
        />
      </form>
      <SendNoticeBar sending={sending} undoButton={undoButton} undoPending={toDraft.isPending} onUndo={undo} />
    </ComposerFrame>
  )
}
