import type { Lead } from '@leadline/shared/lead-schema'
import { lazy, Suspense } from 'react'
import { Skeleton } from '../../components/ui/feedback'
import { Panel } from '../../components/ui/panel'

// The list, its actions and the form load after the page: the lead page's first visit stays within its budget.
const LeadTasks = lazy(() => import('../tasks/lead-tasks').then((m) => ({ default: m.LeadTasks })))

export function TasksPanel({ lead }: { lead: Lead }) {
  return (
    <Panel title="Tasks">
      <Suspense fallback={<Skeleton className="h-24 w-full" />}>
        <LeadTasks leadId={lead.id} />
      </Suspense>
    </Panel>
  )
}
