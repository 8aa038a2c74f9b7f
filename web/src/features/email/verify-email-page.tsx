import { useMutation } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import type { EmailAccountView } from '@leadline/shared/email-account-schema'
import { Button } from '../../components/ui/button'
import { ErrorState } from '../../components/ui/feedback'
import { api, saveErrorMessage } from '../../lib/api'
import { emailQueries } from './email-queries'

// The page the link emailed to a new address opens (docs/decisions/0038-email-address-owners.md). It verifies
// nothing on sight (mail scanners open links): the signed-in user confirms, and only the account's own user can.

interface Verified {
  email: string
  email_account: EmailAccountView
}

export function useVerifyEmailAddress() {
  return useMutation({
    // The composer's addresses come from /me/: they include the new one once it is verified.
    mutationKey: emailQueries.accounts().queryKey,
    mutationFn: (token: string) => api.post<Verified>('email_account/verify_identity/', { token }),
    meta: { errorTitle: false },
  })
}

export function VerifyEmailPage({ token }: { token: string }) {
  const verify = useVerifyEmailAddress()
  return (
    <section aria-labelledby="verify-email-heading" className="mx-auto flex max-w-lg flex-col gap-4 p-6">
      <h1 id="verify-email-heading" className="text-2xl font-bold text-slate-900">
        Confirm your email address
      </h1>
      {verify.isSuccess ? (
        <p role="status" className="rounded-lg border border-emerald-200 bg-emerald-50 p-4 text-sm text-emerald-900">
          {verify.data.email} is verified: you can send from it, and mail to it lands in Leadline.
        </p>
      ) : token === '' ? (
        <ErrorState
          title="This link is incomplete"
          message="Open the link from the email again, whole, or send a new one from your email account."
        />
      ) : (
        <>
          <p className="text-sm text-slate-700">
            Confirm only if you asked to send and receive email as this address in Leadline, with the user you are
            signed in as. Until then the address neither receives mail here nor can be sent from.
          </p>
          {verify.isError ? (
            <ErrorState title="The address was not verified" message={saveErrorMessage(verify.error, 'token')} />
          ) : null}
          <div>
            <Button
              variant="primary"
              isPending={verify.isPending}
              onPress={() => {
                verify.mutate(token)
              }}
            >
              Confirm address
            </Button>
          </div>
        </>
      )}
      <Link to="/leads" className="text-sm text-indigo-700 underline">
        Back to leads
      </Link>
    </section>
  )
}
