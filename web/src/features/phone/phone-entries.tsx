import { useQuery } from '@tanstack/react-query'
import { Button } from '../../components/ui/button'
import { formatDateTime, formatDuration } from '../../lib/format'
import { authQueries } from '../auth/auth-queries'
import { activityStyle } from '../leads/activity-display'
import { callHeadline, callParty, playableUrl, type CallActivity } from './call-display'
import { useSmsToDraft } from './phone-mutations'
import { phoneQueries } from './phone-queries'
import { conversationName, conversationOrder, messageState, type SmsActivity } from './sms-display'

// How calls and text messages show in the lead's timeline: one chunk, loaded when the first of either shows.

export function CallDetails({ call }: { call: CallActivity }) {
  const outcomes = useQuery(phoneQueries.outcomes())
  const outcome = call.outcome_id === null ? undefined : outcomes.data?.find((o) => o.id === call.outcome_id)
  const party = callParty(call)
  const recording = playableUrl(call.recording_url)
  const voicemail = playableUrl(call.voicemail_url)
  const facts = [
    callHeadline(call),
    outcome?.name,
    call.duration > 0 ? formatDuration(call.duration) : undefined,
  ].filter((fact) => fact !== undefined)
  return (
    <div className="flex flex-col gap-2">
      <p>
        <strong>{facts.join(' · ')}</strong>
        {party === undefined ? null : <span className="text-slate-600"> — {party}</span>}
      </p>
      {call.note === null || call.note === '' ? null : <p className="whitespace-pre-wrap">{call.note}</p>}
      {recording === undefined ? null : (
        <Player url={recording} label={`Recording of the call${party === undefined ? '' : ` with ${party}`}`} />
      )}
      {voicemail === undefined ? null : (
        <Player
          url={voicemail}
          label={`Voicemail${party === undefined ? '' : ` from ${party}`}${
            call.voicemail_duration > 0 ? `, ${formatDuration(call.voicemail_duration)}` : ''
          }`}
        />
      )}
    </div>
  )
}

function Player({ url, label }: { url: string; label: string }) {
  return (
    // eslint-disable-next-line jsx-a11y/media-has-caption -- a recorded call has no captions; its note says what it was about
    <audio controls preload="none" src={url} aria-label={label} className="w-full max-w-md" />
  )
}

export interface SmsConversationProps {
  /** The messages with one contact (or number), in any order. */
  messages: readonly SmsActivity[]
  /** Carries on with a draft in the composer. */
  onEditDraft: (message: SmsActivity) => void
}

const toneStyles = { plain: 'text-slate-500', pending: 'text-amber-800', error: 'text-red-700' } as const

export function SmsConversation({ messages, onEditDraft }: SmsConversationProps) {
  const ordered = conversationOrder(messages)
  const name = conversationName(messages)
  const newest = ordered.at(-1)
  const style = activityStyle('SMS')
  const phone = ordered.find((m) => m.remote_phone_formatted !== null)?.remote_phone_formatted
  return (
    <article
      aria-label={`Text messages with ${name}`}
      data-activity-type="SMS"
      className={`rounded-md border border-l-4 border-slate-200 bg-white p-3 ${style.border}`}
    >
      <header className="flex flex-wrap items-center gap-2 text-xs text-slate-500">
        <span className={`rounded px-1.5 py-0.5 font-semibold ${style.badge}`}>{style.label}</span>
        <span className="font-medium text-slate-700">{name}</span>
        {phone === undefined || phone === name ? null : <span>{phone}</span>}
        {newest === undefined ? null : <time dateTime={newest.activity_at}>{formatDateTime(newest.activity_at)}</time>}
      </header>
      <ol aria-label={`Messages with ${name}, oldest first`} className="mt-3 flex flex-col gap-3">
        {ordered.map((message) => (
          <li
            key={message.id}
            className={`flex flex-col gap-1 ${message.direction === 'inbound' ? 'items-start' : 'items-end'}`}
          >
            <Message message={message} name={name} onEditDraft={onEditDraft} />
          </li>
        ))}
      </ol>
    </article>
  )
}

/** Theirs on the left in grey, ours on the right in colour; a draft, not sent, only outlined. */
function bubbleStyle(message: SmsActivity): string {
  if (message.direction === 'inbound') return 'bg-slate-100 text-slate-900'
  return message.status === 'draft' ? 'border border-indigo-400 bg-white text-slate-900' : 'bg-indigo-600 text-white'
}

function Message({
  message,
  name,
  onEditDraft,
}: {
  message: SmsActivity
  name: string
  onEditDraft: (message: SmsActivity) => void
}) {
  const inbound = message.direction === 'inbound'
  const state = messageState(message, formatDateTime)
  const toDraft = useSmsToDraft(message.lead_id)
  // Only a text's own user edits its draft (the API refuses anyone else).
  const myId = useQuery(authQueries.session()).data?.user.id
  const attachments = message.attachments.filter((a) => playableUrl(a.url) !== undefined)
  return (
    <>
      <div className={`max-w-[85%] rounded-lg px-3 py-2 text-sm whitespace-pre-wrap ${bubbleStyle(message)}`}>
        {message.text}
        {attachments.length === 0 ? null : (
          <ul className="mt-1 flex flex-col gap-0.5">
            {attachments.map((a) => (
              <li key={a.url}>
                <a href={a.url} target="_blank" rel="noreferrer noopener" className="underline">
                  {a.filename === '' ? 'Attachment' : a.filename}
                </a>
              </li>
            ))}
          </ul>
        )}
      </div>
      <p className="flex flex-wrap items-center gap-x-1.5 text-xs text-slate-500">
        <span>{inbound ? name : (message.user_name ?? message.created_by_name ?? 'Someone')}</span>
        <span aria-hidden="true">·</span>
        <span className={toneStyles[state.tone]}>{state.label}</span>
        {state.at === undefined ? null : <time dateTime={state.at}>{formatDateTime(state.at)}</time>}
        {message.status === 'draft' && message.user_id === myId ? (
          <Button
            size="inline"
            variant="quiet"
            tone="accent"
            onPress={() => {
              onEditDraft(message)
            }}
          >
            Edit draft
          </Button>
        ) : message.status === 'scheduled' ? (
          <Button
            size="inline"
            variant="quiet"
            tone="accent"
            isPending={toDraft.isPending}
            onPress={() => {
              toDraft.mutate(message.id)
            }}
          >
            Unschedule
          </Button>
        ) : null}
      </p>
      {toDraft.error === null ? null : (
        <p role="alert" className="text-xs text-red-700">
          It could not be unscheduled: {toDraft.error.message}
        </p>
      )}
    </>
  )
}
