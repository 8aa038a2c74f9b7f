import { describe, expect, it } from 'vitest'
import { formatMajor, minorDigitsOf, parseMoney } from './opportunity-form-money'

describe('parseMoney', () => {
  it.each([
    ['1500', 150_000],
    ['1,500', 150_000],
    ['1,500.5', 150_050],
    ['0.29', 29],
    ['12.', 1200],
    [' 2 000 ', 200_000],
    ['0', 0],
  ])('reads %j in USD as %i cents', (text, cents) => {
    expect(parseMoney(text, 'USD')).toEqual({ ok: true, cents })
  })

  it('reads empty text as no value', () => {
    expect(parseMoney('  ', 'USD')).toEqual({ ok: true, cents: null })
  })

  it('counts in the currency’s own smallest unit', () => {
    expect(parseMoney('1,500', 'JPY')).toEqual({ ok: true, cents: 1500 })
    expect(parseMoney('1.5', 'JPY')).toEqual({ ok: false, error: 'Enter a whole amount: JPY has no smaller unit.' })
    expect(parseMoney('1.234', 'BHD')).toEqual({ ok: true, cents: 1234 })
  })

  it.each([
    ['-5', 'Enter an amount of 0 or more.'],
    ['abc', 'Enter an amount such as 1,500 or 99.50.'],
    ['1,50', 'Enter an amount such as 1,500 or 99.50.'],
    ['1.2.3', 'Enter an amount such as 1,500 or 99.50.'],
    ['$100', 'Enter an amount such as 1,500 or 99.50.'],
    ['9.999', 'Enter at most 2 decimals.'],
    ['99999999999999999999', 'This amount is too large.'],
  ])('refuses %j', (text, error) => {
    expect(parseMoney(text, 'USD')).toEqual({ ok: false, error })
  })
})

describe('formatMajor', () => {
  it.each([
    [150_000, 'USD', '1500'],
    [150_050, 'USD', '1500.50'],
    [7, 'USD', '0.07'],
    [1500, 'JPY', '1500'],
    [null, 'USD', ''],
  ])('writes %j %s as %j', (cents, currency, text) => {
    expect(formatMajor(cents, currency)).toBe(text)
  })

  it('round-trips through parseMoney', () => {
    for (const cents of [0, 1, 99, 100, 123_456, 100_000_000_000])
      expect(parseMoney(formatMajor(cents, 'EUR'), 'EUR')).toEqual({ ok: true, cents })
  })

  it('knows the digits of common currencies', () => {
    expect([minorDigitsOf('USD'), minorDigitsOf('JPY'), minorDigitsOf('KWD')]).toEqual([2, 0, 3])
  })
})
