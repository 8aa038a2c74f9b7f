import type { Role } from '@leadline/shared/user-schema'
import { api } from '../../lib/api'
import { useFormMutation } from '../../lib/form-mutation'
import { usersQueries, type Invitation, type Member, type SignInPolicy } from './users-queries'

const membersKey = usersQueries.members().queryKey
const invitationsKey = usersQueries.invitations().queryKey
const membershipPath = (id: string) => `membership/${encodeURIComponent(id)}/`
const invitationPath = (id: string) => `invitation/${encodeURIComponent(id)}/`

export function useChangeRole() {
  return useFormMutation(membersKey, ({ id, role }: { id: string; role: Role }) =>
    api.put<Member>(membershipPath(id), { role_id: role }),
  )
}

export function useSetMemberActive() {
  return useFormMutation(membersKey, ({ id, active }: { id: string; active: boolean }) =>
    api.post<Member>(`${membershipPath(id)}${active ? 'reactivate' : 'deactivate'}/`, {}),
  )
}

export function useInvite() {
  return useFormMutation(invitationsKey, (body: { email: string; role_id: Role }) =>
    api.post<Invitation>('invitation/', body),
  )
}

export function useResendInvitation() {
  return useFormMutation(invitationsKey, (id: string) => api.post<Invitation>(`${invitationPath(id)}resend/`, {}))
}

export function useRevokeInvitation() {
  return useFormMutation(invitationsKey, (id: string) => api.delete(invitationPath(id)))
}

export function useSetPolicy() {
  return useFormMutation(usersQueries.policy().queryKey, (policy: SignInPolicy) =>
    api.put<SignInPolicy>('auth/policy/', policy),
  )
}
