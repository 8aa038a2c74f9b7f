import { localDateAt, tzOffsetHoursAt } from './tz-offset.js'

/**
 * Task dates in a caller's time zone. A task's `date` is date-only (`YYYY-MM-DD`) or a timestamp. A date-only task
 * stands at the start of its day in the caller's zone and, at the same instant, before any timed task: that one rule
 * gives the inbox/future split, the order by date, and the `date__*` filters (Close's documented behaviour).
 */

export type TaskViewName = 'inbox' | 'future' | 'archive'

/**
 * A caller's time zone: an IANA name (`America/New_York`), whose offset changes with daylight saving time, or a
 * fixed UTC offset in hours (what `X-TZ-Offset` carries), which is taken to hold on every day.
 */
export type TaskZone = string | number

const DAY_MS = 86_400_000

export function isDateOnly(date: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(date)
}

/** The calendar day after `day` (`YYYY-MM-DD`). */
export function nextDay(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10)
}

const HOUR_MS = 3_600_000

function offsetHoursAt(zone: TaskZone, at: Date): number {
  return typeof zone === 'number' ? zone : tzOffsetHoursAt(zone, at)
}

/** The calendar date (`YYYY-MM-DD`) at an instant in a zone. */
export function localDateIn(zone: TaskZone, at: Date): string {
  return localDateAt(at, offsetHoursAt(zone, at))
}

/**
 * The instant a calendar day starts in a zone: its local midnight, at the offset in force then (not now's, nor the
 * day before's). Where a change skips midnight, the day starts at the change.
 */
export function startOfLocalDay(day: string, zone: TaskZone): Date {
  const midnightUtc = Date.parse(`${day}T00:00:00Z`)
  if (typeof zone === 'number') return new Date(midnightUtc - zone * HOUR_MS)
  // Local midnight falls within 14 hours of UTC midnight; the offsets on either side of that span are the ones it
  // can have (no zone changes twice in a day and a half).
  const before = tzOffsetHoursAt(zone, new Date(midnightUtc - 15 * HOUR_MS))
  const after = tzOffsetHoursAt(zone, new Date(midnightUtc + 15 * HOUR_MS))
  const midnights = [before, after]
    .map((offset) => midnightUtc - offset * HOUR_MS)
    .filter((at) => tzOffsetHoursAt(zone, new Date(at)) * HOUR_MS === midnightUtc - at)
  return new Date(midnights.length > 0 ? Math.min(...midnights) : midnightUtc - before * HOUR_MS)
}

/**
 * Where a task is for a caller in `zone` at instant `now`: complete → archive; dateless, or dated up to the end of
 * the caller's today → inbox; later → future.
 */
export function taskViewAt(
  task: { is_complete: boolean; is_dateless: boolean; date: string },
  zone: TaskZone,
  now: Date,
): TaskViewName {
  if (task.is_complete) return 'archive'
  if (task.is_dateless) return 'inbox'
  const today = localDateIn(zone, now)
  if (isDateOnly(task.date)) return task.date <= today ? 'inbox' : 'future'
  const endOfToday = startOfLocalDay(nextDay(today), zone)
  return Date.parse(task.date) < endOfToday.getTime() ? 'inbox' : 'future'
}

/**
 * Orders two task dates for a caller: by the instant each stands at (a date-only one at the start of its day), a
 * date-only one first at the same instant. Negative when `a` comes first.
 */
export function compareTaskDates(a: string, b: string, zone: TaskZone): number {
  const at = (date: string) => (isDateOnly(date) ? startOfLocalDay(date, zone).getTime() : Date.parse(date))
  const rank = (date: string) => (isDateOnly(date) ? 0 : 1)
  return at(a) - at(b) || rank(a) - rank(b)
}
