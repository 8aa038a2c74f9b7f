import { useQuery, useSuspenseQuery } from '@tanstack/react-query'
import { useId, useState, type SubmitEvent } from 'react'
import type { WebhookDeliveryAttempt, WebhookDeliveryState, WebhookSubscription } from '@leadline/shared/webhook-schema'
import { Button } from '../../components/ui/button'
import { CardSection } from '../../components/ui/card-section'
import { CheckboxField } from '../../components/ui/checkbox-field'
import { ConfirmedMutationDelete } from '../../components/ui/confirmed-mutation-delete'
import { Dialog } from '../../components/ui/dialog'
import { FieldErrorText } from '../../components/ui/field-error-text'
import { FormActions } from '../../components/ui/form-actions'
import { SelectField } from '../../components/ui/select-field'
import { TextField } from '../../components/ui/text-field'
import { showToast } from '../../components/ui/toast'
import { formatDateTime } from '../../lib/format'
import { useFormValue } from '../../lib/form-value'
import { settingsPage, SettingsScreen } from './settings-layout'
import { SettingsTable } from './settings-table'
import { eventsSummary, filterSummary, placeWebhookErrors, readFilterText } from './webhook-form-text'
import {
  useCreateWebhook,
  useDeleteWebhook,
  useRedeliver,
  useSendTestEvent,
  useSetWebhookStatus,
} from './webhooks-mutations'
import { webhooksQueries } from './webhooks-queries'

/** The object types of the event log a subscription may ask for (the API checks the list). */
const OBJECT_TYPES = [
  'lead',
  'contact',
  'opportunity',
  'task.lead',
  'activity.note',
  'activity.call',
  'activity.email',
  'activity.sms',
  'activity.lead_status_change',
  'activity.opportunity_status_change',
  'status.lead',
  'status.opportunity',
  'pipeline',
  'outcome',
] as const
const ACTIONS = ['created', 'updated', 'deleted', 'merged', 'completed', 'sent'] as const

const STATE_LABELS: Record<WebhookDeliveryState, string> = {
  pending: 'Pending',
  retrying: 'Retrying',
  paused: 'Waiting (paused)',
  delivered: 'Delivered',
  failed: 'Failed',
  cancelled: 'Cancelled',
}

const cell = 'px-3 py-2 align-middle'

const FILTER_HINT =
  'Optional, in Close\'s filter language. Leads won: {"type": "field_accessor", "field": "data", "filter": {"type": "field_accessor", "field": "status_label", "filter": {"type": "equals", "value": "Won"}}}'

/** The organization's webhook subscriptions, each with its delivery log (admins only). */
export const WebhooksPage = settingsPage(WebhooksPageContent)

interface Created {
  url: string
  key: string
}

function WebhooksPageContent() {
  const [adding, setAdding] = useState(false)
  const [created, setCreated] = useState<Created | undefined>(undefined)
  const [logOf, setLogOf] = useState<WebhookSubscription | undefined>(undefined)
  return (
    <SettingsScreen
      title="Webhooks"
      description="Leadline POSTs the events you choose to these URLs, signed with each subscription's key, and retries for 72 hours when they fail."
      actions={
        <Button
          variant="primary"
          onPress={() => {
            setAdding(true)
          }}
        >
          Add webhook
        </Button>
      }
    >
      <SubscriptionsTable onShowLog={setLogOf} />
      <AddWebhookDialog
        isOpen={adding}
        onClose={() => {
          setAdding(false)
        }}
        onCreated={setCreated}
      />
      {created === undefined ? null : (
        <SignatureKeyDialog
          created={created}
          onClose={() => {
            setCreated(undefined)
          }}
        />
      )}
      {logOf === undefined ? null : (
        <DeliveryLogDialog
          subscription={logOf}
          onClose={() => {
            setLogOf(undefined)
          }}
        />
      )}
    </SettingsScreen>
  )
}

function SubscriptionsTable({ onShowLog }: { onShowLog: (subscription: WebhookSubscription) => void }) {
  const { data: subscriptions } = useSuspenseQuery(webhooksQueries.subscriptions())
  return (
    <CardSection headingId="webhooks-heading" title="Subscriptions">
      <SettingsTable
        labelledBy="webhooks-heading"
        columns={['URL', 'Events', 'Status', 'Filter']}
        rows={subscriptions}
        ifNone="No webhooks yet: add one to send events to another system."
      >
        {(subscription) => <SubscriptionRow key={subscription.id} subscription={subscription} onShowLog={onShowLog} />}
      </SettingsTable>
    </CardSection>
  )
}

