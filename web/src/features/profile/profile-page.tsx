import { useSuspenseQuery } from '@tanstack/react-query'
import { useState, type SubmitEvent } from 'react'
import { Button } from '../../components/ui/button'
import { TextField } from '../../components/ui/text-field'
import { showToast } from '../../components/ui/toast'
import { placeErrors } from '../../lib/form-errors'
import { useDocumentTitle } from '../../lib/document-title'
import { formatDateTime } from '../../lib/format'
import { authQueries } from '../auth/auth-queries'
import { apiKeyName, NewApiKeyForm, RevokeApiKeyButton } from './api-key-parts'
import { useChangePassword, useSaveName, useSignOutOthers } from './profile-mutations'
import { profileQueries, type ApiKey } from './profile-queries'
import { twoFactorQueries } from './two-factor'
import { TimeZoneSection } from './time-zone-section'
import { TwoFactorSection } from './two-factor-section'

const section = 'flex flex-col gap-4 rounded-lg border border-slate-200 bg-white p-5'

/**
 * The signed-in person's own settings: password, two-factor sign-in, sessions and API keys. Anyone may open it, admin
 * or not. Until someone turns on two-factor their organization requires, their API keys are not theirs to see.
 */
export function ProfilePage() {
  useDocumentTitle('Profile', 'Settings')
  const { data: session } = useSuspenseQuery(authQueries.session())
  const { data: twoFactor } = useSuspenseQuery(twoFactorQueries.state())
  return (
    <div className="mx-auto flex max-w-3xl flex-col gap-6">
      <div className="flex flex-col gap-1">
        <h1 className="text-2xl font-bold text-slate-900">Profile</h1>
        <p className="text-sm text-slate-600">
          {session.user.display_name} · {session.user.email} · {session.organization.name}
        </p>
      </div>
      <NameSection firstName={session.user.first_name ?? ''} lastName={session.user.last_name ?? ''} />
      <TimeZoneSection className={section} />
      <PasswordSection />
      <TwoFactorSection />
      <SessionsSection />
      {twoFactor.required && !twoFactor.enabled ? null : <ApiKeysSection />}
    </div>
  )
}

function NameSection({ firstName, lastName }: { firstName: string; lastName: string }) {
  const save = useSaveName()
  const [first, setFirst] = useState(firstName)
  const [last, setLast] = useState(lastName)
  const { beside, general } = placeErrors(['first_name', 'last_name'], save.error)
  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault()
    save.mutate(
      { first_name: first, last_name: last },
      {
        onSuccess: () => {
          showToast({ title: 'Name saved' })
        },
      },
    )
  }
  return (
    <section aria-labelledby="name-heading" className={section}>
      <h2 id="name-heading" className="text-lg font-semibold text-slate-900">
        Your name
      </h2>
      <form onSubmit={submit} className="flex flex-col gap-4" noValidate>
        <div className="grid gap-4 sm:grid-cols-2">
          <TextField
            label="First name"
            name="first_name"
            autoComplete="given-name"
            value={first}
            onChange={(value) => {
              setFirst(value)
              save.reset()
            }}
            error={beside.first_name}
          />
          <TextField
            label="Last name"
            name="last_name"
            autoComplete="family-name"
            value={last}
            onChange={(value) => {
              setLast(value)
              save.reset()
            }}
            error={beside.last_name ?? general}
          />
        </div>
        <Button type="submit" variant="primary" isPending={save.isPending} className="self-start">
          Save name
        </Button>
      </form>
    </section>
  )
}

