import { localDateAt } from './tz-offset.js'

/**
 * Task dates in a caller's time zone. A task's `date` is date-only (`YYYY-MM-DD`) or a timestamp. A date-only task
 * stands at the start of its day in the caller's zone and, at the same instant, before any timed task: that one rule
 * gives the inbox/future split, the order by date, and the `date__*` filters (Close's documented behaviour).
 */

export type TaskViewName = 'inbox' | 'future' | 'archive'

const DAY_MS = 86_400_000

export function isDateOnly(date: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(date)
}

/** The calendar day after `day` (`YYYY-MM-DD`). */
export function nextDay(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10)
}

/** The instant a calendar day starts for a caller at a UTC offset in hours. */
export function startOfLocalDay(day: string, offsetHours: number): Date {
  return new Date(Date.parse(`${day}T00:00:00Z`) - offsetHours * 3_600_000)
}

/**
 * Where a task is for a caller at `offsetHours` at instant `now`: complete → archive; dateless, or dated up to the
 * end of the caller's today → inbox; later → future.
 */
export function taskViewAt(
  task: { is_complete: boolean; is_dateless: boolean; date: string },
  offsetHours: number,
  now: Date,
): TaskViewName {
  if (task.is_complete) return 'archive'
  if (task.is_dateless) return 'inbox'
  const today = localDateAt(now, offsetHours)
  if (isDateOnly(task.date)) return task.date <= today ? 'inbox' : 'future'
  const endOfToday = startOfLocalDay(nextDay(today), offsetHours)
  return Date.parse(task.date) < endOfToday.getTime() ? 'inbox' : 'future'
}

/**
 * Orders two task dates for a caller: by the instant each stands at (a date-only one at the start of its day), a
 * date-only one first at the same instant. Negative when `a` comes first.
 */
export function compareTaskDates(a: string, b: string, offsetHours: number): number {
  const at = (date: string) => (isDateOnly(date) ? startOfLocalDay(date, offsetHours).getTime() : Date.parse(date))
  const rank = (date: string) => (isDateOnly(date) ? 0 : 1)
  return at(a) - at(b) || rank(a) - rank(b)
}
