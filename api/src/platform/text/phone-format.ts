import { getCountryCallingCode, isSupportedCountry, parsePhoneNumberFromString } from 'libphonenumber-js/max'

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
 * The organization's own numbers (calls, SMS) stay strict: see `normalizePhoneNumber`.
 */
export function normalizeContactPhone(raw: string, country: string): string | undefined {
  const digits = raw.replace(/\D/g, '')
  if (digits === '') return undefined
  // libphonenumber's E.164 for what it can parse, valid or not (a valid number comes out as normalizePhoneNumber's).
  const parsed = parsePhoneNumberFromString(raw, { defaultCountry: dialCountry(country), extract: false })
  if (parsed !== undefined) return parsed.ext === undefined ? parsed.number : undefined
  if (raw.trim().startsWith('+')) return `+${digits}`
  return `+${getCountryCallingCode(dialCountry(country))}${digits}`
}

/** `+14155550100` → `+1 415 555 0100`; `+441234` → `+44 1234`. */
export function formatPhoneNumber(e164: string): string {
  return parsePhoneNumberFromString(e164)?.formatInternational() ?? e164
}

/** The country (ISO 3166 alpha-2) of an E.164 number, when libphonenumber knows it. */
export function phoneCountry(e164: string): string | undefined {
  return parsePhoneNumberFromString(e164)?.country
}

/**
 * The other forms people type a stored number in, for free-text search: its digits (`14155550100`), its national
 * digits (`4155550100`) and its national format (`(415) 555-0100`).
 */
export function phoneSearchForms(e164: string): string[] {
  const parsed = parsePhoneNumberFromString(e164)
  const forms = [e164.replace(/\D/g, '')]
  if (parsed !== undefined) forms.push(parsed.nationalNumber, parsed.formatNational())
  return forms
}
