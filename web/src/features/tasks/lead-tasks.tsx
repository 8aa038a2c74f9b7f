import { useQuery, useSuspenseQuery } from '@tanstack/react-query'
import { useState, type SubmitEvent } from 'react'
import { Button } from '../../components/ui/button'
import { Skeleton, QueryErrorState } from '../../components/ui/feedback'
import { SelectField } from '../../components/ui/select-field'
import { TextField } from '../../components/ui/text-field'
import { saveErrorMessage } from '../../lib/api'
import { localDate } from '../../lib/format'
import { authQueries } from '../auth/auth-queries'
import { setupQueries } from '../leads/lead-queries'
import { dueDateOf } from './task-due'
import { TaskDialogSlot } from './task-dialog-slot'
import type { TaskDialogState } from './task-dialogs'
import { changeTitle, useCreateTask, useUndoableTaskChange } from './task-mutations'
import { taskQueries } from './task-queries'
import { TaskRow } from './task-row'
import { useCheckedText } from '../../lib/form-fields'

/** A lead's open tasks, each completed, snoozed or edited where it stands, and a one-line form to add one. */
export function LeadTasks({ leadId }: { leadId: string }) {
  const tasks = useQuery(taskQueries.lead(leadId))
  const { change } = useUndoableTaskChange()
  const [dialog, setDialog] = useState<TaskDialogState>()
  const today = localDate()
  return (
    <div className="flex flex-col gap-3">
      {tasks.isPending ? (
        <Skeleton className="h-10 w-full" />
      ) : tasks.isError ? (
        <QueryErrorState title="The tasks could not be loaded" query={tasks} />
      ) : tasks.data.length === 0 ? (
        <p className="text-sm text-slate-500">No open tasks.</p>
      ) : (
        <ul className="-mx-3 flex flex-col">
          {tasks.data.map((task) => (
            <TaskRow
              key={task.id}
              task={task}
              today={today}
              showLead={false}
              showAssignee
              onComplete={(t, done) => {
                change([t], { is_complete: done }, changeTitle([t], done ? 'completed' : 'reopened'))
              }}
              onAction={(kind, t) => {
                setDialog({ kind, tasks: [t] })
              }}
            />
          ))}
        </ul>
      )}
      <NewTaskForm leadId={leadId} />
      <TaskDialogSlot
        state={dialog}
        onClose={() => {
          setDialog(undefined)
        }}
        onChange={change}
      />
    </div>
  )
}

function NewTaskForm({ leadId }: { leadId: string }) {
  const { data: session } = useSuspenseQuery(authQueries.session())
  const members = useQuery(setupQueries.members())
  const text = useCheckedText()
  const [day, setDay] = useState(() => localDate())
  const [time, setTime] = useState('')
  const [assignee, setAssignee] = useState(session.user.id)
  const create = useCreateTask()
  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault()
    if (text.value.trim() === '') {
      text.setError('Say what to do.')
      return
    }
    create.mutate(
      { lead_id: leadId, text: text.value.trim(), date: dueDateOf(day, time), assigned_to: assignee },
      {
        onSuccess: () => {
          text.setValue('')
          setTime('')
        },
        onError: (failure) => {
          text.setError(saveErrorMessage(failure, 'text'))
        },
      },
    )
  }
  const options = members.data?.map((m) => ({ value: m.id, label: m.display_name })) ?? [
    { value: session.user.id, label: session.user.display_name },
  ]
  return (
    <form
      onSubmit={submit}
      noValidate
      aria-label="New task"
      className="flex flex-col gap-2 border-t border-slate-100 pt-3"
    >
      <TextField label="New task" {...text.field} placeholder="Call back about pricing…" />
      <div className="flex flex-wrap items-end gap-2">
        <TextField label="Due" type="date" value={day} onChange={setDay} className="min-w-36 flex-1" />
        <TextField label="Time" type="time" value={time} onChange={setTime} className="w-28" />
        <SelectField
          label="Assigned to"
          value={assignee}
          options={options}
          onChange={setAssignee}
          className="min-w-36 flex-1"
        />
        <Button type="submit" variant="primary" isPending={create.isPending}>
          Add task
        </Button>
      </div>
    </form>
  )
}
