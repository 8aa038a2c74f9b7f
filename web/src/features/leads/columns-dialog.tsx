import { useState, type SubmitEvent } from 'react'
import { CheckboxField } from '../../components/ui/checkbox-field'
import { Dialog } from '../../components/ui/dialog'
import { FormActions } from '../../components/ui/form-actions'
import type { LeadColumn } from './lead-columns'

// `Columns` on the leads list: which columns show after Name. The page saves the choice in the open Smart View
// (when it is the user's to change) or in this browser (lead-columns.ts). Loaded when first opened.

export function ColumnsDialog({
  available,
  chosen,
  isPending,
  error,
  onCancel,
  onApply,
}: {
  available: LeadColumn[]
  chosen: LeadColumn[]
  isPending: boolean
  error: string | undefined
  onCancel: () => void
  onApply: (ids: string[]) => void
}) {
  const [picked, setPicked] = useState(() => new Set(chosen.map((c) => c.id)))
  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault()
    // Those shown already keep their order; the newly picked follow in the list's order.
    const kept = chosen.filter((c) => picked.has(c.id)).map((c) => c.id)
    const added = available.filter((c) => picked.has(c.id) && !kept.includes(c.id)).map((c) => c.id)
    onApply([...kept, ...added])
  }
  return (
    <Dialog
      title="Choose columns"
      isOpen
      onOpenChange={(open) => {
        if (!open) onCancel()
      }}
      size="sm"
    >
      <form onSubmit={submit} className="flex flex-col gap-4">
        <p className="text-sm text-slate-600">Name always shows first.</p>
        <fieldset className="flex max-h-80 flex-col gap-2 overflow-y-auto">
          <legend className="sr-only">Columns</legend>
          {available.map((column) => (
            <CheckboxField
              key={column.id}
              label={column.label}
              checked={picked.has(column.id)}
              onChange={(on) => {
                setPicked((before) => {
                  const next = new Set(before)
                  if (on) next.add(column.id)
                  else next.delete(column.id)
                  return next
                })
              }}
            />
          ))}
        </fieldset>
        <FormActions error={error} submitLabel="Show columns" isPending={isPending} onCancel={onCancel} />
      </form>
    </Dialog>
  )
}
