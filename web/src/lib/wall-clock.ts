import { zonedFormat } from './format'

// Wall-clock times in the display zone (the session's), for the fields where a person types one: what a clock there
// reads at an instant, and the instant a reading stands for. Loaded with those forms only.

/** What a wall clock in the display zone reads at an instant: its calendar day, hours (0–23) and minutes. */
export function wallClock(at: Date): { day: string; hours: number; minutes: number } {
  const text = zonedFormat(
    'wall-clock',
    { year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' },
    'en-CA',
  ).format(at)
  // "2026-03-02, 05:30": Canadian English writes the date as ISO does.
  return { day: text.slice(0, 10), hours: Number(text.slice(-5, -3)), minutes: Number(text.slice(-2)) }
}

/** How far the display zone's wall clock is ahead of UTC at an instant, in milliseconds. */
function offsetAt(instant: number): number {
  const { day, hours, minutes } = wallClock(new Date(instant))
  const [year = 0, month = 1, date = 1] = day.split('-').map(Number)
  return Date.UTC(year, month - 1, date, hours, minutes) - (instant - (((instant % 60_000) + 60_000) % 60_000))
}

/**
 * The instant a wall-clock time on a calendar day is in the display zone. The offset is read twice, the second time
 * at the first answer, so a day on which the zone changes its offset gets the offset in force at that time.
 */
export function zonedInstant(day: string, hours: number, minutes: number): Date {
  const [year = 0, month = 1, date = 1] = day.split('-').map(Number)
  const asUtc = Date.UTC(year, month - 1, date, hours, minutes)
  const first = asUtc - offsetAt(asUtc)
  return new Date(asUtc - offsetAt(first))
}

const pad = (n: number) => String(n).padStart(2, '0')

/** An API timestamp as the value of an `<input type="datetime-local">` in the user's zone. */
export function toDateTimeLocalInput(timestamp: string): string {
  const at = new Date(timestamp)
  if (Number.isNaN(at.getTime())) return ''
  const { day, hours, minutes } = wallClock(at)
  return `${day}T${pad(hours)}:${pad(minutes)}`
}

/** An `<input type="datetime-local">` value (the user's wall-clock time) as an ISO instant for the API. */
export function fromDateTimeLocalInput(value: string): string {
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2})/.exec(value)
  if (match === null) return value
  const at = zonedInstant(match[1] ?? '', Number(match[2]), Number(match[3]))
  return Number.isNaN(at.getTime()) ? value : at.toISOString()
}
