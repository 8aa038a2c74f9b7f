import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query'
import { authApi } from '../../lib/api'
import { useFormMutation } from '../../lib/form-mutation'
import { authQueries, type AuthSession } from './auth-queries'

// The public pages a mailed link opens (accept an invitation, reset a password) and the page that asks for such a
// link; loaded with those pages only.

/** What an invitation link is for, before anyone accepts it. */
export interface InvitationLookup {
  email: string
  organization_name: string
  /** The address already has an account (in another organization): its password joins it, no new names. */
  existing_user: boolean
  /** The organization signs in by single sign-on, which can accept the invitation too. */
  single_sign_on: boolean
}

export const invitationLookup = (token: string) =>
  queryOptions({
    queryKey: ['invitation-lookup', token] as const,
    queryFn: () => authApi.post<InvitationLookup>('invitation/lookup', { token }),
    // A refused link stays refused; a looked-up one does not change until it is used.
    retry: false,
    staleTime: Infinity,
  })

export interface AcceptInvitationBody {
  token: string
  first_name: string
  last_name: string
  password: string
}

/**
 * Accepting signs the new member in: the BFF answers as `POST /auth/session` does, and the answer is cached as the
 * session. The app's first load then sends the browser's time zone (the accept body has none).
 */
export function useAcceptInvitation() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationKey: authQueries.all(),
    mutationFn: (body: AcceptInvitationBody) => authApi.post<AuthSession>('invitation/accept', body),
    onSuccess: (session) => {
      queryClient.setQueryData(authQueries.session().queryKey, session)
    },
    meta: { errorTitle: false },
  })
}

// Nothing cached depends on these: their keys name no query.

export function useRequestPasswordReset() {
  return useFormMutation(['password-reset'], (email: string) =>
    authApi.post<Record<string, never>>('password-reset', { email }),
  )
}

/** Sets a new password from a reset link; it does not sign in (every session of the account has just ended). */
export function useCompletePasswordReset() {
  return useFormMutation(['password-reset'], (body: { token: string; password: string }) =>
    authApi.post<Record<string, never>>('password-reset/complete', body),
  )
}