function SubscriptionRow({
  subscription,
  onShowLog,
}: {
  subscription: WebhookSubscription
  onShowLog: (subscription: WebhookSubscription) => void
}) {
  const setStatus = useSetWebhookStatus()
  const remove = useDeleteWebhook()
  const paused = subscription.status === 'paused'
  const refused = (what: string) => (error: Error) => {
    showToast({ title: `The webhook was not ${what}`, description: error.message, tone: 'error' })
  }
  return (
    <tr>
      <th scope="row" className={`${cell} font-medium break-all text-slate-900`}>
        {subscription.url}
      </th>
      <td className={cell}>{eventsSummary(subscription.events)}</td>
      <td className={cell}>
        {paused ? 'Paused' : 'Active'}
        {subscription.status_reason === null ? null : (
          <span className="block text-xs text-slate-500">{subscription.status_reason}</span>
        )}
      </td>
      <td className={cell}>{filterSummary(subscription.events)}</td>
      <td className={`${cell} text-right whitespace-nowrap`}>
        <div className="inline-flex gap-2">
          <Button
            onPress={() => {
              onShowLog(subscription)
            }}
          >
            Deliveries
          </Button>
          <Button
            isPending={setStatus.isPending}
            onPress={() => {
              setStatus.mutate(
                { id: subscription.id, status: paused ? 'active' : 'paused' },
                { onError: refused(paused ? 'resumed' : 'paused') },
              )
            }}
          >
            {paused ? 'Resume' : 'Pause'}
          </Button>
          <ConfirmedMutationDelete
            label="Delete"
            title={`Delete the webhook to ${subscription.url}?`}
            mutation={remove}
            variables={subscription.id}
            failure="The webhook was not deleted"
            closeOnError
          >
            Its deliveries not yet made are cancelled. Its log goes with it.
          </ConfirmedMutationDelete>
        </div>
      </td>
    </tr>
  )
}

function AddWebhookDialog({
  isOpen,
  onClose,
  onCreated,
}: {
  isOpen: boolean
  onClose: () => void
  onCreated: (created: Created) => void
}) {
  const create = useCreateWebhook()
  const url = useFormValue('', create)
  const filterText = useFormValue('', create)
  const [objectType, setObjectType] = useState<string>('lead')
  const [actions, setActions] = useState<ReadonlySet<string>>(new Set())
  const [noActions, setNoActions] = useState(false)
  const actionsId = useId()
  const close = () => {
    url.setValue('')
    filterText.setValue('')
    setObjectType('lead')
    setActions(new Set())
    setNoActions(false)
    create.reset()
    onClose()
  }
  const filter = readFilterText(filterText.value)
  const { beside, general } = placeWebhookErrors(create.error)
  const actionsError = noActions ? 'Choose at least one action.' : beside.actions
  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault()
    if (actions.size === 0) {
      setNoActions(true)
      return
    }
    if (filter.kind === 'problem') return
    const extraFilter = filter.kind === 'filter' ? filter.filter : null
    create.mutate(
      {
        url: url.value.trim(),
        events: ACTIONS.filter((a) => actions.has(a)).map((action) => ({
          object_type: objectType,
          action,
          extra_filter: extraFilter,
        })),
      },
      {
        onSuccess: (made) => {
          close()
          onCreated({ url: made.url, key: made.signature_key })
        },
      },
    )
  }
  return (
    <Dialog
      title="Add webhook"
      size="lg"
      isOpen={isOpen}
      onOpenChange={(open) => {
        if (!open) close()
      }}
      isDismissable={url.value === '' && filterText.value === ''}
    >
      <form onSubmit={submit} className="flex flex-col gap-4" noValidate>
        <TextField
          label="URL"
          type="url"
          autoComplete="off"
          autoFocus
          {...url.field}
          isRequired
          error={beside.url}
          description="An https address that accepts POST requests."
        />
        <SelectField
          label="Object type"
          value={objectType}
          options={OBJECT_TYPES.map((type) => ({ value: type, label: type }))}
          onChange={(value) => {
            setObjectType(value)
            create.reset()
          }}
          error={beside.object_type}
        />
        <fieldset
          className="flex flex-col gap-2"
          aria-describedby={actionsError === undefined ? undefined : `${actionsId}-error`}
        >
          <legend className="mb-1 text-sm font-medium text-slate-700">Actions</legend>
          <div className="flex flex-wrap gap-x-4 gap-y-2">
            {ACTIONS.map((action) => (
              <CheckboxField
                key={action}
                label={action}
                checked={actions.has(action)}
                onChange={(checked) => {
                  const next = new Set(actions)
                  if (checked) next.add(action)
                  else next.delete(action)
                  setActions(next)
                  setNoActions(false)
                  create.reset()
                }}
              />
            ))}
          </div>
          <FieldErrorText id={`${actionsId}-error`} error={actionsError} />
        </fieldset>
        <TextField
          label="Filter (JSON)"
          multiline
          rows={6}
          {...filterText.field}
          error={filter.kind === 'problem' ? filter.problem : beside.filter}
          description={FILTER_HINT}
        />
        <p aria-live="polite" className="text-sm text-slate-700">
          {filter.kind === 'filter'
            ? `Matches: ${filter.words}`
            : filter.kind === 'none'
              ? 'No filter: every event of the chosen kinds.'
              : ''}
        </p>
        <FormActions error={general} submitLabel="Save webhook" isPending={create.isPending} onCancel={close} />
      </form>
    </Dialog>
  )
}

