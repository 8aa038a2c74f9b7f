import { useQuery } from '@tanstack/react-query'
import type { Task } from '@leadline/shared/task-schema'
import { useState, type SubmitEvent } from 'react'
import { Button } from '../../components/ui/button'
import { ConfirmDialog, Dialog } from '../../components/ui/dialog'
import { FormActions } from '../../components/ui/form-actions'
import { SelectField } from '../../components/ui/select-field'
import { TextField } from '../../components/ui/text-field'
import { saveErrorMessage } from '../../lib/api'
import { setupQueries } from '../leads/lead-queries'
import { shortDay } from './task-days'
import { dueDateOf, dueInputsOf } from './task-due'
import { taskDisplay } from './task-display'
import { changeTitle, useDeleteTask, useTaskChange, type TaskChange } from './task-mutations'
import { snoozeChoices } from './task-snooze'
import { useCheckedText } from '../../lib/form-fields'

// The dialogs a task's actions open, loaded when the first one opens: the inbox and the lead page stay small.

export type TaskDialogState = { kind: 'snooze' | 'assign' | 'delete' | 'edit'; tasks: Task[] } | { kind: 'help' }

export interface TaskDialogsProps {
  state: TaskDialogState
  onClose: () => void
  /** A snooze or an assignment chosen, with its toast's title: the page makes the change (with Undo). */
  onChange: (tasks: Task[], change: TaskChange, title: string) => void
  /** After a confirmed delete: the inbox moves on to the next task. */
  onDelete?: (task: Task) => void
}

export function TaskDialogs({ state, onClose, onChange, onDelete }: TaskDialogsProps) {
  if (state.kind === 'help') return <ShortcutsDialog onClose={onClose} />
  const [first] = state.tasks
  if (first === undefined) return null
  const subject = state.tasks.length === 1 ? `“${taskDisplay(first).title}”` : `${String(state.tasks.length)} tasks`
  switch (state.kind) {
    case 'snooze':
      return <SnoozeDialog tasks={state.tasks} subject={subject} onClose={onClose} onChange={onChange} />
    case 'assign':
      return <AssignDialog tasks={state.tasks} subject={subject} onClose={onClose} onChange={onChange} />
    case 'edit':
      return <EditTaskDialog task={first} onClose={onClose} />
    case 'delete':
      return <DeleteTaskDialog task={first} subject={subject} onClose={onClose} onDelete={onDelete} />
  }
}

/** What the dialogs acting on the selected tasks take. */
interface BulkDialogProps {
  tasks: Task[]
  subject: string
  onClose: () => void
  onChange: TaskDialogsProps['onChange']
}

function SnoozeDialog({ tasks, subject, onClose, onChange }: BulkDialogProps) {
  const [first] = tasks
  // Several tasks snooze as their first one would: a timed one keeps its time of day.
  const choices = first === undefined ? [] : snoozeChoices(first, new Date())
  const initial = first === undefined ? { day: '', time: '' } : dueInputsOf(first)
  const day = useCheckedText()
  const [time, setTime] = useState(initial.time)
  /** `label` says where they went ("Mon, Nov 30", "5:00 PM"). */
  const snooze = (date: string, label: string) => {
    onChange(tasks, { date }, changeTitle(tasks, `snoozed to ${label}`))
  }
  const pick = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault()
    const date = dueDateOf(day.value, time)
    if (date === null) {
      day.setError('Pick a date.')
      return
    }
    snooze(date, time === '' ? shortDay(day.value) : `${shortDay(day.value)}, ${time}`)
    onClose()
  }
  return (
    <Dialog title={`Snooze ${subject}`} isOpen onOpenChange={onClose} size="sm">
      <ul className="flex flex-col gap-1">
        {choices.map((choice, i) => (
          <li key={choice.label}>
            <Button
              variant="quiet"
              autoFocus={i === 0}
              isFullWidth
              justify="between"
              onPress={() => {
                snooze(choice.date, choice.hint)
                onClose()
              }}
            >
              <span>{choice.label}</span>
              <span className="text-slate-500">{choice.hint}</span>
            </Button>
          </li>
        ))}
      </ul>
      <form onSubmit={pick} noValidate className="flex flex-col gap-3 border-t border-slate-100 pt-3">
        <div className="flex gap-2">
          <TextField label="Date" type="date" {...day.field} className="flex-1" />
          <TextField label="Time (optional)" type="time" value={time} onChange={setTime} className="w-32" />
        </div>
        <FormActions submitLabel="Snooze" isPending={false} onCancel={onClose} />
      </form>
    </Dialog>
  )
}

