/** The browser's IANA time zone: the BFF receives it at sign-in and uses it for every API request. */
export function browserTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone
}

// Times and "today" show in the session's zone: the one chosen on the Profile, else the browser's. The BFF turns the
// same zone into X-TZ-Offset, so the screen and the API agree on what "today" is.
let sessionZone: string | undefined
const zoned = new Map<string, Intl.DateTimeFormat>()
let zonedIn: string | undefined

/** The zone the app shows times in. */
export function displayTimeZone(): string {
  return sessionZone ?? browserTimeZone()
}

/** Set from the session whenever it is read. */
export function setDisplayTimeZone(zone: string | undefined): void {
  sessionZone = zone
}

/**
 * A formatter in the display zone, made once per zone: `key` names one of the app's fixed sets of options, so the map
 * holds a handful of entries at most.
 */
export function zonedFormat(key: string, options: Intl.DateTimeFormatOptions, locale?: string): Intl.DateTimeFormat {
  const zone = displayTimeZone()
  // Formatters made for another zone (the session's changed, or the browser's before there is a session) go.
  if (zone !== zonedIn) {
    zoned.clear()
    zonedIn = zone
  }
  let format = zoned.get(key)
  if (format === undefined) {
    format = new Intl.DateTimeFormat(locale, { ...options, timeZone: zone })
    zoned.set(key, format)
  }
  return format
}

const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' })
const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' })

/** An API timestamp (`2017-09-29T10:40:23.140000+00:00`) in the user's zone, e.g. "Sep 29, 2017, 12:40 PM". */
export function formatDateTime(timestamp: string): string {
  const at = new Date(timestamp)
  return Number.isNaN(at.getTime())
    ? timestamp
    : zonedFormat('date-time', { dateStyle: 'medium', timeStyle: 'short' }).format(at)
}

/** "3 hours ago", "yesterday", falling back to the date after a week. */
export function formatRelative(timestamp: string, now: Date = new Date()): string {
  const at = new Date(timestamp)
  if (Number.isNaN(at.getTime())) return timestamp
  const seconds = Math.round((at.getTime() - now.getTime()) / 1000)
  const abs = Math.abs(seconds)
  if (abs < 60) return relative.format(0, 'second')
  if (abs < 3600) return relative.format(Math.round(seconds / 60), 'minute')
  if (abs < 86_400) return relative.format(Math.round(seconds / 3600), 'hour')
  if (abs < 7 * 86_400) return relative.format(Math.round(seconds / 86_400), 'day')
  return formatDateTime(timestamp)
}

/**
 * A calendar date (`YYYY-MM-DD`) stays that date in every zone: it is read as its parts and formatted in UTC, never
 * through `new Date('YYYY-MM-DD')` in local time.
 */
export function formatCalendarDate(value: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value)
  if (match === null) return value
  const [, year, month, day] = match
  return dateOnly.format(new Date(Date.UTC(Number(year), Number(month) - 1, Number(day))))
}

/** The user's calendar date at an instant (today by default), as `YYYY-MM-DD`. */
export function localDate(at: Date = new Date()): string {
  // Canadian English writes dates as ISO does.
  return zonedFormat('day', { year: 'numeric', month: '2-digit', day: '2-digit' }, 'en-CA').format(at)
}

/** A length in seconds as minutes and seconds: 75 → "1:15", 3600 → "60:00". */
export function formatDuration(seconds: number): string {
  const total = Math.max(0, Math.round(seconds))
  return `${String(Math.floor(total / 60))}:${String(total % 60).padStart(2, '0')}`
}
