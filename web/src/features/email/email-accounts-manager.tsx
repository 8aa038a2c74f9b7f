import { useQuery, useSuspenseQuery } from '@tanstack/react-query'
import { useState, type SubmitEvent } from 'react'
import type { EmailAccountView } from '@leadline/shared/email-account-schema'
import { Button } from '../../components/ui/button'
import { CheckboxField } from '../../components/ui/checkbox-field'
import { ConfirmedMutationDelete } from '../../components/ui/confirmed-mutation-delete'
import { Dialog } from '../../components/ui/dialog'
import { FormActions } from '../../components/ui/form-actions'
import { SelectField } from '../../components/ui/select-field'
import { TextField } from '../../components/ui/text-field'
import { showToast } from '../../components/ui/toast'
import { isApiError } from '../../lib/api'
import { formatDateTime } from '../../lib/format'
import { placeErrors } from '../../lib/form-errors'
import { memberName, usersQueries } from '../settings/users-queries'
import {
  emailAccountQueries,
  useCreateEmailAccount,
  useDeleteEmailAccount,
  useResendVerification,
  useSendTestEmail,
  useUpdateEmailAccount,
  type EmailAccountInput,
  type TestSendAnswer,
} from './email-account-queries'

// One component for both places accounts are managed: Settings → Email accounts (an admin: every member's, and whose
// a new one is) and the Profile (anyone: their own only, `ownerId`).

/**
 * The accounts of the organization (no `ownerId`, an admin), or of `ownerId` only; each account's heading is at
 * `level` (under the screen's h1, or a section's h2).
 */
export function EmailAccountsManager({ ownerId, level = 2 }: { ownerId?: string; level?: 2 | 3 }) {
  const { data: accounts } = useSuspenseQuery(emailAccountQueries.list(ownerId))
  const members = useQuery({ ...usersQueries.members(), enabled: ownerId === undefined })
  const [adding, setAdding] = useState(false)
  const ownerName = (userId: string) => {
    const member = members.data?.find((m) => m.user_id === userId)
    return member === undefined ? undefined : memberName(member)
  }
  return (
    <div className="flex flex-col gap-4">
      <div>
        <Button
          variant="primary"
          onPress={() => {
            setAdding(true)
          }}
        >
          Add email account
        </Button>
      </div>
      {accounts.length === 0 ? (
        <p className="text-sm text-slate-500">
          {ownerId === undefined ? 'No one has an email account yet.' : 'You have no email account yet.'}
        </p>
      ) : (
        <ul aria-label="Email accounts" className="flex flex-col gap-3">
          {accounts.map((account) => (
            <li key={account.id}>
              <AccountCard
                level={level}
                account={account}
                owner={ownerId === undefined ? ownerName(account.user_id) : undefined}
                members={ownerId === undefined ? (members.data ?? []) : undefined}
              />
            </li>
          ))}
        </ul>
      )}
      {adding ? (
        <AccountDialog
          members={ownerId === undefined ? (members.data ?? []) : undefined}
          onClose={() => {
            setAdding(false)
          }}
        />
      ) : null}
    </div>
  )
}

type MemberOption = { user_id: string; first_name: string | null; last_name: string | null; email: string }

function AccountCard({
  level,
  account,
  owner,
  members,
}: {
  level: 2 | 3
  account: EmailAccountView
  owner: string | undefined
  members: readonly MemberOption[] | undefined
}) {
  const [editing, setEditing] = useState(false)
  const remove = useDeleteEmailAccount()
  const headingId = `email-account-${account.id}`
  const Heading = level === 2 ? 'h2' : 'h3'
  return (
    <article
      aria-labelledby={headingId}
      className="flex flex-col gap-3 rounded-lg border border-slate-200 bg-white p-4"
    >
      <div className="flex flex-wrap items-start justify-between gap-2">
        <div>
          <Heading id={headingId} className="font-semibold text-slate-900">
            {account.email}
          </Heading>
          <p className="text-sm text-slate-600">
            {owner === undefined ? null : <>Owner: {owner} · </>}
            SMTP {account.smtp.host}:{account.smtp.port} · {account.smtp.use_ssl ? 'TLS' : 'STARTTLS when offered'}
            {account.smtp.username === null ? ' · no login' : ` · user ${account.smtp.username}`}
          </p>
        </div>
        <div className="flex flex-wrap gap-2">
          <Button
            onPress={() => {
              setEditing(true)
            }}
          >
            Edit
          </Button>
          <ConfirmedMutationDelete
            label="Delete"
            title={`Delete the email account ${account.email}?`}
            mutation={remove}
            variables={account.id}
            failure="The account was not deleted"
          >
            Nothing more can be sent through it; emails already sent stay on their leads.
          </ConfirmedMutationDelete>
        </div>
      </div>
      {account.last_error === null ? null : (
        <p className="rounded-md border border-red-200 bg-red-50 p-2 text-sm text-red-800">
          Last sending error ({formatDateTime(account.last_error.date)}): {account.last_error.message}
        </p>
      )}
      <Identities account={account} level={level} />
      <SendTest account={account} />
      {editing ? (
        <AccountDialog
          account={account}
          members={members}
          onClose={() => {
            setEditing(false)
          }}
        />
      ) : null}
    </article>
  )
}

