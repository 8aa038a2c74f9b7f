import { useQuery } from '@tanstack/react-query'
import { Suspense } from 'react'
import { Dialog as AriaDialog, Heading, Modal, ModalOverlay } from 'react-aria-components'
import type { Opportunity } from '@leadline/shared/opportunity-schema'
import { Button } from '../../components/ui/button'
import { ConfirmedDelete } from '../../components/ui/dialog'
import { ErrorState, Skeleton } from '../../components/ui/feedback'
import { isApiError } from '../../lib/api'
import { OpportunityForm } from './opportunity-form'
import { opportunityDetail, useDeleteOpportunity } from './opportunity-mutations'

export interface OpportunityPanelProps {
  opportunityId: string
  onClose: () => void
}

/**
 * The board's side panel: a modal sheet on the right (focus moves in and returns to the card's button, Escape
 * closes it) that edits or deletes one opportunity. It reads the opportunity itself, so a shared link opens it.
 */
export function OpportunityPanel({ opportunityId, onClose }: OpportunityPanelProps) {
  const detail = useQuery(opportunityDetail(opportunityId))
  const opportunity = detail.data
  return (
    <ModalOverlay
      isOpen
      onOpenChange={(isOpen) => {
        if (!isOpen) onClose()
      }}
      className="fixed inset-0 z-40 flex justify-end bg-slate-900/30"
    >
      <Modal className="h-full w-full max-w-xl overflow-y-auto bg-white shadow-xl">
        <AriaDialog className="flex flex-col gap-4 p-6 outline-none">
          <div className="flex items-start justify-between gap-3">
            <div className="min-w-0">
              <Heading slot="title" className="text-lg font-semibold break-words text-slate-900">
                {opportunity === undefined ? 'Opportunity' : (opportunity.lead_name ?? 'Unnamed lead')}
              </Heading>
              {opportunity === undefined ? null : (
                <p className="text-sm text-slate-600">
                  {opportunity.pipeline_name} · {opportunity.status_label}
                  {opportunity.value_formatted === null ? '' : ` · ${opportunity.value_formatted}`}
                </p>
              )}
            </div>
            <Button size="sm" variant="quiet" aria-label="Close" onPress={onClose}>
              <span aria-hidden="true">×</span>
            </Button>
          </div>
          {detail.isPending ? <Skeleton className="h-64" /> : null}
          {detail.isError ? (
            <ErrorState
              title={isApiError(detail.error, 404) ? 'This opportunity was not found' : 'This opportunity did not load'}
              message={detail.error.message}
            />
          ) : null}
          {opportunity === undefined ? null : (
            <>
              <Suspense fallback={<Skeleton className="h-64" />}>
                <OpportunityForm opportunity={opportunity} onDone={onClose} />
              </Suspense>
              <DeleteOpportunity opportunity={opportunity} onDeleted={onClose} />
            </>
          )}
        </AriaDialog>
      </Modal>
    </ModalOverlay>
  )
}

function DeleteOpportunity({ opportunity, onDeleted }: { opportunity: Opportunity; onDeleted: () => void }) {
  const remove = useDeleteOpportunity()
  return (
    <div className="border-t border-slate-100 pt-4">
      <ConfirmedDelete
        label="Delete opportunity"
        title="Delete opportunity"
        isPending={remove.isPending}
        onConfirm={(close) => {
          remove.mutate(opportunity, {
            onSuccess: () => {
              close()
              onDeleted()
            },
          })
        }}
      >
        This opportunity of {opportunity.lead_name ?? 'the lead'} is deleted for everyone in your organization. This
        cannot be undone.
      </ConfirmedDelete>
    </div>
  )
}
