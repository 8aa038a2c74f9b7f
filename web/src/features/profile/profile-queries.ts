import { wholeListQuery } from '../../lib/setup-query'

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
  sessions: () => wholeListQuery<Session>(['sessions'], 'auth/session/'),
  apiKeys: () => wholeListQuery<ApiKey>(['api-keys'], 'api_key/'),
}
