/**
 * Date values in searches (`created:today`, `date_updated>="2017-09-29T10:40"`) resolve to a half-open UTC
 * range [start, end) in the caller's local calendar (their X-TZ-Offset). A compiler turns `field OP value` into:
 *   field:value   start <= x < end
 *   field>value   x >= end
 *   field>=value  x >= start
 *   field<value   x < start
 *   field<=value  x < end
 * "N days/weeks/months/years ago" is the local day that long before today (a month back from 31 March is the last
 * day of February); "this/last week|month|year" is the whole calendar period, weeks starting on Monday.
 *
 * All arithmetic is on UTC fields shifted by the offset, so the server's own time zone never matters (date-fns'
 * calendar functions follow the process's local zone, which is why they are not used here).
 */

/** A date value that is not one of the forms above. `what` names the value, `why` says what would be accepted. */
export class DateValueError extends Error {
  constructor(
    readonly what: string,
    readonly why: string,
  ) {
    super(`${what}: ${why}`)
    this.name = 'DateValueError'
  }
}

export type DateValue =
  | { kind: 'date'; year: number; month: number; day: number }
  /** A wall-clock time read as UTC, in ms plus µs, with its zone in minutes east of UTC (null: the caller's). */
  | { kind: 'time'; ms: number; us: number; precisionUs: number; zoneMinutes: number | null }
  | { kind: 'days-ago'; days: number }
  | { kind: 'months-ago'; months: number }
  | { kind: 'period'; unit: 'week' | 'month' | 'year'; back: 0 | 1 }

export interface DateRange {
  start: string
  end: string
}

const accepted =
  'use YYYY-MM-DD, a time like 2017-09-29T10:40[:23[.140000]][Z|+02:00], today, yesterday, tomorrow, ' +
  '"N days ago", "N weeks ago", "N months ago", "N years ago", "this week", "last week", "this month", ' +
  '"last month", "this year" or "last year"'

const datePattern = /^(\d{4})-(\d{2})-(\d{2})$/
const timePattern = /^(\d{4})-(\d{2})-(\d{2})[t ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?(z|[+-]\d{2}:\d{2})?$/
const agoPattern = /^(\d{1,9}) (day|week|month|year)s? ago$/
const periodPattern = /^(this|last) (week|month|year)$/
const namedDays = new Map([
  ['today', 0],
  ['yesterday', 1],
  ['tomorrow', -1],
])

/** Checks and classifies a date value without resolving it; throws DateValueError. */
export function parseDateValue(text: string): DateValue {
  const value = text.trim().replace(/\s+/g, ' ').toLowerCase()
  const invalid = (why: string) => new DateValueError(`Invalid date "${text}"`, why)

  const relative = namedDays.get(value)
  if (relative !== undefined) return { kind: 'days-ago', days: relative }

  const ago = agoPattern.exec(value)
  if (ago) {
    const count = Number(ago[1])
    switch (ago[2]) {
      case 'day':
        return { kind: 'days-ago', days: count }
      case 'week':
        return { kind: 'days-ago', days: count * 7 }
      case 'month':
        return { kind: 'months-ago', months: count }
      default:
        return { kind: 'months-ago', months: count * 12 }
    }
  }

  const period = periodPattern.exec(value)
  if (period) {
    const unit = period[2] === 'week' ? 'week' : period[2] === 'month' ? 'month' : 'year'
    return { kind: 'period', unit, back: period[1] === 'last' ? 1 : 0 }
  }

  const date = datePattern.exec(value)
  const time = date ? null : timePattern.exec(value)
  const parts = date ?? time
  if (!parts) throw new DateValueError(`Unrecognised date "${text}"`, accepted)

  const [year, month, day] = [Number(parts[1]), Number(parts[2]), Number(parts[3])]
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month - 1)) {
    throw invalid('there is no such day')
  }
  if (!time) return { kind: 'date', year, month, day }

  const [hour, minute, second] = [Number(time[4]), Number(time[5]), Number(time[6] ?? '0')]
  if (hour > 23 || minute > 59 || second > 59) throw invalid('there is no such time of day')
  const fraction = time[7] ?? ''
  const precisionUs = time[6] === undefined ? 60_000_000 : 10 ** (6 - fraction.length)
  const micros = Number(fraction.padEnd(6, '0'))
  const ms = utcMs(year, month - 1, day) + ((hour * 60 + minute) * 60 + second) * 1000 + Math.floor(micros / 1000)
  return { kind: 'time', ms, us: micros % 1000, precisionUs, zoneMinutes: zoneMinutes(time[8], invalid) }
}

function zoneMinutes(zone: string | undefined, invalid: (why: string) => DateValueError): number | null {
  if (zone === undefined) return null
  if (zone === 'z') return 0
  const hours = Number(zone.slice(1, 3))
  const minutes = Number(zone.slice(4, 6))
  if (hours > 23 || minutes > 59) throw invalid('there is no such UTC offset')
  return (zone.startsWith('-') ? -1 : 1) * (hours * 60 + minutes)
}

