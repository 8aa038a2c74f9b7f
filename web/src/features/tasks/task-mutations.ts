import { useMutation, useQueryClient, type QueryClient } from '@tanstack/react-query'
import type { Task } from '@leadline/shared/task-schema'
import { showToast } from '../../components/ui/toast'
import { api, saveErrorMessage } from '../../lib/api'
import { localDate } from '../../lib/format'
import { leadQueries } from '../leads/lead-queries'
import { applyChanged, cachedLists, restoreTasks, snapshotLists, type ListSnapshot } from './task-cache'
import { taskQueries } from './task-queries'
import { offerUndo } from './task-undo'

/** What the bulk `PUT /task/` can set; a single task's edit also takes its text. */
export type TaskChange =
  | { is_complete: boolean }
  | { date: string | null }
  | { assigned_to: string; assigned_to_name?: string | null }
  | { text: string; date?: string | null; assigned_to?: string }

interface ChangeGroup {
  tasks: Task[]
  change: TaskChange
}

export interface TaskChangeInput {
  groups: ChangeGroup[]
  /** An undo: puts the tasks back where they stood before `before` was taken, instead of patching them. */
  restore?: { previous: Task[]; before: ListSnapshot }
}

/** What a change did, for its toast: "Task completed", "3 tasks snoozed to Mon, Nov 30". */
export function changeTitle(tasks: readonly Task[], done: string): string {
  return `${tasks.length === 1 ? 'Task' : `${String(tasks.length)} tasks`} ${done}`
}

/** A task as it will be once the change is saved, for the screen before the server answers. */
export function changedTask(task: Task, change: TaskChange, now: Date): Task {
  const next: Task = { ...task, date_updated: now.toISOString() }
  if ('is_complete' in change) {
    next.is_complete = change.is_complete
    next.date_completed = change.is_complete ? now.toISOString() : null
  }
  if ('text' in change) next.text = change.text
  if ('assigned_to' in change && change.assigned_to !== undefined) {
    next.assigned_to = change.assigned_to
    if ('assigned_to_name' in change) next.assigned_to_name = change.assigned_to_name ?? null
  }
  if ('date' in change && change.date !== undefined) {
    // A dateless task shows the day it is on; the server answers with its creation day, close enough until then.
    next.is_dateless = change.date === null
    next.date = change.date ?? localDate(now)
    next.due_date = change.date
  }
  return next
}

function send({ tasks, change }: ChangeGroup): Promise<unknown> {
  const body = Object.fromEntries(Object.entries(change).filter(([key]) => key !== 'assigned_to_name'))
  const [only] = tasks
  if (tasks.length === 1 && only !== undefined) return api.put<Task>(`task/${encodeURIComponent(only.id)}/`, body)
  return api.put<{ ok: boolean }>(`task/?id__in=${tasks.map((t) => encodeURIComponent(t.id)).join(',')}`, body)
}

/** The changes that put tasks back: one request per value they had before (their dates, their assignees). */
export function undoGroups(previous: readonly Task[], change: TaskChange): ChangeGroup[] {
  const groups = new Map<string, ChangeGroup>()
  for (const task of previous) {
    let back: TaskChange
    if ('is_complete' in change) back = { is_complete: task.is_complete }
    else if ('date' in change) back = { date: task.is_dateless ? null : task.date }
    else if (task.assigned_to !== null)
      back = { assigned_to: task.assigned_to, assigned_to_name: task.assigned_to_name }
    else continue
    const key = JSON.stringify(back)
    const group = groups.get(key) ?? { tasks: [], change: back }
    group.tasks.push(task)
    groups.set(key, group)
  }
  return [...groups.values()]
}

function refreshLeads(queryClient: QueryClient, tasks: readonly Task[]) {
  // Completing records a TaskCompleted on the lead's timeline; the lead nests its open tasks too.
  for (const leadId of new Set(tasks.map((t) => t.lead_id)))
    void queryClient.invalidateQueries({ queryKey: leadQueries.detail(leadId).queryKey })
}

/**
 * Changes tasks at once on screen, then on the server (one request per group); a failure puts them back and says
 * so. The MutationCache then refetches every task list under `['tasks']`.
 */
export function useTaskChange() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationKey: taskQueries.all(),
    mutationFn: async ({ groups }: TaskChangeInput) => {
      await Promise.all(groups.map(send))
    },
    onMutate: async ({ groups, restore }) => {
      await queryClient.cancelQueries({ queryKey: taskQueries.all() })
      const now = new Date()
      const lists = cachedLists(queryClient, now)
      const before = snapshotLists(lists)
      if (restore === undefined)
        applyChanged(
          lists,
          groups.flatMap((g) => g.tasks.map((task) => changedTask(task, g.change, now))),
        )
      else restoreTasks(lists, restore.previous, restore.before)
      return { before }
    },
    onError: (error, { groups }, context) => {
      if (context !== undefined) {
        const lists = cachedLists(queryClient, new Date())
        for (const list of lists) list.write(context.before.get(JSON.stringify(list.key)) ?? list.tasks)
      }
      const count = groups.reduce((n, g) => n + g.tasks.length, 0)
      showToast({
        title: count === 1 ? 'The task was not changed' : `${String(count)} tasks were not changed`,
        description: `${saveErrorMessage(error, 'date')} ${count === 1 ? 'It is' : 'They are'} back as before.`,
        tone: 'error',
      })
    },
    onSettled: (_data, _error, { groups }) => {
      refreshLeads(
        queryClient,
        groups.flatMap((g) => g.tasks),
      )
    },
    meta: { errorTitle: false },
  })
}

/**
 * Changes tasks and offers to undo it (toast and `u`); `title` says what was done ("3 tasks completed"). Each change
 * gets its own offer, however fast they come: a promise per change, where `mutate`'s callbacks follow only the last.
 */
export function useUndoableTaskChange() {
  const queryClient = useQueryClient()
  const mutation = useTaskChange()
  const change = (tasks: Task[], taskChange: TaskChange, title: string) => {
    if (tasks.length === 0) return
    // Where the tasks stand now, to put them back there on Undo.
    const before = snapshotLists(cachedLists(queryClient, new Date()))
    mutation.mutateAsync({ groups: [{ tasks, change: taskChange }] }).then(
      () => {
        offerUndo(title, () => {
          mutation.mutateAsync({ groups: undoGroups(tasks, taskChange), restore: { previous: tasks, before } }).then(
            () => {
              showToast({ title: 'Undone' })
            },
            // The mutation's onError has said what failed.
            () => undefined,
          )
        })
      },
      () => undefined,
    )
  }
  return { change, isPending: mutation.isPending }
}

export function useDeleteTask() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationKey: taskQueries.all(),
    mutationFn: (task: Task) => api.delete(`task/${encodeURIComponent(task.id)}/`),
    onSuccess: (_data, task) => {
      const lists = cachedLists(queryClient, new Date())
      for (const list of lists) list.write(list.tasks.filter((t) => t.id !== task.id))
      refreshLeads(queryClient, [task])
      showToast({ title: 'Task deleted' })
    },
    meta: { errorTitle: 'The task was not deleted' },
  })
}

export interface NewTask {
  lead_id: string
  text: string
  date: string | null
  assigned_to: string
}

export function useCreateTask() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationKey: taskQueries.all(),
    mutationFn: (body: NewTask) => api.post<Task>('task/', body),
    onSuccess: (task) => {
      refreshLeads(queryClient, [task])
    },
    // The one-line form shows the failure beside its fields.
    meta: { errorTitle: false },
  })
}
