import { queryOptions } from '@tanstack/react-query'
import type { ListEnvelope } from '@leadline/shared/list'
import { api } from '../../lib/api'

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
