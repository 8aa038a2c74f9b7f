import { useQuery } from '@tanstack/react-query'
import { useId, useState, type ReactNode } from 'react'
import { Button } from '../../components/ui/button'
import { formatDateTime } from '../../lib/format'
import { contentKeys } from '../../lib/row-keys'
import { authQueries } from '../auth/auth-queries'
import { activityStyle } from '../leads/activity-display'
import { conversationOrder, messageState } from '../phone/sms-display'
import { attachmentHref, fileLabel, formatSize } from './email-attachments'
import {
  emailFrom,
  emailParts,
  emailTo,
  senderWarning,
  threadParticipants,
  threadSubject,
  type EmailPart,
} from './email-display'
import { safeEmailHtml } from './email-html'
import { useEmailStatus } from './email-mutations'
import type { EmailActivity, EmailAttachment } from './email-wire'

// A thread in the lead's timeline: collapsed to its subject, who is in it, how many emails and the newest one's
// start; opened, each email with its quoted text folded. Loaded when the first thread shows.

export interface EmailThreadProps {
  /** The thread's emails, in any order. */
  emails: readonly EmailActivity[]
  /** Opens the composer on a reply to this email. */
  onReply: (email: EmailActivity) => void
  /** Carries on with a draft in the composer. */
  onEditDraft: (email: EmailActivity) => void
}

const toneStyles = { plain: 'text-slate-500', pending: 'text-amber-800', error: 'text-red-700' } as const

export function EmailThread({ emails, onReply, onEditDraft }: EmailThreadProps) {
  const listId = useId()
  const [open, setOpen] = useState(false)
  const ordered = conversationOrder(emails)
  const latest = ordered.at(-1)
  const subject = threadSubject(ordered)
  const style = activityStyle('Email')
  const count = ordered.length === 1 ? '1 email' : `${String(ordered.length)} emails`
  const state = latest === undefined ? undefined : messageState(latest, formatDateTime)
  const unverified = ordered.some((email) => senderWarning(email) !== undefined)
  return (
    <article
      aria-label={`Email thread: ${subject}`}
      data-activity-type="Email"
      className={`rounded-md border border-l-4 border-slate-200 bg-white p-3 ${style.border}`}
    >
      <header className="flex flex-wrap items-center gap-2 text-xs text-slate-500">
        <span className={`rounded px-1.5 py-0.5 font-semibold ${style.badge}`}>{style.label}</span>
        <span className="font-medium text-slate-700">{threadParticipants(ordered).join(', ')}</span>
        <span>{count}</span>
        {unverified ? (
          <span className="rounded bg-amber-100 px-1.5 py-0.5 font-semibold text-amber-900">Unverified sender</span>
        ) : null}
        {latest === undefined ? null : <time dateTime={latest.activity_at}>{formatDateTime(latest.activity_at)}</time>}
      </header>
      <p className="mt-2 text-sm font-semibold text-slate-900">{subject}</p>
      {open || latest === undefined || state === undefined ? null : (
        <p className="mt-1 line-clamp-2 text-sm text-slate-700">
          <span className={`mr-1.5 text-xs ${toneStyles[state.tone]}`}>{state.label}</span>
          {latest.body_preview}
        </p>
      )}
      <ShowHideButton shown={open} controls={listId} setShown={setOpen} className="mt-1">
        {open ? 'Hide emails' : ordered.length === 1 ? 'Show email' : `Show ${count}`}
      </ShowHideButton>
      {open ? (
        <ol id={listId} aria-label={`Emails in ${subject}, oldest first`} className="mt-2 flex flex-col gap-3">
          {ordered.map((email) => (
            <li key={email.id} className="border-t border-slate-100 pt-3">
              <EmailItem email={email} onReply={onReply} onEditDraft={onEditDraft} />
            </li>
          ))}
        </ol>
      ) : null}
    </article>
  )
}

