import { QueryClient } from '@tanstack/react-query'
import { afterEach, describe, expect, it } from 'vitest'
import { localDate } from '../../lib/format'
import { applyChanged, belongsTo, cachedLists, restoreTasks, snapshotLists } from './task-cache'
import { taskFixture } from './task-fixture'
import { changedTask } from './task-mutations'
import { taskQueries } from './task-queries'

const today = localDate()

const task = (id: string) => taskFixture(id, today)

function setup() {
  const queryClient = new QueryClient()
  const inbox = taskQueries.list({ view: 'inbox', assignee: 'user_1' }).queryKey
  const tasks = [task('a'), task('b'), task('c'), task('d')]
  queryClient.setQueryData(inbox, {
    pages: [
      { has_more: true, data: tasks.slice(0, 2) },
      { has_more: false, data: tasks.slice(2) },
    ],
    pageParams: [0, 2],
  })
  queryClient.setQueryData(taskQueries.lead('lead_1').queryKey, { has_more: false, data: tasks })
  const ids = () =>
    cachedLists(queryClient, new Date()).map((list) => [list.key[1], list.tasks.map((t) => t.id).join('')])
  return { queryClient, tasks, ids }
}

describe('the task lists on screen', () => {
  it('drop a completed task, keep a changed one in place, and put an undone one back where it stood', () => {
    const { queryClient, tasks, ids } = setup()
    const now = new Date()
    const lists = cachedLists(queryClient, now)
    const before = snapshotLists(lists)
    const [, b, c] = tasks
    if (b === undefined || c === undefined) throw new Error('no tasks')
    applyChanged(lists, [changedTask(b, { is_complete: true }, now), changedTask(c, { text: 'renamed' }, now)])
    expect(ids()).toEqual([
      ['list', 'acd'],
      ['lead', 'acd'],
    ])
    restoreTasks(cachedLists(queryClient, now), [b], before)
    expect(ids()).toEqual([
      ['list', 'abcd'],
      ['lead', 'abcd'],
    ])
  })

  it('drop a task snoozed past today or handed to a teammate from the inbox, but not from the lead', () => {
    const { queryClient, tasks, ids } = setup()
    const now = new Date()
    const [a, b] = tasks
    if (a === undefined || b === undefined) throw new Error('no tasks')
    applyChanged(cachedLists(queryClient, now), [
      changedTask(a, { date: '2999-01-01' }, now),
      changedTask(b, { assigned_to: 'user_2', assigned_to_name: 'Sam Seller' }, now),
    ])
    expect(ids()).toEqual([
      ['list', 'cd'],
      ['lead', 'abcd'],
    ])
  })
})

describe('the end of today on a day the clocks change', () => {
  const zoneBefore = process.env.TZ
  afterEach(() => {
    if (zoneBefore === undefined) delete process.env.TZ
    else process.env.TZ = zoneBefore
  })
  const inbox = { view: 'inbox', assignee: 'all' } as const

  it('is the next local midnight, however many hours away (New York, spring and autumn)', () => {
    process.env.TZ = 'America/New_York'
    // 00:30 EDT on 2026-11-01; the day ends at midnight EST, 05:00 UTC.
    const autumn = new Date('2026-11-01T04:30:00Z')
    expect(belongsTo(taskFixture('late', '2026-11-02T04:30:00.000000+00:00'), inbox, autumn)).toBe(true)
    expect(belongsTo(taskFixture('next', '2026-11-02T05:00:00.000000+00:00'), inbox, autumn)).toBe(false)
    // 01:00 EST on 2026-03-08; the day ends at midnight EDT, 04:00 UTC.
    const spring = new Date('2026-03-08T06:00:00Z')
    expect(belongsTo(taskFixture('late', '2026-03-09T03:30:00.000000+00:00'), inbox, spring)).toBe(true)
    expect(belongsTo(taskFixture('next', '2026-03-09T04:30:00.000000+00:00'), inbox, spring)).toBe(false)
  })
})
