import { queryOptions } from '@tanstack/react-query'
import type { EmailTemplate, RenderedEmailTemplate } from '@leadline/shared/email-template-schema'
import type { ListEnvelope } from '@leadline/shared/list'
import { api } from '../../lib/api'
import type { Me } from './email-wire'

export const emailQueries = {
  /** The user's email accounts, from `/me/`: the addresses the composer sends from. */
  accounts: () =>
    queryOptions({
      queryKey: ['me', 'email-accounts'],
      queryFn: () => api.get<Me>('me/'),
      staleTime: 5 * 60_000,
      select: (me) => me.email_accounts,
    }),
  /** The templates the user may use: the organization's shared ones and their own. */
  templates: () =>
    queryOptions({
      queryKey: ['email-templates'],
      queryFn: () => api.get<ListEnvelope<EmailTemplate>>('email_template/', { is_archived: false, _limit: 100 }),
      staleTime: 60_000,
      select: (page) => page.data,
    }),
  /** A template rendered for a lead's contact, as the preview shows it and the composer takes it. */
  rendered: (templateId: string, leadId: string, contactId: string) =>
    queryOptions({
      queryKey: ['email-templates', templateId, 'render', leadId, contactId],
      queryFn: () =>
        api.get<RenderedEmailTemplate>(`email_template/${encodeURIComponent(templateId)}/render/`, {
          lead_id: leadId,
          contact_id: contactId,
        }),
    }),
}
