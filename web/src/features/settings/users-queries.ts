import { queryOptions } from '@tanstack/react-query'
import type { Role } from '@leadline/shared/user-schema'
import { api } from '../../lib/api'
import { wholeListQuery } from '../../lib/setup-query'

// Loaded with the Users screen only (no route loader imports it), so none of it weighs on a first visit.

/** A member of the organization as `/membership/` shows it to admins. */
export interface Member {
  id: string
  user_id: string
  role_id: Role
  status: 'active' | 'inactive'
  email: string
  first_name: string | null
  last_name: string | null
  date_created: string
  date_deactivated: string | null
  /** When any key of theirs (a session or an API key) was last used. */
  last_used: string | null
  two_factor_enabled: boolean
}

/** An invitation not yet accepted nor revoked (`/invitation/` lists only pending and expired ones). */
export interface Invitation {
  id: string
  email: string
  role_id: Role
  status: 'pending' | 'accepted' | 'revoked' | 'expired'
  invited_by_name: string
  date_created: string
  date_expires: string
  date_last_sent: string
  date_accepted: string | null
}

/** The organization's sign-in policy (`/auth/policy/`). */
export interface SignInPolicy {
  require_two_factor: boolean
}

export const usersQueries = {
  members: () => wholeListQuery<Member>(['memberships'], 'membership/'),
  invitations: () => wholeListQuery<Invitation>(['invitations'], 'invitation/'),
  policy: () =>
    queryOptions({
      queryKey: ['sign-in-policy'] as const,
      queryFn: () => api.get<SignInPolicy>('auth/policy/'),
    }),
}

/** A member's name as the screen shows it: their first and last name, else their email. */
export function memberName(member: Pick<Member, 'first_name' | 'last_name' | 'email'>): string {
  const name = [member.first_name, member.last_name].filter((part) => part !== null && part !== '').join(' ')
  return name === '' ? member.email : name
}
