import { queryOptions } from '@tanstack/react-query'
import type { ListEnvelope } from '@leadline/shared/list'
import { api } from '../../lib/api'
import { useFormMutation } from '../../lib/form-mutation'

/** One of the signed-in person's sessions (`/auth/session/`): this browser's is `current`. */
export interface Session {
  id: string
  description: string | null
  date_created: string
  date_last_used: string | null
  date_expires: string
  current: boolean
}

/** A live API key as `/api_key/` lists it: never the key itself, which is shown once, when it is made. */
export interface ApiKey {
  id: string
  description: string | null
  user_id: string
  user_name: string
  date_created: string
  date_last_used: string | null
}

export const profileQueries = {
  sessions: () =>
    queryOptions({
      queryKey: ['sessions'] as const,
      queryFn: () => api.get<ListEnvelope<Session>>('auth/session/'),
      select: (page) => page.data,
    }),
  apiKeys: () =>
    queryOptions({
      queryKey: ['api-keys'] as const,
      queryFn: () => api.get<ListEnvelope<ApiKey>>('api_key/'),
      select: (page) => page.data,
    }),
}

export function useChangePassword() {
  return useFormMutation(profileQueries.sessions().queryKey, (body: { current_password: string; password: string }) =>
    api.put<{ ended_sessions: number }>('auth/password/', body),
  )
}

export function useSignOutOthers() {
  return useFormMutation(profileQueries.sessions().queryKey, () =>
    api.post<{ ended: number }>('auth/session/sign_out_others/', {}),
  )
}

export function useCreateApiKey() {
  return useFormMutation(profileQueries.apiKeys().queryKey, (description: string) =>
    api.post<ApiKey & { api_key: string }>('api_key/', description === '' ? {} : { description }),
  )
}

export function useRevokeApiKey() {
  return useFormMutation(profileQueries.apiKeys().queryKey, (id: string) =>
    api.delete(`api_key/${encodeURIComponent(id)}/`),
  )
}
