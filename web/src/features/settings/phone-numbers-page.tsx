import { useQuery, useSuspenseQuery } from '@tanstack/react-query'
import { PHONE_NUMBER_TYPES, type PhoneNumber } from '@leadline/shared/phone-number-schema'
import { useState, type SubmitEvent } from 'react'
import { Button } from '../../components/ui/button'
import { CardSection } from '../../components/ui/card-section'
import { ConfirmedMutationDelete } from '../../components/ui/confirmed-mutation-delete'
import { ConfirmedDelete, Dialog } from '../../components/ui/dialog'
import { FormActions } from '../../components/ui/form-actions'
import { SelectField } from '../../components/ui/select-field'
import { TextField } from '../../components/ui/text-field'
import { showToast } from '../../components/ui/toast'
import { formatDateTime } from '../../lib/format'
import { placeErrors } from '../../lib/form-errors'
import { authQueries } from '../auth/auth-queries'
import { setupQueries } from '../leads/lead-queries'
import { SmsGatewayFacts } from './organization-environment'
import {
  useDeletePhoneNumber,
  useRotateInboundSecret,
  useSavePhoneNumber,
  type PhoneNumberBody,
} from './organization-mutations'
import { organizationQueries, phoneNumberQueries } from './organization-queries'
import { settingsPage, SettingsScreen } from './settings-layout'
import { SettingsTable } from './settings-table'

const cell = 'px-3 py-2 align-middle'

const TYPE_LABELS: Record<PhoneNumber['type'], string> = {
  internal: 'Internal: texts and calls',
  external: 'External',
  virtual: 'Virtual',
}
const TYPE_OPTIONS = PHONE_NUMBER_TYPES.map((value) => ({ value, label: TYPE_LABELS[value] }))
const typeOf = (value: string): PhoneNumber['type'] => PHONE_NUMBER_TYPES.find((t) => t === value) ?? 'internal'

/** The organization's own numbers, the SMS gateway texts go through, and the secret the telephony side signs with. */
export const PhoneNumbersPage = settingsPage(PhoneNumbersPageContent)

function PhoneNumbersPageContent() {
  const { data: session } = useSuspenseQuery(authQueries.session())
  const { data: numbers } = useSuspenseQuery(phoneNumberQueries.list())
  const { data: environment } = useSuspenseQuery(organizationQueries.environment(session.organization.id))
  const [editing, setEditing] = useState<PhoneNumber | 'new' | undefined>(undefined)
  return (
    <SettingsScreen
      title="Phone numbers"
      description="Your organization’s numbers for texts and calls. Texts are sent from internal numbers only."
      actions={
        <Button
          variant="primary"
          onPress={() => {
            setEditing('new')
          }}
        >
          Add phone number
        </Button>
      }
    >
      <NumbersTable numbers={numbers} onEdit={setEditing} />
      <CardSection headingId="sms-gateway" title="Texts">
        <p className="text-sm text-slate-600">The server’s operator sets the gateway in its environment.</p>
        <SmsGatewayFacts environment={environment} />
      </CardSection>
      <InboundSecretSection />
      {editing === undefined ? null : (
        <PhoneNumberDialog
          phoneNumber={editing === 'new' ? undefined : editing}
          onClose={() => {
            setEditing(undefined)
          }}
        />
      )}
    </SettingsScreen>
  )
}

function NumbersTable({ numbers, onEdit }: { numbers: PhoneNumber[]; onEdit: (phoneNumber: PhoneNumber) => void }) {
  const { data: members } = useSuspenseQuery(setupQueries.members())
  const nameOf = (userId: string | null) =>
    userId === null ? 'Everyone' : (members.find((m) => m.id === userId)?.display_name ?? 'A former member')
  return (
    <SettingsTable
      label="Phone numbers"
      framed
      ifNone="The organization has no phone numbers yet."
      columns={['Number', 'Label', 'Type', 'User']}
      rows={numbers}
    >
      {(phoneNumber) => (
        <tr key={phoneNumber.id}>
          <th scope="row" className={`${cell} font-medium whitespace-nowrap text-slate-900`}>
            {phoneNumber.number_formatted}
          </th>
          <td className={cell}>{phoneNumber.label ?? '—'}</td>
          <td className={cell}>{TYPE_LABELS[phoneNumber.type]}</td>
          <td className={cell}>{nameOf(phoneNumber.user_id)}</td>
          <td className={`${cell} text-right`}>
            <div className="flex justify-end gap-2">
              <Button
                size="sm"
                onPress={() => {
                  onEdit(phoneNumber)
                }}
              >
                Edit<span className="sr-only"> {phoneNumber.number_formatted}</span>
              </Button>
              <DeletePhoneNumber phoneNumber={phoneNumber} />
            </div>
          </td>
        </tr>
      )}
    </SettingsTable>
  )
}

