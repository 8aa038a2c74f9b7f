/**
 * `X-TZ-Offset` is the caller's UTC offset in decimal hours: `-4`, `5.5`, `0.0`.
 * Returns undefined for anything that is not a real-world offset.
 */
export function parseTzOffset(header: string): number | undefined {
  const text = header.trim()
  if (!/^[+-]?\d{1,2}(\.\d{1,4})?$/.test(text)) return undefined
  const hours = Number(text)
  if (hours < -12 || hours > 14) return undefined
  // Real offsets are whole quarter hours (e.g. +5.75 Nepal).
  if (!Number.isInteger(Math.round(hours * 60 * 1000) / 1000 / 15)) return undefined
  return hours
}

export function formatTzOffset(hours: number): string {
  return Number.isInteger(hours) ? hours.toFixed(1) : String(hours)
}

/**
 * A formatter per time zone: making one costs tens of microseconds, and the BFF needs the offset of a session's zone
 * on every request. A plain Map, because the zones are a few hundred IANA names (an unknown one throws and is not
 * kept); emptied if it ever holds more, so no input can grow it without a bound.
 */
const formatters = new Map<string, Intl.DateTimeFormat>()
const MAX_FORMATTERS = 1000

function formatterOf(timeZone: string): Intl.DateTimeFormat {
  const known = formatters.get(timeZone)
  if (known !== undefined) return known
  const made = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  })
  if (formatters.size >= MAX_FORMATTERS) formatters.clear()
  formatters.set(timeZone, made)
  return made
}

/**
 * Each zone's offset in the last minute asked about: the BFF asks on every request, mostly within the same minute, and
 * formatting a date costs more than the rest of its work. A zone's offset changes only at a whole minute (offsets and
 * the local times they change at are whole minutes), so within one minute it is the same. Bounded as `formatters`.
 */
const offsets = new Map<string, { minute: number; hours: number }>()

/** The UTC offset in hours of an IANA time zone at one instant (so it is right on both sides of a DST change). */
export function tzOffsetHoursAt(timeZone: string, at: Date): number {
  const minute = Math.floor(at.getTime() / 60_000)
  const known = offsets.get(timeZone)
  if (known?.minute === minute) return known.hours
  const hours = offsetAt(timeZone, at)
  if (offsets.size >= MAX_FORMATTERS) offsets.clear()
  offsets.set(timeZone, { minute, hours })
  return hours
}

function offsetAt(timeZone: string, at: Date): number {
  const parts = formatterOf(timeZone).formatToParts(at)
  const get = (type: Intl.DateTimeFormatPartTypes): number => Number(parts.find((p) => p.type === type)?.value)
  const asUtc = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'))
  const wholeSeconds = Math.floor(at.getTime() / 1000) * 1000
  return Math.round((asUtc - wholeSeconds) / 60_000) / 60
}

/** The calendar date (`YYYY-MM-DD`) at an instant for a caller at a UTC offset in hours. */
export function localDateAt(at: Date, offsetHours: number): string {
  return new Date(at.getTime() + offsetHours * 3_600_000).toISOString().slice(0, 10)
}

/** Whether the runtime knows the IANA time zone (names up to 64 characters). */
export function isTimeZone(zone: string): boolean {
  if (zone.length > 64) return false
  try {
    formatterOf(zone)
    return true
  } catch {
    return false
  }
}
