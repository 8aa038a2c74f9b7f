import type { EmailAccountView } from '@leadline/shared/email-account-schema'
import { api } from '../../lib/api'
import { useFormMutation } from '../../lib/form-mutation'
import { wholeListQuery } from '../../lib/setup-query'

// Managing email accounts (Settings → Email accounts for admins, the Profile for one's own). Every key starts with
// the composer's `['me', 'email-accounts']`, so a change makes the composer's list of senders stale too.

const ALL = ['me', 'email-accounts'] as const

export const emailAccountQueries = {
  all: () => ALL,
  /** The organization's accounts (an admin), or only `userId`'s. */
  list: (userId?: string) =>
    wholeListQuery<EmailAccountView>(
      [...ALL, 'list', userId ?? 'everyone'],
      'email_account/',
      userId === undefined ? { _limit: 100 } : { user_id: userId, _limit: 100 },
    ),
}

export interface EmailAccountInput {
  user_id?: string
  email: string
  identities: { name: string; email: string }[]
  smtp: { host: string; port: number; username: string | null; password?: string | null; use_ssl: boolean }
}

/** `send_test`'s answer: what the SMTP server said. */
export type TestSendAnswer = { ok: true; response: string } | { ok: false; error: string }

const path = (id: string) => `email_account/${encodeURIComponent(id)}/`

export function useCreateEmailAccount() {
  return useFormMutation(ALL, (body: EmailAccountInput) => api.post<EmailAccountView>('email_account/', body))
}

export function useUpdateEmailAccount(id: string) {
  return useFormMutation(ALL, (body: EmailAccountInput) => api.put<EmailAccountView>(path(id), body))
}

export function useDeleteEmailAccount() {
  return useFormMutation(ALL, (id: string) => api.delete(path(id)))
}

export function useResendVerification(id: string) {
  return useFormMutation(ALL, (email: string) => api.post<EmailAccountView>(`${path(id)}send_verification/`, { email }))
}

/** Sends a test email; its outcome is the account's `last_error`, so the list is read again after. */
export function useSendTestEmail(id: string) {
  return useFormMutation(ALL, () => api.post<TestSendAnswer>(`${path(id)}send_test/`, {}))
}
