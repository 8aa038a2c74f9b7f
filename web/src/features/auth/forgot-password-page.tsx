import { useState, type SubmitEvent } from 'react'
import { Button } from '../../components/ui/button'
import { TextField } from '../../components/ui/text-field'
import { useDocumentTitle } from '../../lib/document-title'
import { placeErrors } from '../../lib/form-errors'
import { useRequestPasswordReset } from './account-mutations'
import { NextStep, PublicFrame } from './public-frame'

/**
 * Asks for a reset link. The answer is the same whether or not the address has an account, so the page cannot tell
 * anyone which addresses do.
 */
export function ForgotPasswordPage() {
  useDocumentTitle('Reset your password')
  const request = useRequestPasswordReset()
  const [email, setEmail] = useState('')
  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault()
    if (email.trim() === '') return
    request.mutate(email.trim())
  }
  // A refusal names no field when the address is over the sign-in limit (429): it shows under the email.
  const { beside, general } = placeErrors(['email'], request.error)
  return (
    <PublicFrame title="Reset your password">
      {request.isSuccess ? (
        <p role="status" className="text-sm text-slate-700">
          If an account uses that address, we sent it a link to reset its password. The link works for 1 hour.
        </p>
      ) : (
        <form onSubmit={submit} className="flex flex-col gap-4" noValidate>
          <p className="text-sm text-slate-600">Enter the email address you sign in with.</p>
          <TextField
            label="Email"
            type="email"
            name="email"
            autoComplete="username"
            value={email}
            onChange={(value) => {
              setEmail(value)
              request.reset()
            }}
            isRequired
            error={beside.email ?? general}
          />
          <Button type="submit" variant="primary" isPending={request.isPending}>
            Send reset link
          </Button>
        </form>
      )}
      <NextStep to="/sign-in">Back to sign in</NextStep>
    </PublicFrame>
  )
}
