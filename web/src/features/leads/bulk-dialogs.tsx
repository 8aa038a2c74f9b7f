import { useQuery } from '@tanstack/react-query'
import { useState, type SubmitEvent } from 'react'
import type { CustomField } from '@leadline/shared/custom-field-schema'
import { Button } from '../../components/ui/button'
import { Dialog } from '../../components/ui/dialog'
import { FormActions } from '../../components/ui/form-actions'
import { SelectField } from '../../components/ui/select-field'
import { TextField } from '../../components/ui/text-field'
import { saveErrorMessage } from '../../lib/api'
import { editBody, selectionBody, useStartBulkAction, type BulkJob, type EditChange } from './bulk-actions'
import type { Selection } from './bulk-selection'
import { setupQueries } from './lead-queries'

// The bulk dialogs, loaded when first opened: what an edit changes (a status, or a lead custom field set or cleared),
// and a delete that asks for the number of leads to be typed first.

const count = (n: number) => `${n.toLocaleString('en-US')} ${n === 1 ? 'lead' : 'leads'}`

interface BulkDialogProps {
  selection: Selection
  /** The list's search, for a selection of every matching lead. */
  query: string | undefined
  /** How many leads are selected. */
  n: number
  onClose: () => void
  onStarted: (job: BulkJob) => void
}

/** Contact fields name each lead's own contacts: no one value fits every lead. */
const settable = (f: CustomField) => f.type !== 'contact'

export function EditLeadsDialog({ selection, query, n, onClose, onStarted }: BulkDialogProps) {
  const statuses = useQuery(setupQueries.statuses()).data ?? []
  const fields = (useQuery(setupQueries.customFields('lead')).data ?? []).filter(settable)
  const members = useQuery({ ...setupQueries.members(), enabled: fields.some((f) => f.type === 'user') }).data ?? []
  const start = useStartBulkAction()
  const [what, setWhat] = useState('status')
  const [statusId, setStatusId] = useState('')
  const [value, setValue] = useState('')
  const [operation, setOperation] = useState<'replace' | 'add' | 'remove'>('replace')
  const [error, setError] = useState<string>()
  const [kind, fieldId] = what.split(':') as [string, string | undefined]
  const field = fields.find((f) => f.id === fieldId)

  const options = [
    { value: 'status', label: 'Status' },
    ...fields.flatMap((f) => [
      { value: `set:${f.id}`, label: `Set ${f.name}` },
      { value: `clear:${f.id}`, label: `Clear ${f.name}` },
    ]),
  ]

  const change = (): EditChange | string => {
    if (kind === 'status')
      return statusId === '' ? 'Choose the new status.' : { type: 'set_lead_status', lead_status_id: statusId }
    if (field === undefined) return 'Choose what to change.'
    if (kind === 'clear') return { type: 'clear_custom_field', custom_field_id: field.id }
    if (value.trim() === '') return `Give ${field.name} a value, or choose Clear ${field.name}.`
    return {
      type: 'set_custom_field',
      custom_field_id: field.id,
      value: field.accepts_multiple_values ? [value.trim()] : value.trim(),
      operation: field.accepts_multiple_values ? operation : 'replace',
    }
  }

  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault()
    const asked = change()
    if (typeof asked === 'string') {
      setError(asked)
      return
    }
    setError(undefined)
    start.mutate(
      { kind: 'edit', body: { ...editBody(asked), ...selectionBody(selection, query) } },
      {
        onSuccess: (job) => {
          onStarted(job)
        },
      },
    )
  }

  return (
    <Dialog
      title={`Edit ${count(n)}`}
      isOpen
      isDismissable={!start.isPending}
      onOpenChange={(open) => {
        if (!open) onClose()
      }}
    >
      <form onSubmit={submit} className="flex flex-col gap-4" noValidate>
        <SelectField
          label="Change"
          value={what}
          options={options}
          onChange={(next) => {
            setWhat(next)
            setValue('')
            setError(undefined)
          }}
        />
        {kind === 'status' ? (
          <SelectField
            label="New status"
            value={statusId}
            emptyLabel="Choose a status"
            options={statuses.map((s) => ({ value: s.id, label: s.label }))}
            onChange={setStatusId}
          />
        ) : kind === 'set' && field !== undefined ? (
          <>
            <FieldValue field={field} members={members} value={value} onChange={setValue} />
            {field.accepts_multiple_values ? (
              <SelectField
                label="How"
                value={operation}
                options={[
                  { value: 'replace', label: 'Replace the values' },
                  { value: 'add', label: 'Add to the values' },
                  { value: 'remove', label: 'Remove from the values' },
                ]}
                onChange={(next) => {
                  setOperation(next as typeof operation)
                }}
              />
            ) : null}
          </>
        ) : null}
        <p className="text-sm text-slate-600">
          Runs in the background; a lead that already has the value is left as it is. Undo puts back what it replaced.
        </p>
        <FormActions
          error={error ?? (start.error === null ? undefined : saveErrorMessage(start.error, 'type'))}
          submitLabel={`Apply to ${count(n)}`}
          isPending={start.isPending}
          onCancel={onClose}
        />
      </form>
    </Dialog>
  )
}

