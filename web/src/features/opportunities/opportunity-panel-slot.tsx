import { useNavigate } from '@tanstack/react-router'
import { lazy, Suspense } from 'react'

const OpportunityPanel = lazy(() => import('./opportunity-panel').then((m) => ({ default: m.OpportunityPanel })))

/** The side panel of the opportunity named in the board's URL (`?opportunity=oppo_…`), loaded when one opens. */
export function OpportunityPanelSlot({ opportunityId }: { opportunityId: string | undefined }) {
  const navigate = useNavigate()
  if (opportunityId === undefined) return null
  return (
    <Suspense fallback={null}>
      <OpportunityPanel
        key={opportunityId}
        opportunityId={opportunityId}
        onClose={() => {
          void navigate({ to: '/opportunities', search: (prev) => ({ ...prev, opportunity: undefined }) })
        }}
      />
    </Suspense>
  )
}
