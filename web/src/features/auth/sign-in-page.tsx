import { useState, type SubmitEvent } from 'react'
import { useQuery } from '@tanstack/react-query'
import { Link, useNavigate, useRouter } from '@tanstack/react-router'
import { Button } from '../../components/ui/button'
import { TextField } from '../../components/ui/text-field'
import { placeErrors } from '../../lib/form-errors'
import { browserTimeZone } from '../../lib/format'
import { useFormValue } from '../../lib/form-value'
import { authApi, isApiError } from '../../lib/api'
import { isRecord } from '../../lib/record'
import { authQueries, useDemoSignIn, useSignIn, type AuthSession, type Credentials } from './auth-queries'
import { OneFieldForm } from './one-field-form'
import { PublicFrame, textLink } from './public-frame'

interface SignInPageProps {
  redirectTo: string | undefined
  /** `key`: the API key form instead of email and password. */
  method: 'key' | undefined
  /** Why a single sign-on failed, from the URL the BFF sent the browser back to. */
  ssoError?: string | undefined
}

export function SignInPage({ redirectTo, method, ssoError }: SignInPageProps) {
  const navigate = useNavigate()
  const router = useRouter()
  const signIn = useSignIn()
  const demoSignIn = useDemoSignIn()
  const demoUsers = useQuery(authQueries.demoUsers())

  // The sign-in page leaves the history: Back from where the user lands does not show the form again. Someone whose
  // organization requires two-factor they have not turned on goes to turn it on.
  const afterSignIn = (session: AuthSession) => {
    if (session.two_factor_setup_required === true) void navigate({ to: '/settings/profile', replace: true })
    else if (redirectTo === undefined) void navigate({ to: '/leads', replace: true })
    else router.history.replace(redirectTo)
  }
  const submit = (credentials: Credentials) => {
    signIn.mutate(credentials, { onSuccess: afterSignIn })
  }

  return (
    <PublicFrame title="Sign in to your CRM">
      {ssoError === undefined ? null : (
        <p role="alert" className="mb-4 text-sm text-red-700">
          {ssoError}
        </p>
      )}
      {method === 'key' ? (
        <KeyForm signIn={signIn} onSubmit={submit} />
      ) : (
        <PasswordForm signIn={signIn} onSubmit={submit} />
      )}
      <p className="mt-4 text-center text-sm">
        <Link
          to="/sign-in"
          search={{ redirect: redirectTo, method: method === 'key' ? undefined : 'key' }}
          replace
          onClick={() => {
            signIn.reset()
          }}
          className={textLink}
        >
          {method === 'key' ? 'Sign in with email and password' : 'Sign in with an API key'}
        </Link>
      </p>
      {demoUsers.data !== undefined && demoUsers.data.length > 0 ? (
        <section aria-labelledby="demo-users" className="mt-6 border-t border-slate-100 pt-5">
          <h2 id="demo-users" className="text-sm font-semibold text-slate-900">
            Try the demo organization
          </h2>
          <ul className="mt-3 flex flex-col gap-2">
            {demoUsers.data.map((user) => (
              // On a phone the title goes under its button: beside it, a long name pushed it past the card's edge.
              <li key={user.email} className="flex flex-col gap-0.5 sm:flex-row sm:items-center sm:gap-3">
                <Button
                  justify="start"
                  className="flex-1"
                  isDisabled={demoSignIn.isPending}
                  onPress={() => {
                    demoSignIn.mutate(user.email, { onSuccess: afterSignIn })
                  }}
                >
                  Sign in as {user.display_name}
                </Button>
                <span className="text-xs text-slate-500 sm:w-28 sm:shrink-0">
                  {user.title} · {user.role}
                </span>
              </li>
            ))}
          </ul>
          {demoSignIn.error === null ? null : (
            <p role="alert" className="mt-2 text-sm text-red-700">
              {demoSignIn.error.message}
            </p>
          )}
        </section>
      ) : null}
    </PublicFrame>
  )
}

interface FormProps {
  signIn: ReturnType<typeof useSignIn>
  onSubmit: (credentials: Credentials) => void
}

function PasswordForm({ signIn, onSubmit }: FormProps) {
  const email = useFormValue('', signIn)
  const password = useFormValue('', signIn)
  const code = useFormValue<string | undefined>(undefined, signIn)
  const [ssoError, setSsoError] = useState<string>()
  // A full-page navigation: the BFF sends the browser on to the provider.
  const singleSignOn = async () => {
    const address = email.value.trim()
    if (address === '') {
      setSsoError('Enter your work email first.')
      return
    }
    const query = `email=${encodeURIComponent(address)}`
    const { available } = await authApi.get<{ available: boolean }>(`sso/available?${query}`)
    if (available) window.location.assign(`/auth/sso/start?${query}&time_zone=${encodeURIComponent(browserTimeZone())}`)
    else setSsoError(`Single sign-on is not set up for ${address.split('@').pop() ?? ''}.`)
  }
  const error = signIn.error
  // Once the api asks for a two-factor code, the form keeps a Code field; the api's words about the code show there.
  const asksCode = isApiError(error, 401) && isRecord(error.body) && error.body.two_factor === 'required'
  if (asksCode && code.value === undefined) code.setValue('')
  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault()
    if (email.value.trim() === '' || password.value === '') return
    onSubmit({ email: email.value.trim(), password: password.value, ...(code.value ? { code: code.value } : {}) })
  }
  // The api's one answer to a refused sign-in names no field: it shows under the password.
  const { beside, general } = placeErrors(['email', 'password', 'code'], error)
  return (
    <form onSubmit={submit} className="flex flex-col gap-4" noValidate>
      <TextField
        label="Email"
        type="email"
        name="email"
        autoComplete="username"
        value={email.value}
        onChange={(value) => {
          email.field.onChange(value)
          setSsoError(undefined)
        }}
        isRequired
        error={ssoError ?? beside.email}
      />
      <TextField
        label="Password"
        type="password"
        name="password"
        autoComplete="current-password"
        {...password.field}
        isRequired
        error={beside.password ?? (asksCode ? undefined : general)}
      />
      {code.value === undefined ? null : (
        <TextField
          label="Code"
          name="code"
          autoComplete="one-time-code"
          inputMode="numeric"
          autoFocus
          value={code.value}
          onChange={code.field.onChange}
          error={beside.code ?? (asksCode ? general : undefined)}
          description="From your authenticator app, or one of your recovery codes."
        />
      )}
      <Button type="submit" variant="primary" isPending={signIn.isPending}>
        Sign in
      </Button>
      <Button
        onPress={() => {
          singleSignOn().catch((failure: unknown) => {
            setSsoError(failure instanceof Error ? failure.message : String(failure))
          })
        }}
      >
        Sign in with single sign-on
      </Button>
      <Link to="/forgot-password" className={`${textLink} self-center text-sm`}>
        Forgot password?
      </Link>
    </form>
  )
}

function KeyForm({ signIn, onSubmit }: FormProps) {
  return (
    <OneFieldForm
      field="api_key"
      label="API key"
      type="password"
      autoComplete="off"
      description="The server keeps a key of its own for this session; yours is not stored."
      trim
      sending={signIn}
      submitLabel="Sign in"
      onSubmit={(apiKey) => {
        onSubmit({ api_key: apiKey })
      }}
    />
  )
}
