import fc from 'fast-check'
import { parsePhoneNumberFromString } from 'libphonenumber-js/max'
import { describe, expect, it } from 'vitest'
import { formatPhoneNumber, normalizeContactPhone, phoneCountry, phoneSearchForms } from './phone-format.js'

// The facts of a stored number are kept after the first parse (and after a normalization of a number dialled with
// `+`): whichever way they were first learnt, they must be what a parse of the stored number says.

function parsedFacts(e164: string) {
  const parsed = parsePhoneNumberFromString(e164)
  const digits = e164.replace(/\D/g, '')
  return parsed === undefined
    ? { formatted: e164, country: undefined, forms: [digits] }
    : {
        formatted: parsed.formatInternational(),
        country: parsed.country,
        forms: [digits, parsed.nationalNumber, parsed.formatNational()],
      }
}

function storedFacts(e164: string) {
  return { formatted: formatPhoneNumber(e164), country: phoneCountry(e164), forms: phoneSearchForms(e164) }
}

describe('phone facts', () => {
  it('reads the format, country and search forms of a stored number', () => {
    expect(storedFacts('+14155550100')).toEqual({
      formatted: '+1 415 555 0100',
      country: 'US',
      forms: ['14155550100', '4155550100', '(415) 555-0100'],
    })
    expect(storedFacts('+16135550100').country).toBe('CA')
    expect(storedFacts('+441234').formatted).toBe('+44 1234')
  })

  it('learns from a number dialled with + what a parse of its E.164 form says', () => {
    const dialled = fc.oneof(
      fc.constantFrom('+1', '+44', '+7', '+33', '+61', '+1 (613) ', '+44 (0)20 '),
      fc.constant('+'),
    )
    fc.assert(
      fc.property(dialled, fc.stringMatching(/^[0-9 -]{1,14}$/), (prefix, rest) => {
        const e164 = normalizeContactPhone(`${prefix}${rest}`, 'US')
        if (e164 === undefined) return
        expect(storedFacts(e164)).toEqual(parsedFacts(e164))
      }),
      { numRuns: 500 },
    )
  })

  it('keeps a number dialled with + whose parse would drop a national prefix in the form that reads as itself', () => {
    // Found by the property above: `+61 0028526` parsed as `+61028526`, which a parse of its own reads as `+6128526`.
    expect(normalizeContactPhone('+610028526', 'US')).toBe('+6128526')
    expect(storedFacts('+6128526')).toEqual(parsedFacts('+6128526'))
    expect(normalizeContactPhone('+610079382 42 74', 'US')).toBe('+61793824274')
    expect(formatPhoneNumber('+61793824274')).toBe('+61 7 9382 4274')
  })

  it('normalizes what it stored to itself, whichever way the number was typed and in any country', () => {
    const typed = fc.constantFrom('+1', '+44', '+61', '+', '', '0', '00', '011', '1', '+44 (0)20 ')
    const country = fc.constantFrom('US', 'GB', 'AU', 'FR', 'DE', 'IN', 'RU')
    fc.assert(
      fc.property(typed, fc.stringMatching(/^[0-9 -]{1,14}$/), country, (prefix, rest, dialledFrom) => {
        const stored = normalizeContactPhone(`${prefix}${rest}`, dialledFrom)
        if (stored === undefined) return
        expect(normalizeContactPhone(stored, dialledFrom)).toBe(stored)
        expect(storedFacts(stored)).toEqual(parsedFacts(stored))
      }),
      { numRuns: 2000 },
    )
    // Kept with the organization's calling code and then read back: `008 0551680` in France.
    expect(normalizeContactPhone('008- 0551680', 'FR')).toBe(normalizeContactPhone('+330080551680', 'FR'))
  })

  it('gives a caller its own copy of the search forms', () => {
    phoneSearchForms('+14155550101').push('changed')
    expect(phoneSearchForms('+14155550101')).toEqual(parsedFacts('+14155550101').forms)
  })
})
