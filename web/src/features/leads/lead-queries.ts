import { infiniteQueryOptions, queryOptions, useMutation, useQueryClient } from '@tanstack/react-query'
import type { Activity } from '@leadline/shared/activity-schema'
import type { Contact } from '@leadline/shared/contact-schema'
import type { CustomField, CustomObjectType } from '@leadline/shared/custom-field-schema'
import type { Lead, LeadPage } from '@leadline/shared/lead-schema'
import type { ListEnvelope } from '@leadline/shared/list'
import type { LeadStatus } from '@leadline/shared/status-schema'
import type { User } from '@leadline/shared/user-schema'
import { showToast } from '../../components/ui/toast'
import { api, isApiError, saveErrorMessage } from '../../lib/api'
import { activityTypesOf, type ActivityKind } from './activity-kinds'
import { setupListQuery } from '../../lib/setup-query'
import { LEADS_PER_PAGE } from '@leadline/shared/first-screen-requests'

/** Why the API refused a search (`name:"acme` → an unterminated quote, with its column), or undefined. */
export function searchErrorOf(error: unknown): string | undefined {
  return isApiError(error, 400) ? error.fieldErrors.query : undefined
}

/*
 * Query keys nest: everything about one lead sits under its detail key, so invalidating
 * `['leads', 'detail', id]` refreshes the lead and its timeline, and `['leads']` every lead screen.
 * Mutations name the prefix they make stale as their `mutationKey`; the MutationCache invalidates it.
 */
export const leadQueries = {
  all: () => ['leads'] as const,
  /** The list as one scrolls: pages of LEADS_PER_PAGE, the next read when the rows before it near the screen. */
  list: (query: string | undefined) =>
    infiniteQueryOptions({
      queryKey: [...leadQueries.all(), 'list', query ?? ''],
      queryFn: ({ pageParam, signal }) =>
        api.get<LeadPage>('lead/', { query, _skip: pageParam * LEADS_PER_PAGE, _limit: LEADS_PER_PAGE }, signal),
      initialPageParam: 0,
      getNextPageParam: (last, pages) => (last.has_more ? pages.length : undefined),
    }),
  detail: (id: string) =>
    queryOptions({
      queryKey: [...leadQueries.all(), 'detail', id],
      queryFn: () => api.get<Lead>(`lead/${encodeURIComponent(id)}/`),
    }),
  /** All of the lead's activities, or one kind's; every kind's key starts with All's, so invalidating it refreshes them. */
  activities: (leadId: string, kind?: ActivityKind) =>
    queryOptions({
      queryKey:
        kind === undefined
          ? [...leadQueries.detail(leadId).queryKey, 'activities']
          : [...leadQueries.detail(leadId).queryKey, 'activities', kind],
      queryFn: () =>
        api.get<ListEnvelope<Activity>>('activity/', {
          lead_id: leadId,
          _type__in: activityTypesOf(kind),
          _limit: 100,
        }),
    }),
}

export const setupQueries = {
  statuses: () => setupListQuery<LeadStatus>(['statuses', 'lead'], 'status/lead/'),
  /** The organization's members, for `user` custom fields. */
  members: () => setupListQuery<User>(['members'], 'user/', { _limit: 1000 }),
  /** In the organization's order (`/custom_field_schema/`), which the list follows. */
  customFields: (objectType: CustomObjectType) =>
    setupListQuery<CustomField>(['custom-fields', objectType], `custom_field/${objectType}/`, { _limit: 100 }),
}

/** A lead or contact body as the API accepts it: known fields plus `custom.<field id>` keys. */
export type LeadBody = Partial<Pick<Lead, 'name' | 'url' | 'description' | 'status_id' | 'addresses'>> & {
  contacts?: ContactBody[]
} & Record<`custom.${string}`, unknown>

export interface ContactBody {
  name?: string | null
  title?: string | null
  emails?: { type?: Contact['emails'][number]['type']; email: string }[]
  phones?: { type?: Contact['phones'][number]['type']; phone: string }[]
  urls?: { type?: Contact['urls'][number]['type']; url: string }[]
  [custom: `custom.${string}`]: unknown
}

export function useCreateLead() {
  return useMutation({
    mutationKey: leadQueries.all(),
    mutationFn: (body: LeadBody) => api.post<Lead>('lead/', body),
    meta: { errorTitle: false },
  })
}

/** Saves some fields of a lead; the caller shows field errors, so no toast here. */
export function useUpdateLead(leadId: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationKey: leadQueries.all(),
    mutationFn: (body: LeadBody) => api.put<Lead>(`lead/${encodeURIComponent(leadId)}/`, body),
    onSuccess: (lead) => {
      queryClient.setQueryData(leadQueries.detail(leadId).queryKey, lead)
    },
    meta: { errorTitle: false },
  })
}

/** The status changes on screen at once; if the API refuses, it goes back and the user is told. */
export function useChangeStatus(leadId: string) {
  const queryClient = useQueryClient()
  const detailKey = leadQueries.detail(leadId).queryKey
  return useMutation({
    mutationKey: leadQueries.all(),
    mutationFn: (status: LeadStatus) => api.put<Lead>(`lead/${encodeURIComponent(leadId)}/`, { status_id: status.id }),
    onMutate: async (status) => {
      await queryClient.cancelQueries({ queryKey: detailKey, exact: true })
      const previous = queryClient.getQueryData(detailKey)
      if (previous !== undefined) {
        queryClient.setQueryData(detailKey, { ...previous, status_id: status.id, status_label: status.label })
      }
      return { previous }
    },
    onError: (error, status, context) => {
      if (context?.previous !== undefined) queryClient.setQueryData(detailKey, context.previous)
      showToast({
        title: `The status was not changed to ${status.label}`,
        description: `${saveErrorMessage(error, 'status')} It is back to ${context?.previous?.status_label ?? 'what it was'}.`,
        tone: 'error',
      })
    },
    meta: { errorTitle: false },
  })
}

export function useDeleteLead(leadId: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationKey: [...leadQueries.all(), 'list'],
    mutationFn: () => api.delete(`lead/${encodeURIComponent(leadId)}/`),
    onSuccess: () => {
      // The page is leaving: drop the lead instead of refetching it into a 404.
      queryClient.removeQueries({ queryKey: leadQueries.detail(leadId).queryKey })
    },
    meta: { errorTitle: 'The lead was not deleted' },
  })
}

export function useAddNote(leadId: string) {
  return useMutation({
    mutationKey: leadQueries.activities(leadId).queryKey,
    mutationFn: (note: string) => api.post<Activity>('activity/note/', { lead_id: leadId, note }),
    meta: { errorTitle: 'The note was not saved' },
  })
}

export function useSaveContact(leadId: string) {
  return useMutation({
    mutationKey: leadQueries.all(),
    mutationFn: ({ contactId, body }: { contactId: string | undefined; body: ContactBody }) =>
      contactId === undefined
        ? api.post<Contact>('contact/', { ...body, lead_id: leadId })
        : api.put<Contact>(`contact/${encodeURIComponent(contactId)}/`, body),
    meta: { errorTitle: false },
  })
}

export function useDeleteContact() {
  return useMutation({
    mutationKey: leadQueries.all(),
    mutationFn: (contactId: string) => api.delete(`contact/${encodeURIComponent(contactId)}/`),
    meta: { errorTitle: 'The contact was not deleted' },
  })
}
