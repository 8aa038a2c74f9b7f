// Opportunity money as Close writes it: integers in the currency's smallest unit, shown with the currency's symbol
// (`$1,500`, `$100 monthly`, `€2,000 annual`), cents only when there are some.

export const VALUE_PERIODS = ['one_time', 'monthly', 'annual'] as const
export type ValuePeriod = (typeof VALUE_PERIODS)[number]

interface CurrencyFormat {
  /** Digits after the decimal point in the currency's smallest unit: 2 for USD, 0 for JPY. */
  minorDigits: number
  whole: Intl.NumberFormat
  withMinor: Intl.NumberFormat
}

// Building an Intl.NumberFormat costs far more than using one: two per currency, made once.
const formats = new Map<string, CurrencyFormat>()

function currencyFormat(currency: string): CurrencyFormat {
  let format = formats.get(currency)
  if (format === undefined) {
    const options = { style: 'currency', currency, currencyDisplay: 'narrowSymbol' } as const
    const withMinor = new Intl.NumberFormat('en-US', options)
    const minorDigits = withMinor.resolvedOptions().maximumFractionDigits ?? 2
    const whole = new Intl.NumberFormat('en-US', { ...options, minimumFractionDigits: 0, maximumFractionDigits: 0 })
    format = { minorDigits, whole, withMinor }
    formats.set(currency, format)
  }
  return format
}

/** `value` in `currency`'s smallest unit as people read it: `$1,500`, `$1,500.50`, `¥1,500`. */
export function formatMoney(value: number, currency: string): string {
  const format = currencyFormat(currency)
  const scale = 10 ** format.minorDigits
  const amount = value / scale
  return value % scale === 0 ? format.whole.format(amount) : format.withMinor.format(amount)
}

/** Close's `value_formatted`: the amount, then the period unless it is one-time; null without a value. */
export function formatOpportunityValue(value: number | null, currency: string, period: ValuePeriod): string | null {
  if (value === null) return null
  const amount = formatMoney(value, currency)
  return period === 'one_time' ? amount : `${amount} ${period}`
}

/** A value over a year: monthly values count twelve times. */
export function annualizedValue(value: number | null, period: ValuePeriod): number | null {
  if (value === null) return null
  return period === 'monthly' ? value * 12 : value
}

/** What a value is worth at a confidence (0–100), in whole smallest units. */
export function expectedValue(value: number | null, confidence: number): number | null {
  if (value === null) return null
  return Math.round((value * confidence) / 100)
}
