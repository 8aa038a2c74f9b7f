import { infiniteQueryOptions, queryOptions } from '@tanstack/react-query'
import type { ListEnvelope } from '@leadline/shared/list'
import type { TaskViewName } from '@leadline/shared/task-dates'
import type { Task } from '@leadline/shared/task-schema'
import { TASKS_PER_PAGE } from '@leadline/shared/first-screen-requests'
import { api } from '../../lib/api'

/** The header counts up to this many; more shows as "999+". */
export const INBOX_COUNT_MAX = 999

export interface TaskListFilter {
  view: TaskViewName
  /** A user id, or `all` for everyone's. */
  assignee: string
}

/*
 * Every task query sits under `['tasks']`: a task mutation names that key and the MutationCache refreshes the lists,
 * the header's count and the lead pages' task panels together.
 */
export const taskQueries = {
  all: () => ['tasks'] as const,
  list: (filter: TaskListFilter) =>
    infiniteQueryOptions({
      queryKey: [...taskQueries.all(), 'list', filter],
      queryFn: ({ pageParam }) =>
        api.get<ListEnvelope<Task>>('task/', {
          view: filter.view,
          _type: 'all',
          assigned_to: filter.assignee === 'all' ? undefined : filter.assignee,
          // The archive reads by completion, newest first; the others by due date in the user's zone.
          _order_by: filter.view === 'archive' ? '-date_completed' : 'date',
          _skip: pageParam,
          _limit: TASKS_PER_PAGE,
        }),
      initialPageParam: 0,
      getNextPageParam: (last, pages) => (last.has_more ? pages.length * TASKS_PER_PAGE : undefined),
    }),
  /** How many tasks are in a user's inbox now, for the header: ids only. */
  inboxCount: (userId: string) =>
    queryOptions({
      queryKey: [...taskQueries.all(), 'inbox-count', userId],
      queryFn: () =>
        api.get<ListEnvelope<Pick<Task, 'id'>>>('task/', {
          view: 'inbox',
          _type: 'all',
          assigned_to: userId,
          _fields: 'id',
          _limit: INBOX_COUNT_MAX,
        }),
      select: (page) => (page.has_more ? `${String(INBOX_COUNT_MAX)}+` : String(page.data.length)),
      // Today turns into tomorrow, and teammates assign tasks: the count stays roughly current without a reload.
      refetchInterval: 120_000,
    }),
  /** A lead's open tasks, by due date. */
  lead: (leadId: string) =>
    queryOptions({
      queryKey: [...taskQueries.all(), 'lead', leadId],
      queryFn: () =>
        api.get<ListEnvelope<Task>>('task/', {
          lead_id: leadId,
          _type: 'all',
          is_complete: false,
          _order_by: 'date',
          _limit: TASKS_PER_PAGE,
        }),
      select: (page) => page.data,
    }),
}
