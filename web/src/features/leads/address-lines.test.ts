import type { Address } from '@leadline/shared/lead-schema'
import { describe, expect, it } from 'vitest'
import { addressLines } from './address-lines'

const blank: Address = {
  label: 'business',
  address_1: null,
  address_2: null,
  city: null,
  state: null,
  zipcode: null,
  country: null,
}

describe('addressLines', () => {
  it('writes a US address as city, state and ZIP', () => {
    const address = {
      ...blank,
      address_1: '8482 Oak Ave',
      city: 'Seattle',
      state: 'WA',
      zipcode: '98101',
      country: 'US',
    }
    expect(addressLines(address)).toEqual(['8482 Oak Ave', 'Seattle, WA 98101', 'US'])
  })

  it('puts the postal code first where the country does', () => {
    const address = { ...blank, address_1: 'Invalidenstr. 1', city: 'Berlin', zipcode: '10115', country: 'de' }
    expect(addressLines(address)).toEqual(['Invalidenstr. 1', '10115 Berlin', 'de'])
  })

  it('gives a UK postcode its own line', () => {
    const address = { ...blank, address_1: '10 Downing St', city: 'London', zipcode: 'SW1A 2AA', country: 'GB' }
    expect(addressLines(address)).toEqual(['10 Downing St', 'London', 'SW1A 2AA', 'GB'])
  })

  it('leaves out what is missing, with no stray commas', () => {
    expect(addressLines({ ...blank, state: 'CA' })).toEqual(['CA'])
    expect(addressLines({ ...blank, city: 'Austin', zipcode: '  ' })).toEqual(['Austin'])
    expect(addressLines({ ...blank, zipcode: '94105', address_2: 'Suite 4' })).toEqual(['Suite 4', '94105'])
    expect(addressLines(blank)).toEqual([])
  })
})
