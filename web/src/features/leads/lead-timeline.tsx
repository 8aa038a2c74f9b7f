import { useQuery } from '@tanstack/react-query'
import { useNavigate } from '@tanstack/react-router'
import type { Activity } from '@leadline/shared/activity-schema'
import type { Lead } from '@leadline/shared/lead-schema'
import { lazy, Suspense, useRef, useState, type SubmitEvent } from 'react'
import { Button } from '../../components/ui/button'
import { Dialog } from '../../components/ui/dialog'
import { Skeleton, QueryErrorState } from '../../components/ui/feedback'
import { Panel } from '../../components/ui/panel'
import { TextField } from '../../components/ui/text-field'
import { formatDateTime } from '../../lib/format'
import { activityStyle, timelineItems, unknownActivityText } from './activity-display'
import { ACTIVITY_KINDS, type ActivityKind } from './activity-kinds'
import { leadQueries, useAddNote } from './lead-queries'
import { useCheckedText } from '../../lib/form-fields'

// Calls and texts load their code when first used or shown: the lead page's first visit stays inside its budget.
const CallForm = lazy(() => import('../phone/call-form').then((m) => ({ default: m.CallForm })))
const CallDetails = lazy(() => import('../phone/phone-entries').then((m) => ({ default: m.CallDetails })))
const SmsComposer = lazy(() => import('../phone/sms-composer').then((m) => ({ default: m.SmsComposer })))
const SmsConversation = lazy(() => import('../phone/phone-entries').then((m) => ({ default: m.SmsConversation })))
// Emails too (decision 0033).
const EmailComposer = lazy(() => import('../email/email-composer').then((m) => ({ default: m.EmailComposer })))
const EmailThread = lazy(() => import('../email/email-thread').then((m) => ({ default: m.EmailThread })))

type Sms = Extract<Activity, { _type: 'SMS' }>
type Email = Extract<Activity, { _type: 'Email' }>
const loading = <p className="text-sm text-slate-500">Loading…</p>

/**
 * The lead's activities, newest first as the API returns them (each contact's texts as one conversation, each
 * thread's emails as one entry), with the note composer, Log a call, the SMS and email composers and a filter by kind
 * on top.
 */
export function LeadTimeline({ lead, kind }: { lead: Lead; kind: ActivityKind | undefined }) {
  const leadId = lead.id
  const activities = useQuery(leadQueries.activities(leadId, kind))
  const [loggingCall, setLoggingCall] = useState(false)
  // The SMS composer: closed, open on a new message, or carrying on with a draft.
  const [composer, setComposer] = useState<{ draft?: Sms }>()
  const smsButton = useRef<HTMLButtonElement>(null)
  // The email composer: closed, or open on a new email, a reply or a draft.
  const [emailing, setEmailing] = useState<{ draft?: Email; replyTo?: Email }>()
  const emailButton = useRef<HTMLButtonElement>(null)
  return (
    <Panel
      title="Activity"
      actions={
        <div className="flex flex-wrap justify-end gap-2">
          <Button
            size="sm"
            onPress={() => {
              setLoggingCall(true)
            }}
          >
            Log a call
          </Button>
          <Button
            ref={smsButton}
            size="sm"
            aria-expanded={composer !== undefined}
            onPress={() => {
              setComposer((c) => c ?? {})
            }}
          >
            Send SMS
          </Button>
          <Button
            ref={emailButton}
            size="sm"
            aria-expanded={emailing !== undefined}
            onPress={() => {
              setEmailing((e) => e ?? {})
            }}
          >
            Send email
          </Button>
        </div>
      }
    >
      {composer === undefined ? null : (
        <Suspense fallback={loading}>
          <SmsComposer
            key={composer.draft?.id ?? 'new'}
            leadId={leadId}
            contacts={lead.contacts}
            draft={composer.draft}
            onClose={() => {
              setComposer(undefined)
              smsButton.current?.focus()
            }}
          />
        </Suspense>
      )}
      {emailing === undefined ? null : (
        <Suspense fallback={loading}>
          <EmailComposer
            key={emailing.draft?.id ?? emailing.replyTo?.id ?? 'new'}
            leadId={leadId}
            contacts={lead.contacts}
            draft={emailing.draft}
            replyTo={emailing.replyTo}
            onClose={() => {
              setEmailing(undefined)
              emailButton.current?.focus()
            }}
          />
        </Suspense>
      )}
      <NoteComposer leadId={leadId} />
      <KindFilter kind={kind} />
      <div className="mt-3">
        {activities.isPending ? (
          <div className="flex flex-col gap-3">
            <Skeleton className="h-16 w-full" />
            <Skeleton className="h-16 w-full" />
          </div>
        ) : activities.isError ? (
          <QueryErrorState title="The activity could not be loaded" query={activities} />
        ) : activities.data.data.length === 0 ? (
          <p className="text-sm text-slate-500">
            {ACTIVITY_KINDS.find((k) => k.kind === kind)?.empty ?? 'No activity yet.'}
          </p>
        ) : (
          <ol className="flex flex-col gap-3">
            {timelineItems(activities.data.data).map((item) => (
              <li key={item.key}>
                {'messages' in item ? (
                  <Suspense fallback={<Skeleton className="h-16 w-full" />}>
                    <SmsConversation
                      messages={item.messages}
                      onEditDraft={(draft) => {
                        setComposer({ draft })
                      }}
                    />
                  </Suspense>
                ) : 'emails' in item ? (
                  <Suspense fallback={<Skeleton className="h-16 w-full" />}>
                    <EmailThread
                      emails={item.emails}
                      onReply={(replyTo) => {
                        setEmailing({ replyTo })
                      }}
                      onEditDraft={(draft) => {
                        setEmailing({ draft })
                      }}
                    />
                  </Suspense>
                ) : (
                  <ActivityItem activity={item.activity} />
                )}
              </li>
            ))}
          </ol>
        )}
      </div>
      <Dialog title="Log a call" isOpen={loggingCall} onOpenChange={setLoggingCall} isDismissable={false}>
        <Suspense fallback={loading}>
          <CallForm
            leadId={leadId}
            contacts={lead.contacts}
            onDone={() => {
              setLoggingCall(false)
            }}
          />
        </Suspense>
      </Dialog>
    </Panel>
  )
}

