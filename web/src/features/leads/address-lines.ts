import type { Address } from '@leadline/shared/lead-schema'

// Where the postal code goes on the city line, by ISO country code. North America and Australia put it after the
// city and state ("Seattle, WA 98101"); the UK and Ireland give it a line of its own; most of Europe and Latin
// America put it first ("10115 Berlin"). Unknown or missing countries read the North American way.
const CODE_OWN_LINE = new Set(['GB', 'UK', 'IE'])
const CODE_FIRST = new Set([
  'AT',
  'BE',
  'BR',
  'CH',
  'CZ',
  'DE',
  'DK',
  'ES',
  'FI',
  'FR',
  'IT',
  'LU',
  'MX',
  'NL',
  'NO',
  'PL',
  'PT',
  'SE',
])

function present(value: string | null): value is string {
  return value !== null && value.trim() !== ''
}

function joined(parts: (string | null)[], separator: string): string {
  return parts.filter(present).join(separator)
}

/** An address as the lines a person in its country would write on an envelope. */
export function addressLines(address: Address): string[] {
  const country = address.country?.trim().toUpperCase() ?? ''
  const { city, state, zipcode } = address
  let cityLines: string[]
  if (CODE_OWN_LINE.has(country)) cityLines = [joined([city, state], ', '), zipcode ?? '']
  else if (CODE_FIRST.has(country)) cityLines = [joined([joined([zipcode, city], ' '), state], ', ')]
  else cityLines = [joined([joined([city, state], ', '), zipcode], ' ')]
  return [address.address_1, address.address_2, ...cityLines, address.country].filter(present)
}
