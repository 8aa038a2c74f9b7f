import type { Ref } from 'react'
import { Button } from '../../components/ui/button'
import { SEND_IN_SECONDS } from './sms-draft'

// What a composer (text or email) says under its form: the undo window of a message just sent, or a sentence. Shared
// by the SMS and email composers, both loaded on demand, so it travels in their chunks, never on a first visit.

/** The undo window of the message `id` to `name`, or a sentence. */
export type SendNotice =
  { kind: 'window'; id: string; name: string } | { kind: 'said'; text: string; tone: 'plain' | 'error' }

export interface SendNoticeBarProps {
  notice: SendNotice | undefined
  /** "message" or "email": "Your email to Ann sends in 5 s." */
  noun: string
  undoButton: Ref<HTMLButtonElement>
  undoPending: boolean
  onUndo: (id: string) => void
}

/** The live region with the notice, and Undo while a window is open. */
export function SendNoticeBar({ notice, noun, undoButton, undoPending, onUndo }: SendNoticeBarProps) {
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
