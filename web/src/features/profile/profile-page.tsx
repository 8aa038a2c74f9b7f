import { useSuspenseQuery } from '@tanstack/react-query'
import { type SubmitEvent } from 'react'
import { Button } from '../../components/ui/button'
import { CardSection } from '../../components/ui/card-section'
import { PersonNameFields } from '../../components/ui/person-name-fields'
import { TextField } from '../../components/ui/text-field'
import { showToast } from '../../components/ui/toast'
import { placeErrors } from '../../lib/form-errors'
import { useDocumentTitle } from '../../lib/document-title'
import { formatDateTime } from '../../lib/format'
import { useFormValue } from '../../lib/form-value'
import { authQueries } from '../auth/auth-queries'
import { apiKeyName, NewApiKeyForm, RevokeApiKeyButton } from './api-key-parts'
import { useChangePassword, useSaveName, useSignOutOthers } from './profile-mutations'
import { profileQueries, type ApiKey } from './profile-queries'
import { twoFactorQueries } from './two-factor'
import { TimeZoneSection } from './time-zone-section'
import { EmailAccountsManager } from '../email/email-accounts-manager'
import { TwoFactorSection } from './two-factor-section'

/**
 * The signed-in person's own settings: password, two-factor sign-in, sessions, API keys and email accounts. Anyone may open it, admin
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
      <TimeZoneSection />
      <PasswordSection />
      <TwoFactorSection />
      <SessionsSection />
      {twoFactor.required && !twoFactor.enabled ? null : <ApiKeysSection />}
      <CardSection headingId="email-accounts" title="Your email accounts">
        <p className="text-sm text-slate-600">
          The SMTP servers you send email through from Leadline, and the addresses you send as.
        </p>
        <EmailAccountsManager ownerId={session.user.id} level={3} />
      </CardSection>
    </div>
  )
}

function NameSection({ firstName, lastName }: { firstName: string; lastName: string }) {
  const save = useSaveName()
  const first = useFormValue(firstName, save)
  const last = useFormValue(lastName, save)
  const { beside, general } = placeErrors(['first_name', 'last_name'], save.error)
  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault()
    save.mutate(
      { first_name: first.value, last_name: last.value },
      {
        onSuccess: () => {
          showToast({ title: 'Name saved' })
        },
      },
    )
  }
  return (
    <CardSection headingId="name-heading" title="Your name">
      <form onSubmit={submit} className="flex flex-col gap-4" noValidate>
        <div className="grid gap-4 sm:grid-cols-2">
          <PersonNameFields
            fields={{ first_name: first.field, last_name: last.field }}
            errors={{ first_name: beside.first_name, last_name: beside.last_name ?? general }}
          />
        </div>
        <Button type="submit" variant="primary" isPending={save.isPending} className="self-start">
          Save name
        </Button>
      </form>
    </CardSection>
  )
}

function PasswordSection() {
  const change = useChangePassword()
  const current = useFormValue('', change)
  const password = useFormValue('', change)
  // A form-wide refusal (a wrong current password counts against sign-in limits: 429) shows under the new password.
  const { beside, general } = placeErrors(['current_password', 'password'], change.error)
  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault()
    change.mutate(
      { current_password: current.value, password: password.value },
      {
        onSuccess: ({ ended_sessions }) => {
          current.setValue('')
          password.setValue('')
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
    <CardSection headingId="password-heading" title="Change password">
      <form onSubmit={submit} className="flex max-w-md flex-col gap-4" noValidate>
        <TextField
          label="Current password"
          type="password"
          autoComplete="current-password"
          {...current.field}
          error={beside.current_password}
          description="Leave it empty if you have never set one."
        />
        <TextField
          label="New password"
          type="password"
          autoComplete="new-password"
          {...password.field}
          isRequired
          error={beside.password ?? general}
          description="At least 12 characters, not easy to guess. Your other sessions are signed out."
        />
        <div>
          <Button type="submit" variant="primary" isPending={change.isPending} isDisabled={password.value === ''}>
            Change password
          </Button>
        </div>
      </form>
    </CardSection>
  )
}

function SessionsSection() {
  const { data: sessions } = useSuspenseQuery(profileQueries.sessions())
  const signOutOthers = useSignOutOthers()
  const others = sessions.filter((s) => !s.current).length
  return (
    <CardSection
      headingId="sessions-heading"
      title="Active sessions"
      actions={
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
      }
    >
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
    </CardSection>
  )
}

function ApiKeysSection() {
  const { data: keys } = useSuspenseQuery(profileQueries.apiKeys())
  const { data: session } = useSuspenseQuery(authQueries.session())
  const mine = keys.filter((key) => key.user_id === session.user.id)
  return (
    <CardSection headingId="api-keys-heading" title="Your API keys">
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
    </CardSection>
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
