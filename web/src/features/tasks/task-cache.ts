import type { InfiniteData, QueryClient, QueryKey } from '@tanstack/react-query'
import type { ListEnvelope } from '@leadline/shared/list'
import { taskViewAt } from '@leadline/shared/task-dates'
import type { Task } from '@leadline/shared/task-schema'
import type { TaskListFilter } from './task-queries'

// The task lists held in the query cache, read and written as flat lists so that a change shows before the server
// answers: a changed task is replaced where it stands, or leaves the lists it no longer belongs to; an undone change
// puts tasks back where they were.

type Pages = InfiniteData<ListEnvelope<Task>, number>

export interface CachedList {
  key: QueryKey
  tasks: Task[]
  belongs: (task: Task) => boolean
  write: (tasks: Task[]) => void
}

/**
 * The user's zone: the browser's is the one the BFF sends the API. Its name, not today's offset, so that a day
 * whose offset changes at 2 a.m. still ends at the next midnight.
 */
export function browserTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone
}

export function belongsTo(task: Task, filter: TaskListFilter, now: Date): boolean {
  return (
    taskViewAt(task, browserTimeZone(), now) === filter.view &&
    (filter.assignee === 'all' || task.assigned_to === filter.assignee)
  )
}

function isFilter(value: unknown): value is TaskListFilter {
  return typeof value === 'object' && value !== null && 'view' in value && 'assignee' in value
}

/** Every task list in the cache: the inbox, future and archive lists, and the lead pages' open tasks. */
export function cachedLists(queryClient: QueryClient, now: Date): CachedList[] {
  const lists: CachedList[] = []
  for (const [key, data] of queryClient.getQueriesData<Pages | ListEnvelope<Task>>({ queryKey: ['tasks'] })) {
    if (data === undefined) continue
    const [, kind, param] = key
    if (kind === 'list' && isFilter(param) && 'pages' in data) {
      lists.push({
        key,
        tasks: data.pages.flatMap((page) => page.data),
        belongs: (task) => belongsTo(task, param, now),
        // Everything goes on the first page: a refetch pages it again, and the screen reads the pages flat.
        write: (tasks) => {
          queryClient.setQueryData<Pages>(key, {
            ...data,
            pages: data.pages.map((page, i) => ({ ...page, data: i === 0 ? tasks : [] })),
          })
        },
      })
    } else if (kind === 'lead' && typeof param === 'string' && 'data' in data) {
      lists.push({
        key,
        tasks: data.data,
        belongs: (task) => task.lead_id === param && !task.is_complete,
        write: (tasks) => {
          queryClient.setQueryData<ListEnvelope<Task>>(key, { ...data, data: tasks })
        },
      })
    }
  }
  return lists
}

/** What each list held, by query key, to put tasks back where they stood. */
export type ListSnapshot = Map<string, Task[]>

export function snapshotLists(lists: readonly CachedList[]): ListSnapshot {
  return new Map(lists.map((list) => [JSON.stringify(list.key), list.tasks]))
}

/** Replaces the changed tasks in every list, dropping them from the lists they no longer belong to. */
export function applyChanged(lists: readonly CachedList[], changed: readonly Task[]): void {
  const byId = new Map(changed.map((task) => [task.id, task]))
  for (const list of lists) {
    if (!list.tasks.some((task) => byId.has(task.id))) continue
    list.write(list.tasks.map((task) => byId.get(task.id) ?? task).filter((task) => list.belongs(task)))
  }
}

/**
 * Puts tasks back as they were: each where it stood in the list before the change (its index then), in the lists
 * it belongs to; lists the snapshot does not know wait for their refetch.
 */
export function restoreTasks(lists: readonly CachedList[], previous: readonly Task[], before: ListSnapshot): void {
  const ids = new Set(previous.map((task) => task.id))
  for (const list of lists) {
    const then = before.get(JSON.stringify(list.key))
    const rest = list.tasks.filter((task) => !ids.has(task.id))
    if (then === undefined) {
      if (rest.length !== list.tasks.length) list.write(rest)
      continue
    }
    const back = then
      .map((task, index) => ({ task, index }))
      .filter(({ task }) => ids.has(task.id) && list.belongs(task))
    if (back.length === 0 && rest.length === list.tasks.length) continue
    const tasks = [...rest]
    for (const { task, index } of back) tasks.splice(Math.min(index, tasks.length), 0, task)
    list.write(tasks)
  }
}