const filterOptions = [{ kind: undefined, label: 'All' }, ...ACTIVITY_KINDS]

function KindFilter({ kind }: { kind: ActivityKind | undefined }) {
  const navigate = useNavigate({ from: '/leads/$leadId' })
  return (
    <div role="group" aria-label="Show" className="mt-5 flex flex-wrap gap-1.5">
      {filterOptions.map((option) => {
        const pressed = option.kind === kind
        return (
          <Button
            key={option.label}
            size="sm"
            variant={pressed ? 'primary' : 'secondary'}
            aria-pressed={pressed}
            onPress={() => {
              // A filter is not a page of its own: Back leaves the lead, and the page stays where it was scrolled.
              void navigate({
                search: (prev) => ({ ...prev, activity: option.kind }),
                replace: true,
                resetScroll: false,
              })
            }}
          >
            {option.label}
          </Button>
        )
      })}
    </div>
  )
}

function NoteComposer({ leadId }: { leadId: string }) {
  const note = useCheckedText()
  const addNote = useAddNote(leadId)
  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault()
    if (note.value.trim() === '') {
      note.setError('Write something first.')
      return
    }
    addNote.mutate(note.value, {
      onSuccess: () => {
        note.setValue('')
      },
    })
  }
  return (
    <form onSubmit={submit} noValidate className="flex flex-col gap-2">
      <TextField label="Note" multiline rows={3} {...note.field} placeholder="A meeting, a thought, what was agreed…" />
      <div className="flex justify-end">
        <Button type="submit" variant="primary" size="sm" isPending={addNote.isPending}>
          Save note
        </Button>
      </div>
    </form>
  )
}

function ActivityItem({ activity }: { activity: Activity }) {
  const style = activityStyle(activity._type)
  const who = activity.user_name ?? activity.created_by_name ?? 'Someone'
  return (
    <article
      aria-label={`${style.label} by ${who}`}
      data-activity-type={activity._type}
      className={`rounded-md border border-l-4 border-slate-200 bg-white p-3 ${style.border}`}
    >
      <header className="flex flex-wrap items-center gap-2 text-xs text-slate-500">
        <span className={`rounded px-1.5 py-0.5 font-semibold ${style.badge}`}>{style.label}</span>
        <span className="font-medium text-slate-700">{who}</span>
        <time dateTime={activity.date_created}>{formatDateTime(activity.date_created)}</time>
      </header>
      <div className="mt-2 text-sm text-slate-800">
        <ActivityBody activity={activity} who={who} />
      </div>
    </article>
  )
}

function ActivityBody({ activity, who }: { activity: Activity; who: string }) {
  // The API may send types this build does not know yet (Call, Email…); they fall to the default below.
  const unknown: Record<string, unknown> = activity
  switch (activity._type) {
    case 'Created':
      return (
        <p>
          {who} created this lead{activity.source === 'api' ? ' through the API' : ''}.
        </p>
      )
    case 'Note':
      return <p className="whitespace-pre-wrap">{activity.note}</p>
    case 'LeadStatusChange':
      return (
        <p>
          Status changed
          {activity.old_status_label === null ? null : (
            <>
              {' '}
              from <strong>{activity.old_status_label}</strong>
            </>
          )}{' '}
          to <strong>{activity.new_status_label}</strong>.
        </p>
      )
    case 'OpportunityStatusChange':
      return (
        <p>
          {activity.old_status_label === null ? 'Opportunity created in ' : 'Opportunity moved '}
          {activity.old_status_label === null ? null : (
            <>
              from <strong>{activity.old_status_label}</strong> to{' '}
            </>
          )}
          <strong>{activity.new_status_label}</strong>
          {activity.opportunity_value_formatted === null ? '' : ` (${activity.opportunity_value_formatted})`}.
        </p>
      )
    case 'Call':
      return (
        <Suspense fallback={loading}>
          <CallDetails call={activity} />
        </Suspense>
      )
    case 'TaskCompleted':
      return (
        <p className="whitespace-pre-wrap">
          {who} completed the task{activity.task_text === '' ? '.' : ':'}{' '}
          {activity.task_text === '' ? null : <strong>{activity.task_text}</strong>}
        </p>
      )
    default:
      return (
        <p className="whitespace-pre-wrap">
          {unknownActivityText(unknown) ?? <span className="text-slate-500">No details to show here.</span>}
        </p>
      )
  }
}
