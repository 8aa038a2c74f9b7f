import { api } from '../../lib/api'
import { useTimelineMutation } from '../leads/timeline-cache'
import type { CallBody } from './call-draft'
import type { CallActivity } from './call-display'
import type { SmsBody } from './sms-draft'
import type { SmsActivity } from './sms-display'

export function useLogCall(leadId: string) {
  return useTimelineMutation(leadId, 'calls', (body: CallBody) => api.post<CallActivity>('activity/call/', body))
}

/** Sends or schedules a message: a new one, or the draft it was (`draftId`), with what the composer now holds. */
export function useSendSms(leadId: string) {
  return useTimelineMutation(leadId, 'sms', ({ draftId, body }: { draftId: string | undefined; body: SmsBody }) =>
    draftId === undefined
      ? api.post<SmsActivity>('activity/sms/', { ...body, lead_id: leadId })
      : api.put<SmsActivity>(`activity/sms/${encodeURIComponent(draftId)}/`, body),
  )
}

/** Takes a message not sent yet back to a draft: the undo of a send within its window, or of a schedule. */
export function useSmsToDraft(leadId: string) {
  return useTimelineMutation(leadId, 'sms', (id: string) =>
    api.put<SmsActivity>(`activity/sms/${encodeURIComponent(id)}/`, { status: 'draft' }),
  )
}