/** Midnight UTC of a calendar day as epoch ms; out-of-range months and days roll over. */
function utcMs(year: number, monthIndex: number, day: number): number {
  // setUTCFullYear, unlike Date.UTC, does not read years 0–99 as 1900–1999.
  return new Date(0).setUTCFullYear(year, monthIndex, day)
}

function daysInMonth(year: number, monthIndex: number): number {
  return new Date(utcMs(year, monthIndex + 1, 0)).getUTCDate()
}

interface Instant {
  ms: number
  us: number
}

// Wire timestamps have four-digit years.
const earliestMs = utcMs(1, 0, 1)
const latestMs = utcMs(10000, 0, 1)

function formatInstant(at: Instant, text: string): string {
  if (!(at.ms >= earliestMs && at.ms < latestMs)) {
    throw new DateValueError(`Date out of range "${text}"`, 'use a date between the years 1 and 9999')
  }
  return `${new Date(at.ms).toISOString().slice(0, 23)}${String(at.us).padStart(3, '0')}+00:00`
}

function formatDay(ms: number, text: string): string {
  if (!(ms >= earliestMs && ms < latestMs)) {
    throw new DateValueError(`Date out of range "${text}"`, 'use a date between the years 1 and 9999')
  }
  return new Date(ms).toISOString().slice(0, 10)
}

/** What a date value covers: whole local calendar days (as UTC midnights of those days), or a span of instants. */
type Span =
  | { kind: 'days'; startMs: number; endMs: number; offsetMs: number }
  | { kind: 'instants'; start: Instant; end: Instant }

/**
 * The half-open UTC range [start, end) that a date value covers for a caller at `tzOffsetHours` (e.g. -4, 5.5),
 * as wire timestamps. Throws DateValueError.
 */
export function resolveDateValue(text: string, now: Date, tzOffsetHours: number): DateRange {
  const span = resolveSpan(text, now, tzOffsetHours)
  if (span.kind === 'instants') return { start: formatInstant(span.start, text), end: formatInstant(span.end, text) }
  // Local midnight is UTC midnight minus the offset.
  return {
    start: formatInstant({ ms: span.startMs - span.offsetMs, us: 0 }, text),
    end: formatInstant({ ms: span.endMs - span.offsetMs, us: 0 }, text),
  }
}

/**
 * The calendar days [start, end) that a date value covers for a caller at `tzOffsetHours`, as `YYYY-MM-DD`: for
 * values that are days, not instants (date custom fields). Throws DateValueError, also for a time of day.
 */
export function resolveDateDays(text: string, now: Date, tzOffsetHours: number): DateRange {
  const span = resolveSpan(text, now, tzOffsetHours)
  if (span.kind === 'instants') {
    throw new DateValueError(
      `Unexpected time of day "${text}"`,
      'a date field holds whole days: use YYYY-MM-DD or a relative date like "30 days ago"',
    )
  }
  return { start: formatDay(span.startMs, text), end: formatDay(span.endMs, text) }
}

function resolveSpan(text: string, now: Date, tzOffsetHours: number): Span {
  const value = parseDateValue(text)
  const offsetMs = Math.round(tzOffsetHours * 60) * 60_000
  const local = new Date(now.getTime() + offsetMs)
  const [year, month, day] = [local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate()]
  const days = (from: number, to: number) => range(utcMs(year, month, from), utcMs(year, month, to))
  const range = (startMs: number, endMs: number): Span => ({ kind: 'days', startMs, endMs, offsetMs })

  switch (value.kind) {
    case 'date':
      return range(utcMs(value.year, value.month - 1, value.day), utcMs(value.year, value.month - 1, value.day + 1))
    case 'time': {
      const zoneMs = value.zoneMinutes === null ? offsetMs : value.zoneMinutes * 60_000
      const start = { ms: value.ms - zoneMs, us: value.us }
      const endUs = value.us + value.precisionUs
      const end = { ms: start.ms + Math.floor(endUs / 1000), us: endUs % 1000 }
      return { kind: 'instants', start, end }
    }
    case 'days-ago':
      return days(day - value.days, day - value.days + 1)
    case 'months-ago': {
      const first = new Date(utcMs(year, month - value.months, 1))
      const [y, m] = [first.getUTCFullYear(), first.getUTCMonth()]
      const d = Math.min(day, daysInMonth(y, m))
      return range(utcMs(y, m, d), utcMs(y, m, d + 1))
    }
    case 'period':
      switch (value.unit) {
        case 'week': {
          const monday = day - ((new Date(utcMs(year, month, day)).getUTCDay() + 6) % 7) - 7 * value.back
          return days(monday, monday + 7)
        }
        case 'month':
          return range(utcMs(year, month - value.back, 1), utcMs(year, month - value.back + 1, 1))
        case 'year':
          return range(utcMs(year - value.back, 0, 1), utcMs(year - value.back + 1, 0, 1))
      }
  }
}