function Identities({ account, level }: { account: EmailAccountView; level: 2 | 3 }) {
  const resend = useResendVerification(account.id)
  const Heading = level === 2 ? 'h3' : 'h4'
  return (
    <div className="text-sm">
      <Heading className="font-medium text-slate-800">Sends as</Heading>
      <ul aria-label={`Addresses of ${account.email}`} className="mt-1 flex flex-col gap-1">
        {account.identities.map((identity) => (
          <li key={identity.email} className="flex flex-wrap items-center gap-2">
            <span>{identity.name === '' ? identity.email : `${identity.name} <${identity.email}>`}</span>
            <span className={identity.verified ? 'text-green-700' : 'text-amber-700'}>
              {identity.verified ? 'Verified' : 'Waiting for its link to be followed'}
            </span>
            {identity.verified ? null : (
              <Button
                size="sm"
                aria-label={`Resend verification to ${identity.email}`}
                isPending={resend.isPending && resend.variables === identity.email}
                onPress={() => {
                  resend.mutate(identity.email, {
                    onSuccess: () => {
                      showToast({ title: `A new link was emailed to ${identity.email}` })
                    },
                    onError: (error) => {
                      showToast({ title: 'The link was not sent', description: error.message, tone: 'error' })
                    },
                  })
                }}
              >
                Resend verification
              </Button>
            )}
          </li>
        ))}
      </ul>
    </div>
  )
}

function SendTest({ account }: { account: EmailAccountView }) {
  const send = useSendTestEmail(account.id)
  const [answer, setAnswer] = useState<TestSendAnswer | undefined>(undefined)
  return (
    <div className="flex flex-col items-start gap-2">
      <Button
        aria-label={`Send test email through ${account.email}`}
        isPending={send.isPending}
        onPress={() => {
          setAnswer(undefined)
          send.mutate(undefined, { onSuccess: setAnswer })
        }}
      >
        Send test email
      </Button>
      {answer?.ok === true ? (
        <p role="status" className="text-sm text-green-800">
          Sent to {account.email}. The server answered: {answer.response}
        </p>
      ) : null}
      {answer?.ok === false ? (
        <p role="alert" className="text-sm text-red-800">
          Not sent. {answer.error}
        </p>
      ) : null}
      {send.error === null ? null : (
        <p role="alert" className="text-sm text-red-800">
          {send.error.message}
        </p>
      )}
    </div>
  )
}

const FIELDS = ['user_id', 'email', 'identities', 'smtp.host', 'smtp.port', 'smtp.username', 'smtp.password'] as const

