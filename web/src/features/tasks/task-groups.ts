import type { Task } from '@leadline/shared/task-schema'
import type { TaskViewName } from '@leadline/shared/task-dates'
import { addDays, dayHeading, taskDay } from './task-days'

export interface TaskGroup {
  /** `overdue`, or the calendar day the group holds. */
  key: string
  heading: string
  tasks: Task[]
}

/**
 * The headings a list is read under: the inbox and future by due day — Overdue, Today (which holds the dateless
 * too), Tomorrow, then each date — and the archive by the day each task was completed, newest first. Within a
 * group the API's order stands.
 */
export function groupTasks(tasks: readonly Task[], view: TaskViewName, today: string): TaskGroup[] {
  const groups = new Map<string, TaskGroup>()
  const yesterday = addDays(today, -1)
  const tomorrow = addDays(today, 1)
  for (const task of tasks) {
    let key: string
    let heading: string
    if (view === 'archive') {
      // Every completed task has a date_completed; the archive holds no other.
      key = taskDay(task.date_completed ?? task.date_updated)
      heading = key === today ? 'Today' : key === yesterday ? 'Yesterday' : dayHeading(key, today)
    } else {
      const day = task.is_dateless ? today : taskDay(task.date)
      key = day < today ? 'overdue' : day
      heading =
        day < today ? 'Overdue' : day === today ? 'Today' : day === tomorrow ? 'Tomorrow' : dayHeading(day, today)
    }
    const group = groups.get(key) ?? { key, heading, tasks: [] }
    group.tasks.push(task)
    groups.set(key, group)
  }
  // `overdue` sorts before every day; the archive reads newest first.
  const order = (a: TaskGroup, b: TaskGroup) => {
    const first = a.key === 'overdue' ? '' : a.key
    const second = b.key === 'overdue' ? '' : b.key
    return first < second ? -1 : first > second ? 1 : 0
  }
  const sorted = [...groups.values()].sort(order)
  return view === 'archive' ? sorted.reverse() : sorted
}
