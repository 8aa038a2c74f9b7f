import { useDocumentTitle } from '../../lib/document-title'
import { useRequestPasswordReset } from './account-mutations'
import { OneFieldForm } from './one-field-form'
import { NextStep, PublicFrame } from './public-frame'

/**
 * Asks for a reset link. The answer is the same whether or not the address has an account, so the page cannot tell
 * anyone which addresses do.
 */
export function ForgotPasswordPage() {
  useDocumentTitle('Reset your password')
  const request = useRequestPasswordReset()
  return (
    <PublicFrame title="Reset your password">
      {request.isSuccess ? (
        <p role="status" className="text-sm text-slate-700">
          If an account uses that address, we sent it a link to reset its password. The link works for 1 hour.
        </p>
      ) : (
        <OneFieldForm
          field="email"
          label="Email"
          type="email"
          autoComplete="username"
          trim
          sending={request}
          submitLabel="Send reset link"
          onSubmit={(email) => {
            request.mutate(email)
          }}
        >
          <p className="text-sm text-slate-600">Enter the email address you sign in with.</p>
        </OneFieldForm>
      )}
      <NextStep to="/sign-in">Back to sign in</NextStep>
    </PublicFrame>
  )
}