/** The only time a subscription's signature key is shown: with a copy button, and said plainly. */
function SignatureKeyDialog({ created, onClose }: { created: Created; onClose: () => void }) {
  const [copied, setCopied] = useState(false)
  return (
    <Dialog
      title="Signature key"
      isOpen
      isDismissable={false}
      onOpenChange={(open) => {
        if (!open) onClose()
      }}
    >
      <p className="text-sm text-slate-700">
        The webhook to <span className="break-all">{created.url}</span> was added. Copy its signature key now: it will
        not be shown again. Your receiver uses it to check that a request came from Leadline.
      </p>
      <code
        aria-label="Signature key"
        className="rounded bg-slate-100 px-2 py-1 font-mono text-xs break-all text-slate-900"
      >
        {created.key}
      </code>
      <div className="flex justify-end gap-2">
        <Button
          onPress={() => {
            void navigator.clipboard.writeText(created.key).then(() => {
              setCopied(true)
            })
          }}
        >
          {copied ? 'Copied' : 'Copy'}
        </Button>
        <Button variant="primary" onPress={onClose}>
          Done
        </Button>
      </div>
    </Dialog>
  )
}

function DeliveryLogDialog({ subscription, onClose }: { subscription: WebhookSubscription; onClose: () => void }) {
  const title = `Deliveries of ${subscription.url}`
  const sendTest = useSendTestEvent()
  return (
    <Dialog
      title={title}
      size="lg"
      isOpen
      onOpenChange={(open) => {
        if (!open) onClose()
      }}
    >
      <div className="flex flex-wrap items-center gap-3">
        <Button
          isPending={sendTest.isPending}
          onPress={() => {
            sendTest.mutate(subscription.id, {
              onSuccess: () => {
                showToast({ title: 'Test event queued', description: 'It shows here once it has gone out.' })
              },
              onError: (error) => {
                showToast({ title: 'The test event was not sent', description: error.message, tone: 'error' })
              },
            })
          }}
        >
          Send test event
        </Button>
        <p className="text-xs text-slate-500">The log refreshes every few seconds while it is open.</p>
      </div>
      <DeliveryLog subscription={subscription} label={title} />
      <div className="flex justify-end">
        <Button onPress={onClose}>Close</Button>
      </div>
    </Dialog>
  )
}

function DeliveryLog({ subscription, label }: { subscription: WebhookSubscription; label: string }) {
  const log = useQuery(webhooksQueries.deliveries(subscription.id))
  if (log.error !== null && log.data === undefined)
    return (
      <p role="alert" className="text-sm text-red-700">
        {log.error.message}
      </p>
    )
  if (log.data === undefined) return <p className="text-sm text-slate-500">Loading deliveries…</p>
  return (
    <SettingsTable
      label={label}
      className="max-h-[50vh] overflow-auto"
      columns={['Time', 'Event', 'Status', 'Attempts', 'Response', 'Next retry']}
      rows={log.data}
      ifNone="Nothing delivered yet. Send a test event to try the URL."
    >
      {(entry) => <DeliveryRow key={entry.delivery_id} entry={entry} subscriptionId={subscription.id} />}
    </SettingsTable>
  )
}

function DeliveryRow({ entry, subscriptionId }: { entry: WebhookDeliveryAttempt; subscriptionId: string }) {
  const redeliver = useRedeliver()
  const event = entry.object_type === null ? 'Unknown' : `${entry.object_type} ${entry.action ?? ''}`.trim()
  return (
    <tr>
      <th scope="row" className={`${cell} font-normal whitespace-nowrap text-slate-900`}>
        {formatDateTime(entry.date_created)}
      </th>
      <td className={cell}>{event}</td>
      <td className={cell}>{entry.delivery_state === null ? 'Purged' : STATE_LABELS[entry.delivery_state]}</td>
      <td className={cell}>{entry.delivery_attempts ?? entry.attempt}</td>
      <td className={cell}>
        {entry.status_code === null ? 'No answer' : entry.status_code}
        {entry.error === null ? null : <span className="block text-xs text-slate-500">{entry.error}</span>}
      </td>
      <td className={cell}>{entry.next_attempt_at === null ? '—' : formatDateTime(entry.next_attempt_at)}</td>
      <td className={`${cell} text-right`}>
        <Button
          size="sm"
          isPending={redeliver.isPending}
          onPress={() => {
            redeliver.mutate(
              { id: subscriptionId, deliveryId: entry.delivery_id },
              {
                onSuccess: () => {
                  showToast({ title: 'Queued for delivery again', description: 'It shows here as a new delivery.' })
                },
                onError: (error) => {
                  showToast({ title: 'Not redelivered', description: error.message, tone: 'error' })
                },
              },
            )
          }}
        >
          Redeliver
        </Button>
      </td>
    </tr>
  )
}
