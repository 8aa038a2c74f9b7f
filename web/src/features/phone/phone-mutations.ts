import { useMutation, useQueryClient } from '@tanstack/react-query'
import { api } from '../../lib/api'
import { leadQueries } from '../leads/lead-queries'
import { showInTimeline } from '../leads/timeline-cache'
import type { CallBody } from './call-draft'
import type { CallActivity } from './call-display'
import type { SmsBody } from './sms-draft'
import type { SmsActivity } from './sms-display'

export function useLogCall(leadId: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationKey: leadQueries.activities(leadId).queryKey,
    mutationFn: (body: CallBody) => api.post<CallActivity>('activity/call/', body),
    onSuccess: (call) => {
      showInTimeline(queryClient, call, 'calls')
    },
    // The form shows the API's errors beside their fields.
    meta: { errorTitle: false },
  })
}

/** Sends or schedules a message: a new one, or the draft it was (`draftId`), with what the composer now holds. */
export function useSendSms(leadId: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationKey: leadQueries.activities(leadId).queryKey,
    mutationFn: ({ draftId, body }: { draftId: string | undefined; body: SmsBody }) =>
      draftId === undefined
        ? api.post<SmsActivity>('activity/sms/', { ...body, lead_id: leadId })
        : api.put<SmsActivity>(`activity/sms/${encodeURIComponent(draftId)}/`, body),
    onSuccess: (message) => {
      showInTimeline(queryClient, message, 'sms')
    },
    meta: { errorTitle: false },
  })
}

/** Takes a message not sent yet back to a draft: the undo of a send within its window, or of a schedule. */
export function useSmsToDraft(leadId: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationKey: leadQueries.activities(leadId).queryKey,
    mutationFn: (id: string) => api.put<SmsActivity>(`activity/sms/${encodeURIComponent(id)}/`, { status: 'draft' }),
    onSuccess: (message) => {
      showInTimeline(queryClient, message, 'sms')
    },
    meta: { errorTitle: false },
  })
}
