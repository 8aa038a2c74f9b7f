import { wallClock, zonedInstant } from '../../lib/wall-clock'
import { hasTime } from './task-days'

// A task's due date as the task forms edit it: a date field and an optional time field on the user's wall clock.

const pad = (n: number) => String(n).padStart(2, '0')

/**
 * A due date from a date field and an optional time field (the user's wall clock): a calendar day alone, an instant
 * with a time, null without a day (a dateless task).
 */
export function dueDateOf(day: string, time: string): string | null {
  if (day === '') return null
  if (time === '') return day
  const [hours = 0, minutes = 0] = time.split(':').map(Number)
  return zonedInstant(day, hours, minutes).toISOString()
}

/** A task's due date as the date and time fields show it. */
export function dueInputsOf(task: { date: string; is_dateless: boolean }): { day: string; time: string } {
  if (task.is_dateless) return { day: '', time: '' }
  if (!hasTime(task)) return { day: task.date, time: '' }
  const { day, hours, minutes } = wallClock(new Date(task.date))
  return { day, time: `${pad(hours)}:${pad(minutes)}` }
}
