import type { User } from '@leadline/shared/user-schema'
import type { UserTable } from '../db/database.js'
import { displayName } from './user-repo.js'

/** The public user object; `organizations` names only the caller's organization, never the user's others. */
export function userView(user: UserTable, organizationId: string): User {
  return {
    id: user.id,
    email: user.email,
    first_name: user.first_name,
    last_name: user.last_name,
    display_name: displayName(user),
    image: user.image,
    last_used_timezone: user.last_used_timezone,
    organizations: [organizationId],
    date_created: user.date_created,
    date_updated: user.date_updated,
  }
}
