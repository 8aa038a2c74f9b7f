// Money as people type it (major units: `1,500.50`) and as the API stores it (integers in the smallest unit).

export type MoneyInput = { ok: true; cents: number | null } | { ok: false; error: string }

// Building an Intl.NumberFormat is costly; a currency's digits are read once.
const digitsByCurrency = new Map<string, number>()

/** Digits after the decimal point in a currency's smallest unit: 2 for USD, 0 for JPY. */
export function minorDigitsOf(currency: string): number {
  let digits = digitsByCurrency.get(currency)
  if (digits === undefined) {
    const format = new Intl.NumberFormat('en-US', { style: 'currency', currency })
    digits = format.resolvedOptions().maximumFractionDigits ?? 2
    digitsByCurrency.set(currency, digits)
  }
  return digits
}

/**
 * Reads a typed amount: digits with optional thousands commas and at most the currency's decimals. Empty means no
 * value. Done on the digits as text, so `0.29` is 29 cents exactly, never 28.999….
 */
export function parseMoney(text: string, currency: string): MoneyInput {
  const typed = text.replace(/\s/g, '')
  if (typed === '') return { ok: true, cents: null }
  if (typed.startsWith('-')) return { ok: false, error: 'Enter an amount of 0 or more.' }
  const match = /^(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d*))?$/.exec(typed)
  const whole = match?.[1]
  if (match === null || whole === undefined) return { ok: false, error: 'Enter an amount such as 1,500 or 99.50.' }
  const digits = minorDigitsOf(currency)
  const fraction = match[2] ?? ''
  if (fraction.length > digits) {
    return {
      ok: false,
      error:
        digits === 0
          ? `Enter a whole amount: ${currency} has no smaller unit.`
          : `Enter at most ${String(digits)} decimals.`,
    }
  }
  const cents = Number(whole.replaceAll(',', '') + fraction.padEnd(digits, '0'))
  if (!Number.isSafeInteger(cents)) return { ok: false, error: 'This amount is too large.' }
  return { ok: true, cents }
}

/** An amount in the smallest unit as an input's text in major units: `1500`, `1500.50`; empty for no value. */
export function formatMajor(cents: number | null, currency: string): string {
  if (cents === null) return ''
  const digits = minorDigitsOf(currency)
  const scale = 10 ** digits
  const minor = cents % scale
  const whole = String((cents - minor) / scale)
  return minor === 0 ? whole : `${whole}.${String(minor).padStart(digits, '0')}`
}
