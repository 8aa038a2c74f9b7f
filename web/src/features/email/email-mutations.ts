import { useMutation, useQueryClient } from '@tanstack/react-query'
import { api } from '../../lib/api'
import { leadQueries } from '../leads/lead-queries'
import { showInTimeline, useTimelineMutation } from '../leads/timeline-cache'
import { resendBody, type EmailBody } from './email-draft'
import { withUtcOffsets, type EmailActivity, type UploadedAttachment } from './email-wire'

const emailPath = (id: string) => `activity/email/${encodeURIComponent(id)}/`

/** Sends, schedules or keeps as a draft: a new email, or the draft it was (`draftId`), with what the composer holds. */
export function useSaveEmail(leadId: string) {
  return useTimelineMutation(
    leadId,
    'email',
    async ({ draftId, body }: { draftId: string | undefined; body: EmailBody }) =>
      withUtcOffsets(
        await (draftId === undefined
          ? api.post<EmailActivity>('activity/email/', { ...body, lead_id: leadId })
          : api.put<EmailActivity>(emailPath(draftId), body)),
      ),
  )
}

/**
 * Moves an email on: back to a draft (the undo of a send within its window, or of a schedule), or, for a failed one,
 * a copy into the outbox with the failed one deleted (Try again; `error` keeps its status).
 */
export function useEmailStatus(leadId: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationKey: leadQueries.activities(leadId).queryKey,
    mutationFn: async (move: { to: 'draft'; id: string } | { to: 'retry'; email: EmailActivity }) => {
      if (move.to === 'draft')
        return withUtcOffsets(await api.put<EmailActivity>(emailPath(move.id), { status: 'draft' }))
      const copy = await api.post<EmailActivity>('activity/email/', resendBody(move.email))
      await api.delete(emailPath(move.email.id))
      return withUtcOffsets(copy)
    },
    onSuccess: (email) => {
      showInTimeline(queryClient, email, 'email')
      void queryClient.invalidateQueries({ queryKey: leadQueries.activities(leadId).queryKey })
    },
    meta: { errorTitle: false },
  })
}

/**
 * Uploads a file for an email, its bytes as they are; the email names it by the answer's `url` once saved. Several
 * run at once, so callers use `mutateAsync`, whose promise is each file's own.
 */
export function useUploadAttachment() {
  return useMutation({
    // No query lists uploaded files: the email that names one is refetched when it is saved.
    mutationKey: ['email-attachments'],
    mutationFn: (file: File) =>
      api.upload<UploadedAttachment>(`email_attachment/?filename=${encodeURIComponent(file.name)}`, file),
    // The composer says which file failed and why.
    meta: { errorTitle: false },
  })
}