function PasswordSection() {
  const change = useChangePassword()
  const [current, setCurrent] = useState('')
  const [password, setPassword] = useState('')
  // A form-wide refusal (a wrong current password counts against sign-in limits: 429) shows under the new password.
  const { beside, general } = placeErrors(['current_password', 'password'], change.error)
  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault()
    change.mutate(
      { current_password: current, password },
      {
        onSuccess: ({ ended_sessions }) => {
          setCurrent('')
          setPassword('')
          showToast({
            title: 'Password changed',
            description:
              ended_sessions === 0 ? undefined : `Your ${String(ended_sessions)} other session(s) were signed out.`,
          })
        },
      },
    )
  }
  return (
    <section aria-labelledby="password-heading" className={section}>
      <h2 id="password-heading" className="text-lg font-semibold text-slate-900">
        Change password
      </h2>
      <form onSubmit={submit} className="flex max-w-md flex-col gap-4" noValidate>
        <TextField
          label="Current password"
          type="password"
          autoComplete="current-password"
          value={current}
          onChange={(value) => {
            setCurrent(value)
            change.reset()
          }}
          error={beside.current_password}
          description="Leave it empty if you have never set one."
        />
        <TextField
          label="New password"
          type="password"
          autoComplete="new-password"
          value={password}
          onChange={(value) => {
            setPassword(value)
            change.reset()
          }}
          isRequired
          error={beside.password ?? general}
          description="At least 12 characters, not easy to guess. Your other sessions are signed out."
        />
        <div>
          <Button type="submit" variant="primary" isPending={change.isPending} isDisabled={password === ''}>
            Change password
          </Button>
        </div>
      </form>
    </section>
  )
}

function SessionsSection() {
  const { data: sessions } = useSuspenseQuery(profileQueries.sessions())
  const signOutOthers = useSignOutOthers()
  const others = sessions.filter((s) => !s.current).length
  return (
    <section aria-labelledby="sessions-heading" className={section}>
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h2 id="sessions-heading" className="text-lg font-semibold text-slate-900">
          Active sessions
        </h2>
        <Button
          isDisabled={others === 0}
          isPending={signOutOthers.isPending}
          onPress={() => {
            signOutOthers.mutate(undefined, {
              onSuccess: ({ ended }) => {
                showToast({ title: `Signed out ${String(ended)} other session(s)` })
              },
              onError: (error) => {
                showToast({ title: 'Could not sign out the other sessions', description: error.message, tone: 'error' })
              },
            })
          }}
        >
          Sign out other sessions
        </Button>
      </div>
      <ul className="divide-y divide-slate-100">
        {sessions.map((s) => (
          <li key={s.id} className="flex flex-wrap items-baseline justify-between gap-2 py-2 text-sm">
            <span className="font-medium text-slate-900">
              {s.description ?? 'A session'}
              {s.current ? (
                <span className="ml-2 rounded bg-indigo-50 px-1.5 py-0.5 text-xs text-indigo-700">This session</span>
              ) : null}
            </span>
            <span className="text-slate-500">
              Signed in {formatDateTime(s.date_created)}
              {s.date_last_used === null ? '' : ` · last active ${formatDateTime(s.date_last_used)}`}
            </span>
          </li>
        ))}
      </ul>
    </section>
  )
}

function ApiKeysSection() {
  const { data: keys } = useSuspenseQuery(profileQueries.apiKeys())
  const { data: session } = useSuspenseQuery(authQueries.session())
  const mine = keys.filter((key) => key.user_id === session.user.id)
  return (
    <section aria-labelledby="api-keys-heading" className={section}>
      <h2 id="api-keys-heading" className="text-lg font-semibold text-slate-900">
        Your API keys
      </h2>
      <p className="text-sm text-slate-600">
        For scripts and other tools that use the Leadline API. A key acts as you, with your role.
      </p>
      <NewApiKeyForm />
      {mine.length === 0 ? (
        <p className="text-sm text-slate-500">You have no API keys.</p>
      ) : (
        <ul className="divide-y divide-slate-100">
          {mine.map((key) => (
            <ApiKeyRow key={key.id} apiKey={key} />
          ))}
        </ul>
      )}
    </section>
  )
}

function ApiKeyRow({ apiKey }: { apiKey: ApiKey }) {
  return (
    <li className="flex flex-wrap items-center justify-between gap-2 py-2 text-sm">
      <span>
        <span className="font-medium text-slate-900">{apiKeyName(apiKey)}</span>
        <span className="ml-2 text-slate-500">
          made {formatDateTime(apiKey.date_created)}
          {apiKey.date_last_used === null ? ', never used' : `, last used ${formatDateTime(apiKey.date_last_used)}`}
        </span>
      </span>
      <RevokeApiKeyButton apiKey={apiKey} />
    </li>
  )
}
