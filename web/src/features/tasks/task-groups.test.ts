import { describe, expect, it } from 'vitest'
import type { Task } from '@leadline/shared/task-schema'
import { taskFixture } from './task-fixture'
import { groupTasks } from './task-groups'

const task = taskFixture

const summary = (tasks: Task[], view: 'inbox' | 'future' | 'archive', today: string) =>
  groupTasks(tasks, view, today).map((g) => [g.key, g.heading, g.tasks.map((t) => t.id)])

describe('groupTasks', () => {
  it('reads the inbox under Overdue and Today, the dateless with today', () => {
    const tasks = [
      task('a', '2026-11-20'),
      task('b', '2026-11-26'),
      task('c', '2026-11-25'),
      task('d', '2026-11-02', { is_dateless: true }),
    ]
    expect(summary(tasks, 'inbox', '2026-11-26')).toEqual([
      ['overdue', 'Overdue', ['a', 'c']],
      ['2026-11-26', 'Today', ['b', 'd']],
    ])
  })

  it('reads the future under Tomorrow, then each day, the year shown only when it is not this one', () => {
    const tasks = [task('a', '2026-11-27'), task('b', '2026-12-01'), task('c', '2027-01-04'), task('d', '2026-12-01')]
    const groups = summary(tasks, 'future', '2026-11-26')
    expect(groups.map(([key]) => key)).toEqual(['2026-11-27', '2026-12-01', '2027-01-04'])
    expect(groups[0]?.[1]).toBe('Tomorrow')
    expect(groups[1]?.[2]).toEqual(['b', 'd'])
    expect(String(groups[1]?.[1])).not.toContain('2026')
    expect(String(groups[2]?.[1])).toContain('2027')
  })

  it('places a timed task on the user’s own day', () => {
    // Noon local time on the 27th is the 27th wherever the tests run.
    const noon = new Date(2026, 10, 27, 12, 0).toISOString()
    expect(summary([task('a', noon)], 'future', '2026-11-26')).toEqual([['2026-11-27', 'Tomorrow', ['a']]])
  })

  it('reads the archive by the day each task was completed, newest first', () => {
    const at = (day: number) => new Date(2026, 10, day, 15, 0).toISOString()
    const tasks = [
      task('a', '2026-01-01', { is_complete: true, date_completed: at(26) }),
      task('b', '2026-01-01', { is_complete: true, date_completed: at(25) }),
      task('c', '2026-01-01', { is_complete: true, date_completed: at(20) }),
      task('d', '2026-01-01', { is_complete: true, date_completed: at(26) }),
    ]
    const groups = summary(tasks, 'archive', '2026-11-26')
    expect(groups.map(([, heading]) => heading).slice(0, 2)).toEqual(['Today', 'Yesterday'])
    expect(groups.map(([, , ids]) => ids)).toEqual([['a', 'd'], ['b'], ['c']])
  })

  it('gives no groups for no tasks', () => {
    expect(groupTasks([], 'inbox', '2026-11-26')).toEqual([])
  })
})
