import { lazy, Suspense, useState } from 'react'
import type { Opportunity } from '@leadline/shared/opportunity-schema'
import { Button } from '../../components/ui/button'
import { Dialog } from '../../components/ui/dialog'
import { LeadComboBox } from './opportunity-form-lead'

const OpportunityForm = lazy(() => import('./opportunity-form').then((m) => ({ default: m.OpportunityForm })))

interface OpportunityFormDialogProps {
  /** The opportunity edited, `'new'` to add one, undefined while closed. */
  editing: Opportunity | 'new' | undefined
  /** The lead a new one belongs to (the lead page); without it the form asks for one. */
  leadId?: string | undefined
  pipelineId?: string | undefined
  onClose: () => void
}

/** The opportunity form in a dialog; its code loads when the dialog first opens (the lead page's budget). */
function OpportunityFormDialog({ editing, leadId, pipelineId, onClose }: OpportunityFormDialogProps) {
  return (
    <Dialog
      title={editing === 'new' || editing === undefined ? 'New opportunity' : 'Edit opportunity'}
      isOpen={editing !== undefined}
      onOpenChange={(isOpen) => {
        if (!isOpen) onClose()
      }}
      isDismissable={false}
      size="lg"
    >
      {editing === undefined ? null : (
        <Suspense fallback={<p className="text-sm text-slate-500">Loading…</p>}>
          <OpportunityForm
            opportunity={editing === 'new' ? undefined : editing}
            leadId={leadId}
            pipelineId={pipelineId}
            LeadPicker={LeadComboBox}
            onDone={onClose}
          />
        </Suspense>
      )}
    </Dialog>
  )
}

/** The board's "New opportunity": the lead is chosen in the form; it starts in the pipeline shown. */
export function NewOpportunityButton({
  pipelineId,
  className,
}: {
  pipelineId: string | undefined
  className?: string
}) {
  const [isOpen, setOpen] = useState(false)
  return (
    <>
      <Button
        variant="primary"
        className={className}
        onPress={() => {
          setOpen(true)
        }}
      >
        New opportunity
      </Button>
      <OpportunityFormDialog
        editing={isOpen ? 'new' : undefined}
        pipelineId={pipelineId}
        onClose={() => {
          setOpen(false)
        }}
      />
    </>
  )
}
