import {
  getCountryCallingCode,
  isSupportedCountry,
  parsePhoneNumberFromString,
  type PhoneNumber,
} from 'libphonenumber-js/max'
import { LRUCache } from 'lru-cache'

const FALLBACK_COUNTRY = 'US'

/**
 * A phone number in E.164 (`+14155550100`), read as dialled from `country` (ISO 3166 alpha-2) unless it starts with
 * `+`; undefined when it is not a valid number, or carries an extension E.164 cannot hold.
 */
export function normalizePhoneNumber(raw: string, country: string): string | undefined {
  const parsed = parsePhoneNumberFromString(raw, { defaultCountry: dialCountry(country), extract: false })
  if (parsed === undefined || !parsed.isValid() || parsed.ext !== undefined) return undefined
  return parsed.number
}

function dialCountry(country: string) {
  return isSupportedCountry(country) ? country : FALLBACK_COUNTRY
}

/**
 * A contact's phone, kept the way Close keeps it: a valid number becomes E.164; any other input with digits is kept
 * as `+` + country calling code + its digits (`1234` in a GB organization → `+441234`), or `+` + its digits when it
 * was dialled with `+`. Undefined when there are no digits at all, or an extension E.164 cannot hold.
 * What it returns normalizes to itself: a stored number read back and saved again is not changed.
 * The organization's own numbers (calls, SMS) stay strict: see `normalizePhoneNumber`.
 */
export function normalizeContactPhone(raw: string, country: string): string | undefined {
  const digits = raw.replace(/\D/g, '')
  if (digits === '') return undefined
  const dialledWithPlus = raw.trimStart().startsWith('+')
  // libphonenumber's E.164 for what it can parse, valid or not (a valid number comes out as normalizePhoneNumber's).
  const parsed = parsePhoneNumberFromString(raw, { defaultCountry: dialCountry(country), extract: false })
  if (parsed?.ext !== undefined) return undefined
  // Dialled with `+`, a valid number parses as its E.164 form would, and so does any number whose digits the parse kept
  // whole (no national prefix dropped: the same digits parse alike): its facts are kept for the views and search. The
  // digits are compared first: validity tries the patterns of every country of the calling code (25 for `+1`).
  if (parsed !== undefined && ((dialledWithPlus && parsed.number === `+${digits}`) || parsed.isValid())) {
    if (dialledWithPlus) remember(parsed.number, parsed)
    return parsed.number
  }
  const kept =
    parsed?.number ?? (dialledWithPlus ? `+${digits}` : `+${getCountryCallingCode(dialCountry(country))}${digits}`)
  return settled(kept)
}

/**
 * An E.164 form that a parse reads as itself. A parse of a number that is not valid keeps a zero or one after the
 * calling code as part of the number (`+61 0028526` → `+61028526`) that a parse of the result drops as a national
 * prefix (`+6128526`): stored as it first came, the number would change each time it was saved again. Each step drops
 * at least a digit, so a number has at most as many steps as digits; the facts of the last parse are kept.
 */
function settled(e164: string): string {
  let current = e164
  for (let step = 0; step < 16; step++) {
    const parsed = parsePhoneNumberFromString(current)
    if (parsed === undefined) return current
    if (parsed.number === current) {
      remember(current, parsed)
      return current
    }
    current = parsed.number
  }
  return current
}

/** What the views and the search index show of a stored number, from one parse of it. */
interface PhoneFacts {
  formatted: string
  country: string | undefined
  /** Its digits, national digits and national format (`phoneSearchForms`). */
  searchForms: string[]
}

/**
 * The facts of the numbers read lately. Parsing a number whose calling code several countries share (+1, +44, +7)
 * tries each country's patterns in turn, tens of microseconds; a lead's view, its search row and its events each
 * want the same facts of the same numbers. Bounded by count; each entry is a few short strings.
 */
const known = new LRUCache<string, PhoneFacts>({ max: 20_000 })

function factsOf(e164: string): PhoneFacts {
  return known.get(e164) ?? remember(e164, parsePhoneNumberFromString(e164))
}

function remember(e164: string, parsed: PhoneNumber | undefined): PhoneFacts {
  const digits = e164.replace(/\D/g, '')
  const facts: PhoneFacts =
    parsed === undefined
      ? { formatted: e164, country: undefined, searchForms: [digits] }
      : {
          formatted: parsed.formatInternational(),
          country: parsed.country,
          searchForms: [digits, parsed.nationalNumber, parsed.formatNational()],
        }
  // Stored numbers are short (E.164 has at most 15 digits); anything longer is not kept.
  if (e164.length <= 32) known.set(e164, facts)
  return facts
}

/** `+14155550100` → `+1 415 555 0100`; `+441234` → `+44 1234`. */
export function formatPhoneNumber(e164: string): string {
  return factsOf(e164).formatted
}

/** The country (ISO 3166 alpha-2) of an E.164 number, when libphonenumber knows it. */
export function phoneCountry(e164: string): string | undefined {
  return factsOf(e164).country
}

/**
 * The other forms people type a stored number in, for free-text search: its digits (`14155550100`), its national
 * digits (`4155550100`) and its national format (`(415) 555-0100`).
 */
export function phoneSearchForms(e164: string): string[] {
  return [...factsOf(e164).searchForms]
}
