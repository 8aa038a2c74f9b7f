import { isApiError } from '../../lib/api'
import { useDocumentTitle } from '../../lib/document-title'
import { placeErrors } from '../../lib/form-errors'
import { useCompletePasswordReset } from './account-mutations'
import { OneFieldForm } from './one-field-form'
import { NextStep, PublicFrame } from './public-frame'

const INVALID_LINK = 'This reset link is not valid any more. Ask for a new one.'

/** Sets a new password from a mailed link; then the person signs in with it (every session of theirs has ended). */
export function ResetPasswordPage({ token }: { token: string | undefined }) {
  useDocumentTitle('Choose a new password')
  return (
    <PublicFrame title="Choose a new password">
      {token === undefined ? <InvalidLink message={INVALID_LINK} /> : <ResetForm token={token} />}
    </PublicFrame>
  )
}

function InvalidLink({ message }: { message: string }) {
  return (
    <>
      <p role="alert" className="text-sm text-red-700">
        {message}
      </p>
      <NextStep to="/forgot-password">Ask for a new link</NextStep>
    </>
  )
}

function ResetForm({ token }: { token: string }) {
  const complete = useCompletePasswordReset()
  if (complete.isSuccess)
    return (
      <>
        <p role="status" className="text-sm text-slate-700">
          Your password is changed. Sign in with it now.
        </p>
        <NextStep to="/sign-in">Sign in</NextStep>
      </>
    )
  // A link refused as a whole (used, expired, unknown): the form is of no more use.
  const { general } = placeErrors(['password'], complete.error)
  if (general !== undefined && isApiError(complete.error, 400)) return <InvalidLink message={general} />
  return (
    <OneFieldForm
      field="password"
      label="New password"
      type="password"
      autoComplete="new-password"
      description="At least 12 characters, not easy to guess. Every session of your account is signed out."
      sending={complete}
      submitLabel="Set password"
      onSubmit={(password) => {
        complete.mutate({ token, password })
      }}
    />
  )
}
