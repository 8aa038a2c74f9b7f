import { useEffect, useRef, useState } from 'react'
import { formatDateTime } from '../../lib/format'
import { fromDateTimeLocalInput } from '../../lib/wall-clock'

// What the SMS and email composers share once a message is written: sending now or at a time, the undo window of a
// message just sent, and the sentence said under the form.

/** Seconds a message waits in the outbox after Send, so that Undo can still take it back. */
export const SEND_IN_SECONDS = 5

/** The undo window of the message `id` to `name`, or a sentence. */
export type SendNotice =
  { kind: 'window'; id: string; name: string } | { kind: 'said'; text: string; tone: 'plain' | 'error' }

/** A message as the API answers a send: scheduled ones carry their time. */
export interface SentMessage {
  id: string
  status: string
  date_scheduled: string | null
}

export type MessageSend = ReturnType<typeof useMessageSend>['sending']

/**
 * The send state of a composer: `noun` names the message in what is said ("Your email to Ann sends in 5 s.");
 * `messageBox` is for the element around the message's field, where the focus goes back to, and `undoButton` for Undo.
 */
export function useMessageSend(noun: 'email' | 'message') {
  const messageBox = useRef<HTMLDivElement>(null)
  const undoButton = useRef<HTMLButtonElement>(null)
  const [mode, setMode] = useState<'send' | 'schedule'>('send')
  const [sendAt, setSendAt] = useState('')
  const [notice, setNotice] = useState<SendNotice>()

  const focusMessage = () => {
    messageBox.current?.querySelector('textarea')?.focus()
  }

  // The window closes with the server's: after it, Undo could only fail. Focus on Undo moves back to the message.
  const windowId = notice?.kind === 'window' ? notice.id : undefined
  useEffect(() => {
    if (windowId === undefined) return
    const timer = setTimeout(() => {
      if (undoButton.current !== null && document.activeElement === undoButton.current) {
        messageBox.current?.querySelector('textarea')?.focus()
      }
      setNotice((n) => (n?.kind === 'window' && n.id === windowId ? undefined : n))
    }, SEND_IN_SECONDS * 1000)
    return () => {
      clearTimeout(timer)
    }
  }, [windowId])

  const say = (text: string, tone: 'plain' | 'error' = 'plain') => {
    setNotice({ kind: 'said', text, tone })
  }

  // Undo was done: it says `text`, and the focus goes back to the message.
  const undone = (text: string) => {
    say(text)
    focusMessage()
  }

  const sending = {
    noun,
    mode,
    sendAt,
    setSendAt,
    notice,
    focusMessage,
    say,
    toggleMode: () => {
      setMode((m) => (m === 'send' ? 'schedule' : 'send'))
    },
    /** The time to send at as the API takes it, '' when none is given. */
    scheduledAt: () => (sendAt === '' ? '' : fromDateTimeLocalInput(sendAt)),
    /** The message to `name` went out or was scheduled: the form is back to sending now, and says so. */
    sent: (message: SentMessage, name: string) => {
      setMode('send')
      setSendAt('')
      setNotice(
        message.status === 'scheduled' && message.date_scheduled !== null
          ? {
              kind: 'said',
              text: `Your ${noun} to ${name} is scheduled for ${formatDateTime(message.date_scheduled)}.`,
              tone: 'plain',
            }
          : { kind: 'window', id: message.id, name },
      )
    },
    /**
     * Undo made the message a draft again: it comes back to the form (`carryBack`), unless another is being written;
     * then it waits as a draft in its `place` (its thread, its conversation). Either way the form says which.
     */
    undoneAsDraft: (writing: boolean, carryBack: () => void, place: string) => {
      if (writing) {
        undone(`Not sent. It is kept as a draft in its ${place}.`)
        return
      }
      carryBack()
      undone(`Not sent. The ${noun} is back here as a draft.`)
    },
    undoFailed: (error: Error) => {
      say(`It could not be undone: ${error.message}`, 'error')
    },
  }
  return { sending, messageBox, undoButton }
}
