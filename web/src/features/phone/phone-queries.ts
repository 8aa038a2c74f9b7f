import { queryOptions } from '@tanstack/react-query'
import type { ListEnvelope } from '@leadline/shared/list'
import type { Outcome } from '@leadline/shared/outcome-schema'
import type { PhoneNumber } from '@leadline/shared/phone-number-schema'
import { api } from '../../lib/api'

export const phoneQueries = {
  /** The organization's call and meeting outcomes; the call form offers those that apply to calls. */
  outcomes: () =>
    queryOptions({
      queryKey: ['outcomes'],
      queryFn: () => api.get<ListEnvelope<Outcome>>('outcome/', { _limit: 100 }),
      staleTime: 5 * 60_000,
      select: (page) => page.data,
    }),
  /** The organization's own numbers, which texts are sent from. */
  internalNumbers: () =>
    queryOptions({
      queryKey: ['phone-numbers', 'internal'],
      queryFn: () => api.get<ListEnvelope<PhoneNumber>>('phone_number/', { type: 'internal', _limit: 100 }),
      staleTime: 5 * 60_000,
      select: (page) => page.data,
    }),
}
