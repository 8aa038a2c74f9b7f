import { lazy, Suspense } from 'react'
import type { TaskDialogState, TaskDialogsProps } from './task-dialogs'

const TaskDialogs = lazy(() => import('./task-dialogs').then((m) => ({ default: m.TaskDialogs })))

export interface TaskDialogSlotProps extends Omit<TaskDialogsProps, 'state'> {
  /** The dialog open, if any. */
  state: TaskDialogState | undefined
}

/** Where a task list's dialogs open; their code loads when the first one does. */
export function TaskDialogSlot({ state, ...props }: TaskDialogSlotProps) {
  if (state === undefined) return null
  return (
    <Suspense fallback={null}>
      <TaskDialogs state={state} {...props} />
    </Suspense>
  )
}
