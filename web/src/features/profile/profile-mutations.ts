import { api, authApi } from '../../lib/api'
import { browserTimeZone } from '../../lib/format'
import { authQueries, type AuthSession } from '../auth/auth-queries'
import { useFormMutation } from '../../lib/form-mutation'
import { profileQueries, type ApiKey } from './profile-queries'

// Apart from the query options, which the route loader (in the first bundle) imports: these load with the screen.

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

/** Saves the person's name, then has the BFF read who they are again, so the header and the session show it. */
export function useSaveName() {
  return useFormMutation(authQueries.all(), async (body: { first_name: string; last_name: string }) => {
    await api.put('auth/profile/', body)
    return authApi.put<AuthSession>('session', { time_zone: browserTimeZone() })
  })
}

/** Saves the zone chosen (null: the browser's), then has the BFF read the session again, which takes it. */
export function useSaveTimeZone() {
  return useFormMutation(authQueries.all(), async (timeZone: string | null) => {
    await api.put('auth/profile/', { time_zone: timeZone })
    return authApi.put<AuthSession>('session', { time_zone: browserTimeZone() })
  })
}
