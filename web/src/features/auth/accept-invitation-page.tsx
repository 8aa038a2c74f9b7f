import { useQuery } from '@tanstack/react-query'
import { useNavigate } from '@tanstack/react-router'
import { type SubmitEvent } from 'react'
import { Button } from '../../components/ui/button'
import { PersonNameFields } from '../../components/ui/person-name-fields'
import { TextField } from '../../components/ui/text-field'
import { useDocumentTitle } from '../../lib/document-title'
import { placeErrors } from '../../lib/form-errors'
import { useFormValue } from '../../lib/form-value'
import { invitationLookup, useAcceptInvitation, type InvitationLookup } from './account-mutations'
import { browserTimeZone } from '../../lib/format'
import { NextStep, PublicFrame, textLink } from './public-frame'

const INVALID_LINK = 'This invitation link is not valid any more. Ask your admin for a new one.'

/**
 * Where an invitation's link lands: someone new makes their account; someone who has one (in another organization)
 * joins with its password. Either way they end up signed in, on the app's home.
 */
export function AcceptInvitationPage({ token }: { token: string | undefined }) {
  useDocumentTitle('Accept invitation')
  if (token === undefined) return <InvalidInvitation message={INVALID_LINK} />
  return <Invitation token={token} />
}

function Invitation({ token }: { token: string }) {
  const lookup = useQuery(invitationLookup(token))
  if (lookup.isPending)
    return (
      <PublicFrame title="Invitation">
        <p role="status" className="text-sm text-slate-600">
          Opening your invitation…
        </p>
      </PublicFrame>
    )
  if (lookup.isError) return <InvalidInvitation message={lookup.error.message} />
  return <AcceptForm token={token} invitation={lookup.data} />
}

function InvalidInvitation({ message }: { message: string }) {
  return (
    <PublicFrame title="Invitation">
      <p role="alert" className="text-sm text-red-700">
        {message}
      </p>
      <NextStep to="/sign-in">Go to sign in</NextStep>
    </PublicFrame>
  )
}

function AcceptForm({ token, invitation }: { token: string; invitation: InvitationLookup }) {
  const accept = useAcceptInvitation()
  const navigate = useNavigate()
  const firstName = useFormValue('', accept)
  const lastName = useFormValue('', accept)
  const password = useFormValue('', accept)
  const existing = invitation.existing_user
  const { beside, general } = placeErrors(['first_name', 'last_name', 'password'], accept.error)
  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault()
    // An existing account keeps its names: the API ignores these.
    const names = existing
      ? { first_name: '', last_name: '' }
      : { first_name: firstName.value.trim(), last_name: lastName.value.trim() }
    accept.mutate(
      { token, ...names, password: password.value },
      {
        onSuccess: () => {
          // The invitation page leaves the history: Back from the app does not offer a used link again.
          void navigate({ to: '/', replace: true })
        },
      },
    )
  }
  return (
    <PublicFrame title={`Join ${invitation.organization_name}`}>
      <form onSubmit={submit} className="flex flex-col gap-4" noValidate>
        <p className="text-sm text-slate-600">
          {existing ? 'Your account ' : 'Your account will be '}
          <span className="font-medium text-slate-900">{invitation.email}</span>
          {existing
            ? ' joins this organization. Enter its password to confirm it is you.'
            : '. Tell your teammates who you are, and choose a password.'}
        </p>
        {existing ? null : (
          <PersonNameFields
            fields={{ first_name: firstName.field, last_name: lastName.field }}
            errors={beside}
            isRequired
          />
        )}
        <TextField
          label="Password"
          type="password"
          name="password"
          autoComplete={existing ? 'current-password' : 'new-password'}
          {...password.field}
          isRequired
          error={beside.password ?? general}
          description={
            existing
              ? `The current password of your Leadline account ${invitation.email}.`
              : 'At least 12 characters, not easy to guess.'
          }
        />
        <Button type="submit" variant="primary" isPending={accept.isPending} isDisabled={password.value === ''}>
          {existing ? 'Join organization' : 'Create account'}
        </Button>
      </form>
      {invitation.single_sign_on ? <SingleSignOnJoin token={token} /> : null}
    </PublicFrame>
  )
}

/** The organization's provider can vouch for the invited address instead: a full-page navigation through the BFF. */
function SingleSignOnJoin({ token }: { token: string }) {
  const query = new URLSearchParams({ invitation: token, time_zone: browserTimeZone() })
  return (
    <p className="mt-4 border-t border-slate-200 pt-4 text-center text-sm text-slate-600">
      Or{' '}
      <a href={`/auth/sso/start?${query.toString()}`} className={`${textLink} underline`}>
        Sign in with single sign-on
      </a>{' '}
      to join with your organization’s account.
    </p>
  )
}
