import { queryOptions } from '@tanstack/react-query'
import type { Organization } from '@leadline/shared/organization-schema'
import type { OrganizationEnvironment } from '@leadline/shared/organization-environment-schema'
import type { PhoneNumber } from '@leadline/shared/phone-number-schema'
import { api } from '../../lib/api'
import { wholeListQuery } from '../../lib/setup-query'

// Loaded with the Phone numbers, Call outcomes and Organization screens only (no route loader imports it).

const organizationPath = (id: string) => `organization/${encodeURIComponent(id)}/`

/** The inbound secret as `/inbound/secret/` shows it to admins. */
export interface InboundSecret {
  organization_id: string
  secret: string
  date_created: string
}

export const organizationQueries = {
  all: () => ['organization'] as const,
  detail: (id: string) =>
    queryOptions({
      queryKey: [...organizationQueries.all(), id],
      queryFn: () => api.get<Organization>(organizationPath(id)),
    }),
  /** What the server's operator set (read-only): it changes only when the server restarts. */
  environment: (id: string) =>
    queryOptions({
      queryKey: [...organizationQueries.all(), id, 'environment'],
      queryFn: () => api.get<OrganizationEnvironment>(`${organizationPath(id)}environment/`),
      staleTime: 5 * 60_000,
    }),
}

export const phoneNumberQueries = {
  all: () => ['phone-numbers'] as const,
  /** Every number of the organization, internal or not (an organization has a handful). */
  list: () => wholeListQuery<PhoneNumber>([...phoneNumberQueries.all(), 'all'], 'phone_number/', { _limit: 100 }),
  /** Fetched when an admin asks to see it, and forgotten a minute after no screen shows it. */
  inboundSecret: () =>
    queryOptions({
      queryKey: ['inbound-secret'],
      queryFn: () => api.get<InboundSecret>('inbound/secret/'),
      gcTime: 60_000,
      staleTime: Infinity,
    }),
}
