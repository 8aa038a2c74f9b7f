import type { Lead } from '@leadline/shared/lead-schema'
import type { Opportunity } from '@leadline/shared/opportunity-schema'
import { lazy, Suspense, useState } from 'react'
import { Button } from '../../components/ui/button'
import { Dialog } from '../../components/ui/dialog'
import { Panel } from '../../components/ui/panel'
import { formatCalendarDate } from '../../lib/format'

const OpportunityForm = lazy(() =>
  import('../opportunities/opportunity-form').then((m) => ({ default: m.OpportunityForm })),
)

/** The lead's opportunities: status, value and note, as the lead's API view nests them; each opens the shared form. */
export function OpportunitiesPanel({ lead }: { lead: Lead }) {
  const items = lead.opportunities
  const [editing, setEditing] = useState<Opportunity | 'new'>()
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
        <ul className="flex flex-col gap-2 text-sm">
          {items.map((item) => (
            <li key={item.id} className="flex flex-col gap-0.5">
              <span className="flex justify-between gap-2">
                <span className="font-medium">{item.status_label}</span>
                <span className="text-slate-700">{item.value_formatted ?? ''}</span>
              </span>
              {item.note === '' ? null : <span className="text-slate-600">{item.note}</span>}
              <span className="text-xs text-slate-500">
                {item.pipeline_name}
                {item.user_name === null ? '' : ` · ${item.user_name}`}
                {item.date_won === null
                  ? ''
                  : ` · ${item.status_type === 'won' ? 'won' : 'closes'} ${formatCalendarDate(item.date_won)}`}
              </span>
              <Button
                size="sm"
                variant="quiet"
                aria-label={`Edit ${item.status_label} opportunity`}
                className="w-fit text-indigo-700"
                onPress={() => {
                  setEditing(item)
                }}
              >
                Edit
              </Button>
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
    </Panel>
  )
}
