import { isDateOnly } from '@leadline/shared/task-dates'
import { localDate, zonedFormat } from '../../lib/format'

// Calendar days in the user's zone (the session's: the Profile's choice, else the browser's); the BFF sends the API
// the same zone (X-TZ-Offset).

/** The calendar day `days` after `day` (`YYYY-MM-DD`), counted on the calendar, not in 24-hour steps. */
export function addDays(day: string, days: number): string {
  const [year = 0, month = 1, date = 1] = day.split('-').map(Number)
  return new Date(Date.UTC(year, month - 1, date + days)).toISOString().slice(0, 10)
}

/** The weekday of a calendar day, 0 for Sunday. */
export function weekday(day: string): number {
  const [year = 0, month = 1, date = 1] = day.split('-').map(Number)
  return new Date(Date.UTC(year, month - 1, date)).getUTCDay()
}

/** The user's calendar day a task stands on: its own date, or the local day of its time. */
export function taskDay(date: string): string {
  return isDateOnly(date) ? date : localDate(new Date(date))
}

/** Whether a task has a time of day (not date-only, not dateless). */
export function hasTime(task: { date: string; is_dateless: boolean }): boolean {
  return !task.is_dateless && !isDateOnly(task.date)
}

const withYear = new Intl.DateTimeFormat(undefined, {
  weekday: 'long',
  month: 'long',
  day: 'numeric',
  year: 'numeric',
  timeZone: 'UTC',
})
const withoutYear = new Intl.DateTimeFormat(undefined, {
  weekday: 'long',
  month: 'long',
  day: 'numeric',
  timeZone: 'UTC',
})
const short = new Intl.DateTimeFormat(undefined, { weekday: 'short', month: 'short', day: 'numeric', timeZone: 'UTC' })

/** "Tuesday, December 1" (with the year when it is not this year's). */
export function dayHeading(day: string, today: string): string {
  const [year = 0, month = 1, date = 1] = day.split('-').map(Number)
  const at = new Date(Date.UTC(year, month - 1, date))
  return (day.slice(0, 4) === today.slice(0, 4) ? withoutYear : withYear).format(at)
}

/** "Mon, Nov 30". */
export function shortDay(day: string): string {
  const [year = 0, month = 1, date = 1] = day.split('-').map(Number)
  return short.format(new Date(Date.UTC(year, month - 1, date)))
}

/** When a task is due, as a row shows it: "9:30 AM" today, "Mon, Nov 30" or "Mon, Nov 30, 9:30 AM" otherwise. */
export function taskWhen(task: { date: string; is_dateless: boolean }, today: string): string {
  if (task.is_dateless) return 'No date'
  const day = taskDay(task.date)
  const clock = hasTime(task)
    ? zonedFormat('clock', { hour: 'numeric', minute: '2-digit' }).format(new Date(task.date))
    : undefined
  if (day === today) return clock ?? 'Today'
  return clock === undefined ? shortDay(day) : `${shortDay(day)}, ${clock}`
}
