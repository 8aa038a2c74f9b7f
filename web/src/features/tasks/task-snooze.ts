import { localDate, zonedFormat } from '../../lib/format'
import { wallClock, zonedInstant } from '../../lib/wall-clock'
import { addDays, hasTime, shortDay, weekday } from './task-days'

export interface SnoozeChoice {
  label: string
  /** What the choice means, e.g. "Mon, Nov 30" or "5:00 PM". */
  hint: string
  /** The new `date` as the API takes it: a calendar day for a date-only task, an instant for a timed one. */
  date: string
}

const clock = () => zonedFormat('clock', { hour: 'numeric', minute: '2-digit' })

/**
 * The snooze presets for a task at `now`: later today (timed tasks, three hours on, on the hour, while it is still
 * today), tomorrow, next Monday and in a week. Days count from today, not from the task's date, so an overdue task
 * moves forward. A timed task keeps its time of day; a date-only or dateless one gets a date.
 */
export function snoozeChoices(task: { date: string; is_dateless: boolean }, now: Date): SnoozeChoice[] {
  const today = localDate(now)
  const timed = hasTime(task)
  const due = timed ? new Date(task.date) : undefined
  const on = (day: string): Pick<SnoozeChoice, 'date' | 'hint'> => {
    if (due === undefined) return { date: day, hint: shortDay(day) }
    const { hours, minutes } = wallClock(due)
    const at = zonedInstant(day, hours, minutes)
    return { date: at.toISOString(), hint: `${shortDay(day)}, ${clock().format(at)}` }
  }
  const choices: SnoozeChoice[] = []
  if (timed) {
    // Three hours on, up to the next hour of the user's wall clock.
    const inThree = wallClock(new Date(now.getTime() + 3 * 3_600_000))
    const hour = zonedInstant(inThree.day, inThree.hours, 0)
    const later = inThree.minutes === 0 ? hour : new Date(hour.getTime() + 3_600_000)
    if (localDate(later) === today) {
      choices.push({ label: 'Later today', hint: clock().format(later), date: later.toISOString() })
    }
  }
  const untilMonday = (8 - weekday(today)) % 7 || 7
  choices.push({ label: 'Tomorrow', ...on(addDays(today, 1)) })
  choices.push({ label: 'Next Monday', ...on(addDays(today, untilMonday)) })
  choices.push({ label: 'In a week', ...on(addDays(today, 7)) })
  return choices
}
