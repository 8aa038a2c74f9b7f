/** The browser's IANA time zone: the BFF receives it at sign-in and uses it for every API request. */
export function browserTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone
}

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' })
const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' })
const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' })

/** An API timestamp (`2017-09-29T10:40:23.140000+00:00`) in the user's zone, e.g. "Sep 29, 2017, 12:40 PM". */
export function formatDateTime(timestamp: string): string {
  const at = new Date(timestamp)
  return Number.isNaN(at.getTime()) ? timestamp : dateTime.format(at)
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

/** An API timestamp as the value of an `<input type="datetime-local">` in the user's zone. */
export function toDateTimeLocalInput(timestamp: string): string {
  const at = new Date(timestamp)
  if (Number.isNaN(at.getTime())) return ''
  const pad = (n: number) => String(n).padStart(2, '0')
  return `${localDate(at)}T${pad(at.getHours())}:${pad(at.getMinutes())}`
}

/** An `<input type="datetime-local">` value (the user's wall-clock time) as an ISO instant for the API. */
export function fromDateTimeLocalInput(value: string): string {
  const at = new Date(value)
  return Number.isNaN(at.getTime()) ? value : at.toISOString()
}

/** The user's calendar date at an instant (today by default), as `YYYY-MM-DD`. */
export function localDate(at: Date = new Date()): string {
  const pad = (n: number) => String(n).padStart(2, '0')
  return `${String(at.getFullYear())}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}`
}

/** A length in seconds as minutes and seconds: 75 → "1:15", 3600 → "60:00". */
export function formatDuration(seconds: number): string {
  const total = Math.max(0, Math.round(seconds))
  return `${String(Math.floor(total / 60))}:${String(total % 60).padStart(2, '0')}`
}
