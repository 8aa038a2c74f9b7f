import type { ReactNode, Ref } from 'react'
import { Button } from '../../components/ui/button'
import { TextField } from '../../components/ui/text-field'
import { browserTimeZone } from '../../lib/format'
import { SEND_IN_SECONDS, type MessageSend } from './message-send'

// What a composer (text or email) shows of its send state: the time to send at, the send buttons, and under the form
// the undo window of a message just sent, or a sentence. Shared by the SMS and email composers, both loaded on
// demand, so it travels in their chunks, never on a first visit.

/** "Send at", in the user's time zone, while the composer schedules. */
export function SendAtField({ sending, error }: { sending: MessageSend; error: string | undefined }) {
  if (sending.mode !== 'schedule') return null
  return (
    <TextField
      type="datetime-local"
      label="Send at"
      value={sending.sendAt}
      onChange={sending.setSendAt}
      description={`In your time zone (${browserTimeZone()}).`}
      error={error}
      autoFocus
    />
  )
}

export interface SendButtonsProps {
  sending: MessageSend
  /** Called when the user switches between sending now and scheduling. */
  onModeChange: () => void
  isDisabled: boolean
  isPending: boolean
  /** Buttons before these (Save draft). */
  children?: ReactNode
}

/** "Schedule for later" / "Send now instead", and the form's submit button, Send or Schedule. */
export function SendButtons({ sending, onModeChange, isDisabled, isPending, children }: SendButtonsProps) {
  return (
    <div className="flex flex-wrap justify-end gap-2">
      {children}
      <Button
        size="sm"
        onPress={() => {
          sending.toggleMode()
          onModeChange()
        }}
      >
        {sending.mode === 'send' ? 'Schedule for later' : 'Send now instead'}
      </Button>
      <Button type="submit" size="sm" variant="primary" isDisabled={isDisabled} isPending={isPending}>
        {sending.mode === 'send' ? 'Send' : 'Schedule'}
      </Button>
    </div>
  )
}

export interface SendNoticeBarProps {
  sending: MessageSend
  undoButton: Ref<HTMLButtonElement>
  undoPending: boolean
  onUndo: (id: string) => void
}

/** The live region with the notice, and Undo while a window is open. */
export function SendNoticeBar({ sending: { notice, noun }, undoButton, undoPending, onUndo }: SendNoticeBarProps) {
  return (
    <div className="mt-2 flex min-h-8 items-center justify-end gap-2">
      <p
        role="status"
        className={`text-sm ${notice?.kind === 'said' && notice.tone === 'error' ? 'text-red-700' : 'text-slate-700'}`}
      >
        {notice === undefined
          ? ''
          : notice.kind === 'window'
            ? `Your ${noun} to ${notice.name} sends in ${String(SEND_IN_SECONDS)} s.`
            : notice.text}
      </p>
      {notice?.kind === 'window' ? (
        <Button
          ref={undoButton}
          size="sm"
          isPending={undoPending}
          onPress={() => {
            onUndo(notice.id)
          }}
        >
          Undo
        </Button>
      ) : null}
    </div>
  )
}
