import { useState, type SubmitEvent } from 'react'
import { useQuery } from '@tanstack/react-query'
import { useNavigate, useRouter } from '@tanstack/react-router'
import { Button } from '../../components/ui/button'
import { TextField } from '../../components/ui/text-field'
import { isApiError } from '../../lib/api'
import { authQueries, useDemoSignIn, useSignIn } from './auth-queries'

export function SignInPage({ redirectTo }: { redirectTo: string | undefined }) {
  const navigate = useNavigate()
  const router = useRouter()
  const [apiKey, setApiKey] = useState('')
  const signIn = useSignIn()
  const demoSignIn = useDemoSignIn()
  const demoUsers = useQuery(authQueries.demoUsers())

  // The sign-in page leaves the history: Back from where the user lands does not show the form again.
  const afterSignIn = () => {
    if (redirectTo === undefined) void navigate({ to: '/leads', replace: true })
    else router.history.replace(redirectTo)
  }

  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault()
    if (apiKey.trim() === '') return
    signIn.mutate(apiKey.trim(), { onSuccess: afterSignIn })
  }

  const keyError =
    signIn.error === null
      ? undefined
      : isApiError(signIn.error, 401)
        ? 'That API key was not accepted. Check it and try again.'
        : signIn.error.message

  return (
    <main className="flex min-h-screen items-start justify-center px-4 pt-[12vh]">
      <div className="w-full max-w-md">
        <div className="mb-8 text-center">
          <p className="text-2xl font-bold tracking-tight text-indigo-700">Leadline</p>
          <h1 className="mt-2 text-lg font-semibold text-slate-900">Sign in to your CRM</h1>
        </div>
        <div className="rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
          <form onSubmit={submit} className="flex flex-col gap-4" noValidate>
            <TextField
              label="API key"
              type="password"
              name="api_key"
              autoComplete="off"
              value={apiKey}
              onChange={(value) => {
                setApiKey(value)
                signIn.reset()
              }}
              isRequired
              error={keyError}
              description="Your administrator gives you a key; it stays on the server once you sign in."
            />
            <Button type="submit" variant="primary" isPending={signIn.isPending}>
              Sign in
            </Button>
          </form>
          {demoUsers.data !== undefined && demoUsers.data.length > 0 ? (
            <section aria-labelledby="demo-users" className="mt-6 border-t border-slate-100 pt-5">
              <h2 id="demo-users" className="text-sm font-semibold text-slate-900">
                Try the demo organization
              </h2>
              <ul className="mt-3 flex flex-col gap-2">
                {demoUsers.data.map((user) => (
                  <li key={user.email}>
                    <Button
                      className="w-full"
                      aria-label={`Sign in as ${user.display_name}`}
                      isDisabled={demoSignIn.isPending}
                      onPress={() => {
                        demoSignIn.mutate(user.email, { onSuccess: afterSignIn })
                      }}
                    >
                      <span className="flex w-full items-baseline justify-between gap-2">
                        <span>{user.display_name}</span>
                        <span className="text-xs font-normal text-slate-500">
                          {user.title} · {user.role}
                        </span>
                      </span>
                    </Button>
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
        </div>
      </div>
    </main>
  )
}
