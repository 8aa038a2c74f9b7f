import { useQuery } from '@tanstack/react-query'
import { Link, useNavigate } from '@tanstack/react-router'
import { useState } from 'react'
import type { DuplicateLead } from '@leadline/shared/lead-duplicate-schema'
import type { Lead } from '@leadline/shared/lead-schema'
import { Button } from '../../components/ui/button'
import { ConfirmDialog } from '../../components/ui/dialog'
import { showToast } from '../../components/ui/toast'
import { duplicateQueries, leadName, mergeDirection, reasonsText, useMergeLeads } from './lead-duplicate-queries'

/**
 * Other leads that look like this one (same email, phone or web domain, or a very similar name), each to open or to
 * merge with it. Shown after a lead is created, and on its page while the likeness lasts.
 */
export function LeadDuplicatesWarning({ lead }: { lead: Lead }) {
  const duplicates = useQuery(duplicateQueries.ofLead(lead.id))
  const [merging, setMerging] = useState<DuplicateLead | null>(null)
  const merge = useMergeLeads()
  const navigate = useNavigate()
  const found = duplicates.data?.data ?? []
  if (found.length === 0) return null

  const self: DuplicateLead = {
    id: lead.id,
    display_name: lead.display_name,
    url: lead.url,
    status_id: lead.status_id,
    status_label: lead.status_label,
    date_created: lead.date_created,
  }
  const plan = merging === null ? null : mergeDirection(self, merging)

  return (
    <section
      role="status"
      aria-labelledby="possible-duplicates"
      className="flex flex-col gap-3 rounded-lg border border-amber-300 bg-amber-50 p-4"
    >
      <h2 id="possible-duplicates" className="text-base font-semibold text-amber-950">
        Possible duplicates
      </h2>
      <p className="text-sm text-amber-950">
        {found.length === 1 ? 'Another lead looks' : `${String(found.length)} other leads look`} like this one. Open it
        to check, or merge the two.
      </p>
      <ul className="flex flex-col divide-y divide-amber-200">
        {found.map((duplicate) => (
          <li key={duplicate.lead.id} className="flex flex-wrap items-center justify-between gap-3 py-2">
            <div className="min-w-0">
              <p className="font-medium break-words text-slate-900">{leadName(duplicate.lead)}</p>
              <p className="text-sm text-slate-700">
                {duplicate.lead.status_label} · {reasonsText(duplicate.reasons)}
              </p>
            </div>
            <div className="flex gap-2">
              <Link
                to="/leads/$leadId"
                params={{ leadId: duplicate.lead.id }}
                aria-label={`Open ${leadName(duplicate.lead)}`}
                className="rounded-md border border-slate-300 bg-white px-2.5 py-1 text-sm text-slate-800 hover:bg-slate-50"
              >
                Open
              </Link>
              <Button
                size="sm"
                variant="secondary"
                aria-label={`Merge with ${leadName(duplicate.lead)}`}
                onPress={() => {
                  setMerging(duplicate.lead)
                }}
              >
                Merge
              </Button>
            </div>
          </li>
        ))}
      </ul>
      <ConfirmDialog
        title={plan === null ? 'Merge leads?' : `Merge into ${leadName(plan.destination)}?`}
        confirmLabel="Merge"
        isOpen={plan !== null}
        isPending={merge.isPending}
        onCancel={() => {
          setMerging(null)
        }}
        onConfirm={() => {
          if (plan === null) return
          merge.mutate(
            { source: plan.source.id, destination: plan.destination.id },
            {
              onSuccess: () => {
                setMerging(null)
                showToast({ title: `Merged into “${leadName(plan.destination)}”` })
                void navigate({ to: '/leads/$leadId', params: { leadId: plan.destination.id } })
              },
            },
          )
        }}
      >
        {plan === null
          ? ''
          : `“${leadName(plan.source)}” is merged into “${leadName(plan.destination)}”, the older lead, which is kept: its contacts, activities, opportunities and tasks move there, and “${leadName(plan.source)}” is deleted.`}
      </ConfirmDialog>
    </section>
  )
}
