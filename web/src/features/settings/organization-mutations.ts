import { useMutation, useQueryClient } from '@tanstack/react-query'
import type { Organization } from '@leadline/shared/organization-schema'
import type { Outcome } from '@leadline/shared/outcome-schema'
import type { PhoneNumber } from '@leadline/shared/phone-number-schema'
import { api } from '../../lib/api'
import { useFormMutation } from '../../lib/form-mutation'
import { authQueries } from '../auth/auth-queries'
import { phoneQueries } from '../phone/phone-queries'
import { organizationQueries, phoneNumberQueries, type InboundSecret } from './organization-queries'
import { useOptimisticReorder } from './settings-mutations'

const outcomesKey = phoneQueries.outcomes().queryKey
const outcomePath = (id: string) => `outcome/${encodeURIComponent(id)}/`
const phoneNumberPath = (id: string) => `phone_number/${encodeURIComponent(id)}/`
const organizationPath = (id: string) => `organization/${encodeURIComponent(id)}/`

export function useSaveOutcome() {
  return useFormMutation(outcomesKey, ({ id, name }: { id: string | undefined; name: string }) =>
    id === undefined ? api.post<Outcome>('outcome/', { name }) : api.put<Outcome>(outcomePath(id), { name }),
  )
}

export function useDeleteOutcome() {
  return useFormMutation(outcomesKey, (id: string) => api.delete(outcomePath(id)))
}

/** Like the lead statuses: the organization, with every outcome in the new order. */
export function useReorderOutcomes() {
  return useOptimisticReorder({
    queryKey: outcomesKey,
    save: ({ organizationId, ordered }: { organizationId: string; ordered: Outcome[] }) =>
      api.put<Organization>(organizationPath(organizationId), { outcomes: ordered.map((o) => ({ id: o.id })) }),
    reorder: (_previous, { ordered }) => ordered,
    what: () => 'the call outcomes',
    field: 'outcomes',
  })
}

export interface OrganizationChange {
  name: string
  currency: string
}

export function useSaveOrganization(id: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationKey: organizationQueries.all(),
    mutationFn: (change: OrganizationChange) => api.put<Organization>(organizationPath(id), change),
    meta: { errorTitle: false },
    // The header shows the organization's name from the session: the admin who renamed it sees the new one at once.
    onSuccess: () => queryClient.invalidateQueries({ queryKey: authQueries.session().queryKey }),
  })
}

/** What a phone number's form sends: the number only when adding (it cannot change). */
export interface PhoneNumberBody {
  number?: string
  label: string | null
  type: PhoneNumber['type']
  user_id: string | null
}

export function useSavePhoneNumber() {
  return useFormMutation(phoneNumberQueries.all(), ({ id, body }: { id: string | undefined; body: PhoneNumberBody }) =>
    id === undefined ? api.post<PhoneNumber>('phone_number/', body) : api.put<PhoneNumber>(phoneNumberPath(id), body),
  )
}

export function useDeletePhoneNumber() {
  return useFormMutation(phoneNumberQueries.all(), (id: string) => api.delete(phoneNumberPath(id)))
}

/** A new inbound secret: requests signed with the old one are refused at once. The screen shows the new one. */
export function useRotateInboundSecret() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: () => api.post<InboundSecret>('inbound/secret/rotate/', {}),
    onSuccess: (secret) => {
      queryClient.setQueryData(phoneNumberQueries.inboundSecret().queryKey, secret)
    },
    meta: { errorTitle: 'The inbound secret was not rotated' },
  })
}
