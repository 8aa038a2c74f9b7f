import { useSuspenseQuery } from '@tanstack/react-query'
import { Link, useNavigate } from '@tanstack/react-router'
import { lazy, Suspense } from 'react'
import type { Lead } from '@leadline/shared/lead-schema'
import { ConfirmedDelete } from '../../components/ui/dialog'
import { showToast } from '../../components/ui/toast'
import { useDocumentTitle } from '../../lib/document-title'
import { formatDateTime } from '../../lib/format'
import type { ActivityKind } from './activity-kinds'
import { AddressesPanel } from './addresses-panel'
import { ContactsPanel } from './contacts-panel'
import { LeadCustomFields, LeadDetails } from './lead-details'
import { leadQueries, useDeleteLead } from './lead-queries'
import { LeadTimeline } from './lead-timeline'
import { OpportunitiesPanel } from './opportunities-panel'
import { StatusPicker } from './status-picker'
import { TasksPanel } from './tasks-panel'

// Fetched with the page, not in its first-visit JavaScript: most leads have no likely duplicate.
const LeadDuplicatesWarning = lazy(() =>
  import('./lead-duplicates-warning').then((m) => ({ default: m.LeadDuplicatesWarning })),
)

export function LeadPage({ leadId, activity }: { leadId: string; activity: ActivityKind | undefined }) {
  const { data: lead } = useSuspenseQuery(leadQueries.detail(leadId))
  const name = lead.display_name === '' ? 'Unnamed lead' : lead.display_name
  useDocumentTitle(name, 'Leads')
  return (
    <div className="flex flex-col gap-6">
      <div className="flex flex-col gap-3">
        <Link to="/leads" className="w-fit text-sm text-indigo-700 hover:underline">
          ← Leads
        </Link>
        <div className="flex flex-wrap items-end justify-between gap-4">
          <div className="min-w-0">
            <h1 className="text-2xl font-bold break-words text-slate-900">{name}</h1>
            <p className="mt-1 text-xs text-slate-500">
              Created {formatDateTime(lead.date_created)}
              {lead.created_by_name === null ? '' : ` by ${lead.created_by_name}`} · updated{' '}
              {formatDateTime(lead.date_updated)}
            </p>
          </div>
          <div className="flex items-end gap-3">
            <StatusPicker lead={lead} />
            <DeleteLeadButton lead={lead} />
          </div>
        </div>
      </div>
      <Suspense fallback={null}>
        <LeadDuplicatesWarning lead={lead} />
      </Suspense>
      {/*
       * A phone shows one column: details, then contacts (the numbers a rep is after), then the long timeline. A wide
       * screen puts the side panels beside both; the second row takes any extra height, so no gap opens above the
       * timeline when the side column is the taller.
       */}
      <div className="grid grid-cols-1 items-start gap-6 lg:grid-cols-3 lg:grid-rows-[auto_1fr]">
        <div className="flex flex-col gap-6 lg:col-span-2">
          <LeadDetails lead={lead} />
          <LeadCustomFields lead={lead} />
        </div>
        <div className="flex flex-col gap-6 lg:row-span-2">
          <ContactsPanel lead={lead} />
          <AddressesPanel lead={lead} />
          <OpportunitiesPanel lead={lead} />
          <TasksPanel lead={lead} />
        </div>
        <div className="lg:col-span-2">
          <LeadTimeline lead={lead} kind={activity} />
        </div>
      </div>
    </div>
  )
}

function DeleteLeadButton({ lead }: { lead: Lead }) {
  const deleteLead = useDeleteLead(lead.id)
  const navigate = useNavigate()
  return (
    <ConfirmedDelete
      label="Delete lead"
      title={`Delete ${lead.display_name || 'this lead'}?`}
      isPending={deleteLead.isPending}
      onConfirm={(close) => {
        deleteLead.mutate(undefined, {
          onSuccess: () => {
            close()
            showToast({ title: `Lead “${lead.display_name}” deleted` })
            void navigate({ to: '/leads' })
          },
        })
      }}
    >
      The lead, its contacts, addresses and activity are deleted for everyone in your organization. This cannot be
      undone.
    </ConfirmedDelete>
  )
}