function DeletePhoneNumber({ phoneNumber }: { phoneNumber: PhoneNumber }) {
  const remove = useDeletePhoneNumber()
  return (
    <ConfirmedMutationDelete
      label="Delete"
      title={`Delete ${phoneNumber.number_formatted}?`}
      mutation={remove}
      variables={phoneNumber.id}
      failure="The number was not deleted"
      closeOnError
    >
      Texts can no longer be sent from {phoneNumber.number_formatted}. Calls and texts already logged keep it.
    </ConfirmedMutationDelete>
  )
}

function PhoneNumberDialog({ phoneNumber, onClose }: { phoneNumber: PhoneNumber | undefined; onClose: () => void }) {
  const save = useSavePhoneNumber()
  const { data: members } = useSuspenseQuery(setupQueries.members())
  const [number, setNumber] = useState('')
  const [label, setLabel] = useState(phoneNumber?.label ?? '')
  const [type, setType] = useState<PhoneNumber['type']>(phoneNumber?.type ?? 'internal')
  const [userId, setUserId] = useState(phoneNumber?.user_id ?? '')
  const adding = phoneNumber === undefined
  const { beside, general } = placeErrors(['number', 'label', 'type', 'user_id'], save.error)
  const edit =
    <V,>(set: (value: V) => void) =>
    (value: V) => {
      set(value)
      save.reset()
    }
  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault()
    const body: PhoneNumberBody = {
      ...(adding ? { number: number.trim() } : {}),
      label: label.trim() === '' ? null : label.trim(),
      type,
      user_id: userId === '' ? null : userId,
    }
    save.mutate(
      { id: phoneNumber?.id, body },
      {
        onSuccess: (saved) => {
          onClose()
          showToast({ title: `${saved.number_formatted} ${adding ? 'added' : 'saved'}` })
        },
      },
    )
  }
  return (
    <Dialog
      title={adding ? 'Add phone number' : `Edit ${phoneNumber.number_formatted}`}
      isOpen
      onOpenChange={(open) => {
        if (!open) onClose()
      }}
    >
      <form onSubmit={submit} className="flex flex-col gap-4" noValidate>
        {adding ? (
          <TextField
            label="Number"
            type="tel"
            autoComplete="off"
            autoFocus
            value={number}
            onChange={edit(setNumber)}
            isRequired
            error={beside.number}
            description="As dialled in your organization’s country, or international with +."
          />
        ) : null}
        <TextField
          label="Label"
          value={label}
          onChange={edit(setLabel)}
          error={beside.label}
          autoFocus={!adding}
          description="What the team calls it, such as Sales line."
        />
        <SelectField
          label="Type"
          value={type}
          options={TYPE_OPTIONS}
          onChange={edit((v: string) => {
            setType(typeOf(v))
          })}
          error={beside.type}
        />
        <SelectField
          label="User"
          value={userId}
          emptyLabel="Everyone"
          options={members.map((m) => ({ value: m.id, label: m.display_name }))}
          onChange={edit(setUserId)}
          error={beside.user_id}
        />
        <FormActions
          error={general}
          submitLabel={adding ? 'Add phone number' : 'Save phone number'}
          isPending={save.isPending}
          onCancel={onClose}
        />
      </form>
    </Dialog>
  )
}

/** The secret the telephony side signs its reports of calls and texts with: shown on request, rotated after asking. */
function InboundSecretSection() {
  const [shown, setShown] = useState(false)
  const secret = useQuery({ ...phoneNumberQueries.inboundSecret(), enabled: shown })
  const rotate = useRotateInboundSecret()
  return (
    <CardSection headingId="inbound-secret" title="Inbound secret">
      <p className="text-sm text-slate-600">
        Your telephony provider signs its reports of incoming calls and texts with this secret. Keep it private; rotate
        it if it may have leaked.
      </p>
      {shown && secret.data !== undefined ? (
        <div className="flex flex-col gap-1">
          <code
            aria-label="Inbound secret"
            className="w-fit rounded bg-slate-100 px-2 py-1 font-mono text-xs break-all text-slate-900"
          >
            {secret.data.secret}
          </code>
          <p className="text-xs text-slate-500">Made {formatDateTime(secret.data.date_created)}</p>
        </div>
      ) : null}
      {secret.error === null ? null : (
        <p role="alert" className="text-sm text-red-700">
          {secret.error.message}
        </p>
      )}
      <div className="flex flex-wrap gap-2">
        {shown ? (
          <Button
            onPress={() => {
              setShown(false)
            }}
          >
            Hide
          </Button>
        ) : (
          <Button
            isPending={secret.isFetching}
            onPress={() => {
              setShown(true)
            }}
          >
            Show
          </Button>
        )}
        <ConfirmedDelete
          label="Rotate"
          confirmLabel="Rotate"
          title="Rotate the inbound secret?"
          isPending={rotate.isPending}
          onConfirm={(close) => {
            rotate.mutate(undefined, {
              onSuccess: () => {
                setShown(true)
                close()
                showToast({
                  title: 'The inbound secret was rotated',
                  description: 'Give the new one to your provider.',
                })
              },
              onError: close,
            })
          }}
        >
          Reports signed with the current secret are refused from now on, until your telephony provider has the new one.
        </ConfirmedDelete>
      </div>
    </CardSection>
  )
}
