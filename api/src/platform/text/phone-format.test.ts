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

  it('gives a caller its own copy of the search forms', () => {
    phoneSearchForms('+14155550101').push('changed')
    expect(phoneSearchForms('+14155550101')).toEqual(parsedFacts('+14155550101').forms)
  })
})