/** Adding an account, or changing `account`: its address, identities and SMTP server (a password is kept unless typed). */
function AccountDialog({
  account,
  members,
  onClose,
}: {
  account?: EmailAccountView
  members: readonly MemberOption[] | undefined
  onClose: () => void
}) {
  const create = useCreateEmailAccount()
  const update = useUpdateEmailAccount(account?.id ?? '')
  const save = account === undefined ? create : update
  const [userId, setUserId] = useState(account?.user_id ?? members?.[0]?.user_id ?? '')
  const [email, setEmail] = useState(account?.email ?? '')
  const [host, setHost] = useState(account?.smtp.host ?? '')
  const [port, setPort] = useState(String(account?.smtp.port ?? 465))
  const [username, setUsername] = useState(account?.smtp.username ?? '')
  const [password, setPassword] = useState('')
  const [useSsl, setUseSsl] = useState(account?.smtp.use_ssl ?? true)
  const [identities, setIdentities] = useState(
    (account?.identities ?? [])
      .filter((i) => i.email !== account?.email)
      .map(({ name, email: e }) => ({ name, email: e })),
  )
  const changed =
    <T,>(set: (value: T) => void) =>
    (value: T) => {
      set(value)
      save.reset()
    }
  const { beside, general } = placeErrors(FIELDS, save.error)
  const identityError = (index: number, field: 'name' | 'email') =>
    isApiError(save.error) ? save.error.fieldErrors[`identities.${String(index + 1)}.${field}`] : undefined
  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault()
    const own = account?.identities.find((i) => i.email === account.email)
    const body: EmailAccountInput = {
      ...(members === undefined ? {} : { user_id: userId }),
      email: email.trim(),
      // The account's own address first (its name kept), then the others.
      identities: [{ name: own?.name ?? '', email: email.trim() }, ...identities.filter((i) => i.email.trim() !== '')],
      smtp: {
        host: host.trim(),
        port: Number(port),
        username: username.trim() === '' ? null : username.trim(),
        ...(password === '' ? {} : { password }),
        use_ssl: useSsl,
      },
    }
    save.mutate(body, { onSuccess: onClose })
  }
  return (
    <Dialog
      title={account === undefined ? 'Add email account' : `Edit ${account.email}`}
      isOpen
      onOpenChange={(open) => {
        if (!open) onClose()
      }}
    >
      <form onSubmit={submit} className="flex flex-col gap-4" noValidate>
        {members === undefined ? null : (
          <SelectField
            label="Owner"
            value={userId}
            options={members.map((m) => ({ value: m.user_id, label: memberName(m) }))}
            onChange={changed(setUserId)}
            error={beside.user_id}
          />
        )}
        <TextField
          label="Email address"
          type="email"
          autoComplete="off"
          value={email}
          onChange={changed(setEmail)}
          isRequired
          error={beside.email}
        />
        <TextField label="SMTP host" value={host} onChange={changed(setHost)} isRequired error={beside['smtp.host']} />
        <TextField
          label="Port"
          inputMode="numeric"
          value={port}
          onChange={changed(setPort)}
          isRequired
          error={beside['smtp.port']}
        />
        <TextField
          label="User name"
          autoComplete="off"
          value={username}
          onChange={changed(setUsername)}
          error={beside['smtp.username']}
        />
        <TextField
          label="Password"
          type="password"
          autoComplete="new-password"
          value={password}
          onChange={changed(setPassword)}
          error={beside['smtp.password']}
          {...(account?.smtp.has_password === true ? { description: 'Leave blank to keep the one stored.' } : {})}
        />
        <CheckboxField
          label="TLS from the start (SMTPS, usually port 465)"
          description="Off: the connection is upgraded with STARTTLS when the server offers it."
          checked={useSsl}
          onChange={changed(setUseSsl)}
        />
        <fieldset className="flex flex-col gap-2">
          <legend className="text-sm font-medium text-slate-800">Other addresses to send as</legend>
          {identities.map((identity, index) => (
            <div key={index} className="flex flex-wrap items-end gap-2">
              <TextField
                label={`Name ${String(index + 1)}`}
                value={identity.name}
                onChange={changed((name: string) => {
                  setIdentities(identities.map((i, at) => (at === index ? { ...i, name } : i)))
                })}
                error={identityError(index, 'name')}
                className="w-40"
              />
              <TextField
                label={`Address ${String(index + 1)}`}
                type="email"
                value={identity.email}
                onChange={changed((address: string) => {
                  setIdentities(identities.map((i, at) => (at === index ? { ...i, email: address } : i)))
                })}
                error={identityError(index, 'email')}
                className="w-56"
              />
              <Button
                size="sm"
                aria-label={`Remove address ${String(index + 1)}`}
                onPress={() => {
                  setIdentities(identities.filter((_, at) => at !== index))
                  save.reset()
                }}
              >
                Remove
              </Button>
            </div>
          ))}
          <div>
            <Button
              size="sm"
              onPress={() => {
                setIdentities([...identities, { name: '', email: '' }])
              }}
            >
              Add address
            </Button>
          </div>
          {beside.identities === undefined ? null : <p className="text-sm text-red-700">{beside.identities}</p>}
        </fieldset>
        <FormActions
          error={general}
          submitLabel={account === undefined ? 'Add account' : 'Save'}
          isPending={save.isPending}
          onCancel={onClose}
        />
      </form>
    </Dialog>
  )
}
