import { describe, expect, it } from 'vitest'
import { annualizedValue, expectedValue, formatMoney, formatOpportunityValue } from './money.js'

describe('opportunity money', () => {
  it('writes values the way Close does', () => {
    expect(formatOpportunityValue(150_000, 'USD', 'one_time')).toBe('$1,500')
    expect(formatOpportunityValue(10_000, 'USD', 'monthly')).toBe('$100 monthly')
    expect(formatOpportunityValue(200_000, 'EUR', 'annual')).toBe('€2,000 annual')
    // The recording create_opportunity.json: 500 cents a month.
    expect(formatOpportunityValue(500, 'USD', 'monthly')).toBe('$5 monthly')
    expect(formatOpportunityValue(null, 'USD', 'one_time')).toBeNull()
  })

  it('shows cents only when there are some, and knows currencies without them', () => {
    expect(formatMoney(150_050, 'USD')).toBe('$1,500.50')
    expect(formatMoney(1_500, 'JPY')).toBe('¥1,500')
    expect(formatMoney(0, 'GBP')).toBe('£0')
  })

  it('annualizes monthly values and weighs by confidence', () => {
    expect(annualizedValue(10_000, 'monthly')).toBe(120_000)
    expect(annualizedValue(10_000, 'annual')).toBe(10_000)
    expect(annualizedValue(10_000, 'one_time')).toBe(10_000)
    expect(annualizedValue(null, 'monthly')).toBeNull()
    expect(expectedValue(10_001, 50)).toBe(5_001)
    expect(expectedValue(10_000, 0)).toBe(0)
    expect(expectedValue(null, 50)).toBeNull()
  })
})