function FieldValue({
  field,
  members,
  value,
  onChange,
}: {
  field: CustomField
  members: readonly { id: string; display_name: string }[]
  value: string
  onChange: (value: string) => void
}) {
  const label = `New ${field.name}`
  if (field.type === 'choices') {
    const choices = (field.choices ?? []).map((c) => ({ value: c, label: c }))
    return <SelectField label={label} value={value} emptyLabel="Choose one" options={choices} onChange={onChange} />
  }
  if (field.type === 'user') {
    const options = members.map((m) => ({ value: m.id, label: m.display_name }))
    return (
      <SelectField label={label} value={value} emptyLabel="Choose a member" options={options} onChange={onChange} />
    )
  }
  const type = field.type === 'date' ? 'date' : field.type === 'datetime' ? 'datetime-local' : 'text'
  return <TextField label={label} type={type} value={value} onChange={onChange} />
}

/** The number as a person may type it: digits, with or without thousands separators. */
export function typedCount(text: string): number | undefined {
  const digits = text.trim().replace(/[,.\s]/g, '')
  return /^\d{1,9}$/.test(digits) ? Number(digits) : undefined
}

export function DeleteLeadsDialog({ selection, query, n, onClose, onStarted }: BulkDialogProps) {
  const start = useStartBulkAction()
  const [typed, setTyped] = useState('')
  const confirmed = typedCount(typed) === n
  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault()
    if (!confirmed) return
    start.mutate(
      { kind: 'delete', body: selectionBody(selection, query) },
      {
        onSuccess: (job) => {
          onStarted(job)
        },
      },
    )
  }
  return (
    <Dialog
      title={`Delete ${count(n)}`}
      isOpen
      isDismissable={!start.isPending}
      onOpenChange={(open) => {
        if (!open) onClose()
      }}
      size="sm"
    >
      <form onSubmit={submit} className="flex flex-col gap-4" noValidate>
        <p className="text-sm text-slate-700">
          {`This deletes ${count(n)} with everything under them: contacts, activities, opportunities and tasks. It cannot be undone.`}
        </p>
        <TextField
          label={`Type ${String(n)} to confirm`}
          value={typed}
          onChange={setTyped}
          inputMode="numeric"
          autoComplete="off"
        />
        {start.error === null ? null : (
          <p role="alert" className="text-sm text-red-700">
            {saveErrorMessage(start.error, 'query')}
          </p>
        )}
        <div className="flex justify-end gap-2">
          <Button onPress={onClose}>Cancel</Button>
          <Button type="submit" variant="danger" isDisabled={!confirmed} isPending={start.isPending}>
            {`Delete ${count(n)}`}
          </Button>
        </div>
      </form>
    </Dialog>
  )
}
