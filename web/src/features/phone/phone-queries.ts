import type { Outcome } from '@leadline/shared/outcome-schema'
import type { PhoneNumber } from '@leadline/shared/phone-number-schema'
import { setupListQuery } from '../../lib/setup-query'

export const phoneQueries = {
  /** The organization's call and meeting outcomes; the call form offers those that apply to calls. */
  outcomes: () => setupListQuery<Outcome>(['outcomes'], 'outcome/', { _limit: 100 }),
  /** The organization's own numbers, which texts are sent from. */
  internalNumbers: () =>
    setupListQuery<PhoneNumber>(['phone-numbers', 'internal'], 'phone_number/', { type: 'internal', _limit: 100 }),
}