function EmailItem({
  email,
  onReply,
  onEditDraft,
}: {
  email: EmailActivity
  onReply: (email: EmailActivity) => void
  onEditDraft: (email: EmailActivity) => void
}) {
  const state = messageState(email, formatDateTime)
  const change = useEmailStatus(email.lead_id)
  const from = emailFrom(email)
  const warning = senderWarning(email)
  // Only an email's own user edits or sends it (the API refuses anyone else); taking it back to draft is anyone's.
  const session = useQuery(authQueries.session())
  const mine = session.data !== undefined && email.user_id === session.data.user.id
  // What one can do with the email now, if anything.
  const action =
    email.status === 'sent' || email.status === 'inbox'
      ? {
          label: 'Reply',
          isPending: false,
          run: () => {
            onReply(email)
          },
        }
      : email.status === 'draft' && mine
        ? {
            label: 'Edit draft',
            isPending: false,
            run: () => {
              onEditDraft(email)
            },
          }
        : email.status === 'scheduled' || (email.status === 'error' && mine)
          ? {
              label: email.status === 'error' ? 'Try again' : 'Unschedule',
              isPending: change.isPending,
              run: () => {
                change.mutate(email.status === 'error' ? { to: 'retry', email } : { to: 'draft', id: email.id })
              },
            }
          : undefined
  return (
    <article aria-label={`Email from ${from}`} className="flex flex-col gap-2 text-sm">
      <header className="flex flex-col gap-0.5 text-xs text-slate-500">
        <p className="flex flex-wrap items-center gap-x-1.5">
          <span className="font-medium text-slate-800">{from}</span>
          <span aria-hidden="true">·</span>
          <span className={toneStyles[state.tone]}>{state.label}</span>
          {state.at === undefined ? null : <time dateTime={state.at}>{formatDateTime(state.at)}</time>}
        </p>
        <p>To {emailTo(email) || 'no one yet'}</p>
      </header>
      {warning === undefined ? null : (
        <p role="note" className="rounded border border-amber-300 bg-amber-50 px-2 py-1 text-xs text-amber-900">
          {warning}
        </p>
      )}
      {keyedParts(email).map(([key, part]) => (
        <EmailPartView key={key} part={part} />
      ))}
      {email.attachments.length === 0 ? null : <AttachmentList files={email.attachments} />}
      <p className="flex flex-wrap gap-1.5">
        {action === undefined ? null : (
          <Button size="inline" variant="quiet" tone="accent" isPending={action.isPending} onPress={action.run}>
            {action.label}
          </Button>
        )}
      </p>
      {change.error === null ? null : (
        <p role="alert" className="text-xs text-red-700">
          That did not work: {change.error.message}
        </p>
      )}
    </article>
  )
}

/** An email's files, each a download link named after it, with its size. */
function AttachmentList({ files }: { files: readonly EmailAttachment[] }) {
  const keys = contentKeys(files.map((file) => `${file.url} ${file.filename}`))
  return (
    <ul aria-label="Attachments" className="flex flex-wrap gap-1.5">
      {files.map((file, i) => {
        const href = attachmentHref(file.url)
        const label = (
          <>
            {fileLabel(file)} <span className="text-xs text-slate-600">({formatSize(file.size)})</span>
          </>
        )
        return (
          <li key={keys[i]} className="rounded bg-slate-100 px-2 py-0.5 text-sm text-slate-800">
            {href === undefined ? (
              label
            ) : (
              <a href={href} download rel="noreferrer" className="text-indigo-700 underline hover:text-indigo-900">
                {label}
              </a>
            )}
          </li>
        )
      })}
    </ul>
  )
}

/** An email's parts, each keyed by what it holds, so that a part shown or folded stays so when the email changes. */
function keyedParts(email: EmailActivity): [string, EmailPart][] {
  const parts = emailParts(email)
  const keys = contentKeys(parts.map((part) => `${part.quoted ? 'quoted' : 'own'} ${part.html}`))
  return parts.map((part, i) => [keys[i] ?? String(i), part])
}

/** A piece of the body: its own words shown; quoted text behind a button. */
function EmailPartView({ part }: { part: EmailPart }) {
  const id = useId()
  const [shown, setShown] = useState(false)
  const body = (
    // Sanitized by DOMPurify (email-html.ts): only text formatting and links are left.
    <div id={id} className="email-body text-slate-800" dangerouslySetInnerHTML={{ __html: safeEmailHtml(part.html) }} />
  )
  if (!part.quoted) return body
  return (
    <div>
      <ShowHideButton shown={shown} controls={id} setShown={setShown}>
        {shown ? 'Hide quoted text' : 'Show quoted text'}
      </ShowHideButton>
      {shown ? body : null}
    </div>
  )
}

/** An inline button that shows or hides the element `controls` names, and says to assistive technology which it is. */
function ShowHideButton({
  shown,
  controls,
  setShown,
  className,
  children,
}: {
  shown: boolean
  controls: string
  setShown: (update: (shown: boolean) => boolean) => void
  className?: string
  children: ReactNode
}) {
  return (
    <Button
      size="inline"
      variant="quiet"
      tone="accent"
      className={className}
      aria-expanded={shown}
      aria-controls={shown ? controls : undefined}
      onPress={() => {
        setShown((s) => !s)
      }}
    >
      {children}
    </Button>
  )
}
