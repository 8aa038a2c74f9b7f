// Calendar dates and ISO 8601 instants as clients send them, read from their parts (never through `new Date()` for
// a date-only value): custom field values, task dates and every list's date filters.

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/
const DATETIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(?:([Zz])|([+-])(\d{2}):?(\d{2}))?$/

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28
  return [4, 6, 9, 11].includes(month) ? 30 : 31
}

function isCalendarDate(year: number, month: number, day: number): boolean {
  return year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month)
}

/** `YYYY-MM-DD` when it names a real calendar day; checked from its parts, never through `new Date()`. */
export function parseCalendarDate(text: string): string | undefined {
  const match = DATE.exec(text)
  if (match === null) return undefined
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])]
  return isCalendarDate(year, month, day) ? text : undefined
}

/**
 * An ISO 8601 date and time → `YYYY-MM-DDTHH:MM:SS.ffffff+00:00` (UTC, microseconds; finer digits are dropped).
 * Without an offset the time is taken as UTC.
 */
export function normalizeDatetime(text: string): string | undefined {
  const m = DATETIME.exec(text)
  if (m === null) return undefined
  const [year, month, day, hour, minute] = [1, 2, 3, 4, 5].map((i) => Number(m[i]))
  const second = Number(m[6] ?? '0')
  if (year === undefined || month === undefined || day === undefined || hour === undefined || minute === undefined) {
    return undefined
  }
  if (!isCalendarDate(year, month, day) || hour > 23 || minute > 59 || second > 59) return undefined
  let offsetMinutes = 0
  const [sign, offsetHours, offsetMins] = [m[9], Number(m[10] ?? '0'), Number(m[11] ?? '0')]
  if (sign !== undefined) {
    if (offsetHours > 23 || offsetMins > 59) return undefined
    offsetMinutes = (sign === '-' ? -1 : 1) * (offsetHours * 60 + offsetMins)
  }
  const at = new Date(0)
  at.setUTCFullYear(year, month - 1, day)
  at.setUTCHours(hour, minute - offsetMinutes, second, 0)
  const utcYear = at.getUTCFullYear()
  if (utcYear < 1 || utcYear > 9999) return undefined
  const micros = (m[7] ?? '').slice(0, 6).padEnd(6, '0')
  return `${at.toISOString().slice(0, 19)}.${micros}+00:00`
}

export const DATE_OR_TIMESTAMP = 'Enter a date (YYYY-MM-DD) or an ISO 8601 timestamp.'

/** A calendar day, or an instant in stored form. */
export type DayOrInstant = { day: string } | { instant: string }

/** A calendar day (`YYYY-MM-DD`) or an ISO 8601 date and time, as a day or as a stored timestamp. */
export function parseDayOrInstant(text: string): DayOrInstant | undefined {
  const day = parseCalendarDate(text)
  if (day !== undefined) return { day }
  const instant = normalizeDatetime(text)
  return instant === undefined ? undefined : { instant }
}

/** A timestamp bound: the instant given, or the start (UTC) of the day given. */
export function parseTimestampBound(text: string): string | undefined {
  const parsed = parseDayOrInstant(text)
  if (parsed === undefined) return undefined
  return 'day' in parsed ? `${parsed.day}T00:00:00.000000+00:00` : parsed.instant
}
