import { createApiKey } from '../../platform/security/api-key-repo.js'
import { inTransaction, type Db } from '../../platform/data/database.js'
import type { Clock } from '../../platform/data/time.js'
import { addMembership, ensureUser } from '../users/user-repo.js'
import { createOrganization } from './organization-repo.js'

export interface Provisioned {
  organization_id: string
  user_id: string
  membership_id: string
  api_key: string
  api_key_id: string
}

/** A new organization with its first (admin) user and an API key, in one transaction (the caller's, if any). */
export async function provisionOrganization(
  db: Db,
  clock: Clock,
  input: {
    name: string
    email: string
    firstName?: string | null
    lastName?: string | null
    currency?: string
    country?: string
  },
): Promise<Provisioned> {
  return inTransaction(db, async (tx) => {
    const userId = await ensureUser(tx, clock, input)
    const organizationId = await createOrganization(tx, clock, {
      name: input.name,
      createdBy: userId,
      ...(input.currency === undefined ? {} : { currency: input.currency }),
      ...(input.country === undefined ? {} : { country: input.country }),
    })
    const membershipId = await addMembership(tx, clock, { organizationId, userId, role: 'admin' })
    const key = await createApiKey(tx, clock, { organizationId, userId, membershipId })
    return { organization_id: organizationId, user_id: userId, membership_id: membershipId, ...key }
  })
}

/** Adds a user (created if new) to an organization with a role, and issues their API key, in one transaction (the caller's, if any). */
export async function provisionMember(
  db: Db,
  clock: Clock,
  input: {
    organizationId: string
    email: string
    role: 'admin' | 'user'
    firstName?: string | null
    lastName?: string | null
  },
): Promise<Omit<Provisioned, 'organization_id'>> {
  return inTransaction(db, async (tx) => {
    const userId = await ensureUser(tx, clock, input)
    const membershipId = await addMembership(tx, clock, {
      organizationId: input.organizationId,
      userId,
      role: input.role,
    })
    const key = await createApiKey(tx, clock, { organizationId: input.organizationId, userId, membershipId })
    return { user_id: userId, membership_id: membershipId, ...key }
  })
}
