import type { Lead } from '@leadline/shared/lead-schema'
import type { Opportunity } from '@leadline/shared/opportunity-schema'
import { lazy, Suspense, useState } from 'react'
import { Button } from '../../components/ui/button'
import { ConfirmDialog, Dialog } from '../../components/ui/dialog'
import { Panel } from '../../components/ui/panel'
import { RowActions } from '../../components/ui/row-actions'
import { formatCalendarDate } from '../../lib/format'
import { useDeleteOpportunity } from '../opportunities/opportunity-mutations'

const OpportunityForm = lazy(() =>
  import('../opportunities/opportunity-form').then((m) => ({ default: m.OpportunityForm })),
)

/** The lead's opportunities as the lead's API view nests them; each opens the shared form or is deleted. */
export function OpportunitiesPanel({ lead }: { lead: Lead }) {
  const items = lead.opportunities
  const [editing, setEditing] = useState<Opportunity | 'new'>()
  const [deleting, setDeleting] = useState<Opportunity>()
  const deleteOpportunity = useDeleteOpportunity()
  return (
    <Panel
      title="Opportunities"
      actions={
        <Button
          size="sm"
          onPress={() => {
            setEditing('new')
          }}
        >
          New opportunity
        </Button>
      }
    >
      {items.length === 0 ? (
        <p className="text-sm text-slate-500">No opportunities.</p>
      ) : (
        <ul className="flex flex-col divide-y divide-slate-100 text-sm">
          {items.map((item) => (
            <li key={item.id} className="flex flex-col gap-0.5 py-2 first:pt-0 last:pb-0">
              <span className="flex justify-between gap-2">
                <span>
                  <span className="font-medium">{item.status_label}</span>{' '}
                  <span className="text-xs text-slate-500">{item.status_type}</span>
                </span>
                <span className="text-slate-700">
                  {item.value_formatted ?? ''}
                  {item.value_formatted === null ? '' : ' · '}
                  {item.confidence}%
                </span>
              </span>
              {item.note === '' ? null : <span className="whitespace-pre-wrap text-slate-600">{item.note}</span>}
              <span className="text-xs text-slate-500">
                {item.pipeline_name}
                {item.user_name === null ? '' : ` · ${item.user_name}`}
                {item.date_won === null
                  ? ''
                  : ` · ${item.status_type === 'won' ? 'won' : 'closes'} ${formatCalendarDate(item.date_won)}`}
              </span>
              <RowActions
                editLabel={`Edit ${item.status_label} opportunity`}
                deleteLabel={`Delete ${item.status_label} opportunity`}
                editTone="accent"
                onEdit={() => {
                  setEditing(item)
                }}
                onDelete={() => {
                  setDeleting(item)
                }}
              />
            </li>
          ))}
        </ul>
      )}
      <Dialog
        title={editing === 'new' ? 'New opportunity' : 'Edit opportunity'}
        isOpen={editing !== undefined}
        onOpenChange={() => {
          setEditing(undefined)
        }}
        isDismissable={false}
        size="lg"
      >
        <Suspense fallback={null}>
          <OpportunityForm
            opportunity={editing === 'new' ? undefined : editing}
            leadId={lead.id}
            onDone={() => {
              setEditing(undefined)
            }}
          />
        </Suspense>
      </Dialog>
      <ConfirmDialog
        title={`Delete the ${deleting?.status_label ?? ''} opportunity?`}
        isOpen={deleting !== undefined}
        onCancel={() => {
          setDeleting(undefined)
        }}
        isPending={deleteOpportunity.isPending}
        onConfirm={() => {
          if (deleting === undefined) return
          deleteOpportunity.mutate(deleting, {
            onSuccess: () => {
              setDeleting(undefined)
            },
          })
        }}
      >
        {deleting?.value_formatted ?? 'The opportunity'} is deleted for everyone in your organization. Its history stays
        in the lead’s activity. This cannot be undone.
      </ConfirmDialog>
    </Panel>
  )
}
