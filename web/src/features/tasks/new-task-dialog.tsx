import { useQuery, useSuspenseQuery } from '@tanstack/react-query'
import { useState, type SubmitEvent } from 'react'
import { Dialog } from '../../components/ui/dialog'
import { FormActions } from '../../components/ui/form-actions'
import { TextField } from '../../components/ui/text-field'
import { showToast } from '../../components/ui/toast'
import { saveErrorMessage } from '../../lib/api'
import { useCheckedText } from '../../lib/form-fields'
import { localDate } from '../../lib/format'
import { authQueries } from '../auth/auth-queries'
import { leadQueries } from '../leads/lead-queries'
import { LeadComboBox } from '../opportunities/opportunity-form-lead'
import { dueDateOf } from './task-due'
import { useCreateTask } from './task-mutations'

// A task from anywhere (the command palette's New task): for the lead on screen, else for a lead chosen here. The
// lead page's own one-line form stays where it is; this is the same request with the lead asked for.

export interface NewTaskDialogProps {
  /** The lead the task is for; the dialog asks for one when undefined. */
  leadId: string | undefined
  onClose: () => void
}

export function NewTaskDialog({ leadId, onClose }: NewTaskDialogProps) {
  return (
    <Dialog
      title="New task"
      isOpen
      onOpenChange={(open) => {
        if (!open) onClose()
      }}
      isDismissable={false}
    >
      <NewTaskForm fixedLeadId={leadId} onDone={onClose} />
    </Dialog>
  )
}

function NewTaskForm({ fixedLeadId, onDone }: { fixedLeadId: string | undefined; onDone: () => void }) {
  const { data: session } = useSuspenseQuery(authQueries.session())
  const fixedLead = useQuery({ ...leadQueries.detail(fixedLeadId ?? ''), enabled: fixedLeadId !== undefined })
  const [chosenLeadId, setChosenLeadId] = useState('')
  const [leadError, setLeadError] = useState<string>()
  const text = useCheckedText()
  const [day, setDay] = useState(() => localDate())
  const create = useCreateTask()
  const leadId = fixedLeadId ?? chosenLeadId

  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault()
    const missingLead = leadId === ''
    if (missingLead) setLeadError('Choose the lead the task is for.')
    if (text.value.trim() === '') text.setError('Say what to do.')
    if (missingLead || text.value.trim() === '') return
    create.mutate(
      { lead_id: leadId, text: text.value.trim(), date: dueDateOf(day, ''), assigned_to: session.user.id },
      {
        onSuccess: () => {
          onDone()
          showToast({ title: 'Task added' })
        },
        onError: (failure) => {
          text.setError(saveErrorMessage(failure, 'text'))
        },
      },
    )
  }

  return (
    <form onSubmit={submit} noValidate className="flex flex-col gap-4">
      {fixedLeadId === undefined ? (
        <LeadComboBox
          leadId={chosenLeadId}
          onChange={(id) => {
            setChosenLeadId(id)
            setLeadError(undefined)
          }}
          error={leadError}
        />
      ) : (
        <p className="text-sm text-slate-700">
          For <span className="font-medium text-slate-900">{fixedLead.data?.display_name ?? 'this lead'}</span>
        </p>
      )}
      <TextField
        label="Task"
        {...text.field}
        placeholder="Call back about pricing…"
        autoFocus={fixedLeadId !== undefined}
      />
      <TextField label="Due" type="date" value={day} onChange={setDay} />
      <FormActions submitLabel="Add task" isPending={create.isPending} onCancel={onDone} />
    </form>
  )
}