function AssignDialog({ tasks, subject, onClose, onChange }: BulkDialogProps) {
  const members = useQuery(setupQueries.members())
  const current = tasks.length === 1 ? tasks[0]?.assigned_to : undefined
  return (
    <Dialog title={`Assign ${subject}`} isOpen onOpenChange={onClose} size="sm">
      {members.isPending ? (
        <p className="text-sm text-slate-500">Loading your teammates…</p>
      ) : members.isError ? (
        <p role="alert" className="text-sm text-red-700">
          {members.error.message}
        </p>
      ) : (
        <ul className="flex max-h-80 flex-col gap-1 overflow-y-auto">
          {members.data.map((user, i) => (
            <li key={user.id}>
              <Button
                variant="quiet"
                autoFocus={i === 0}
                aria-current={user.id === current || undefined}
                isFullWidth
                justify="between"
                onPress={() => {
                  onChange(
                    tasks,
                    { assigned_to: user.id, assigned_to_name: user.display_name },
                    changeTitle(tasks, `assigned to ${user.display_name}`),
                  )
                  onClose()
                }}
              >
                <span>{user.display_name}</span>
                <span className="text-slate-500">{user.id === current ? 'assigned now' : user.email}</span>
              </Button>
            </li>
          ))}
        </ul>
      )}
      <div className="flex justify-end">
        <Button onPress={onClose}>Cancel</Button>
      </div>
    </Dialog>
  )
}

function EditTaskDialog({ task, onClose }: { task: Task; onClose: () => void }) {
  const members = useQuery(setupQueries.members())
  const initial = dueInputsOf(task)
  const [text, setText] = useState(typeof task.text === 'string' ? task.text : '')
  const [day, setDay] = useState(initial.day)
  const [time, setTime] = useState(initial.time)
  const [assignee, setAssignee] = useState(task.assigned_to ?? '')
  const change = useTaskChange()
  const save = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault()
    const assigned = members.data?.find((m) => m.id === assignee)
    change.mutate(
      {
        groups: [
          {
            tasks: [task],
            change: {
              text,
              date: dueDateOf(day, time),
              ...(assigned === undefined ? {} : { assigned_to: assigned.id }),
            },
          },
        ],
      },
      { onSuccess: onClose },
    )
  }
  const error = change.isError ? saveErrorMessage(change.error, 'text') : undefined
  return (
    <Dialog title="Edit task" isOpen onOpenChange={onClose} isDismissable={false}>
      <form onSubmit={save} noValidate className="flex flex-col gap-3">
        <TextField label="Task" value={text} onChange={setText} error={error} autoFocus />
        <div className="flex gap-2">
          <TextField label="Date" type="date" value={day} onChange={setDay} className="flex-1" />
          <TextField label="Time (optional)" type="time" value={time} onChange={setTime} className="w-32" />
        </div>
        <SelectField
          label="Assigned to"
          value={assignee}
          options={(members.data ?? []).map((m) => ({ value: m.id, label: m.display_name }))}
          onChange={setAssignee}
        />
        <FormActions submitLabel="Save task" isPending={change.isPending} onCancel={onClose} />
      </form>
    </Dialog>
  )
}

function DeleteTaskDialog({
  task,
  subject,
  onClose,
  onDelete,
}: {
  task: Task
  subject: string
  onClose: () => void
  onDelete: TaskDialogsProps['onDelete']
}) {
  const remove = useDeleteTask()
  return (
    <ConfirmDialog
      title={`Delete ${subject}?`}
      isOpen
      onCancel={onClose}
      isPending={remove.isPending}
      onConfirm={() => {
        remove.mutate(task, {
          onSuccess: () => {
            onClose()
            onDelete?.(task)
          },
        })
      }}
    >
      The task is deleted for everyone in your organization. This cannot be undone.
    </ConfirmDialog>
  )
}

const SHORTCUTS: [string, string][] = [
  ['j / k', 'Next / previous task'],
  ['x', 'Select or unselect the task'],
  ['e', 'Complete (the selected tasks, or this one)'],
  ['s', 'Snooze'],
  ['a', 'Assign to a teammate'],
  ['Enter', 'Open the lead'],
  ['u', 'Undo the last change'],
  ['?', 'Show these shortcuts'],
]

function ShortcutsDialog({ onClose }: { onClose: () => void }) {
  return (
    <Dialog title="Keyboard shortcuts" isOpen onOpenChange={onClose} size="sm">
      <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-2 text-sm">
        {SHORTCUTS.map(([keys, what]) => (
          <div key={keys} className="contents">
            <dt>
              <kbd className="rounded border border-slate-300 bg-slate-50 px-1.5 font-mono text-xs">{keys}</kbd>
            </dt>
            <dd className="text-slate-700">{what}</dd>
          </div>
        ))}
      </dl>
      <p className="text-xs text-slate-500">Shortcuts are off while you type in a field.</p>
      <div className="flex justify-end">
        <Button autoFocus onPress={onClose}>
          Close
        </Button>
      </div>
    </Dialog>
  )
}
