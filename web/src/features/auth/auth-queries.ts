import { MutationObserver, queryOptions, useMutation, useQueryClient, type QueryClient } from '@tanstack/react-query'
import { useEffect } from 'react'
import type { Role } from '@leadline/shared/user-schema'
import { authApi, isApiError } from '../../lib/api'
import { afterNextPaint } from '../../lib/after-paint'
import { browserTimeZone } from '../../lib/format'

/** What `GET /auth/session` answers: who is signed in, never their key. */
export interface AuthSession {
  user: { id: string; first_name: string | null; last_name: string | null; email: string; display_name: string }
  organization: { id: string; name: string }
  role: Role
  /** The zone times show in and the API's "today" is computed in: the Profile's choice, else the browser's. */
  time_zone: string
  /** On a sign-in's answer only: the organization requires two-factor, which this person must turn on first. */
  two_factor_setup_required?: boolean
}

export interface DemoUser {
  email: string
  title: string
  role: Role
  display_name: string
}

export const authQueries = {
  all: () => ['session'] as const,
  session: () =>
    queryOptions({
      queryKey: [...authQueries.all(), 'current'],
      queryFn: () => authApi.get<AuthSession>('session'),
      staleTime: 5 * 60_000,
      retry: false,
    }),
  /** Demo sign-in is off unless the server was started with the demo organization: then the list is empty. */
  demoUsers: () =>
    queryOptions({
      queryKey: [...authQueries.all(), 'demo-users'],
      queryFn: async () => {
        try {
          return await authApi.get<DemoUser[]>('demo-users')
        } catch (error) {
          if (isApiError(error, 404)) return []
          throw error
        }
      },
      staleTime: Infinity,
      retry: false,
    }),
}

/** Signing in with a password, a key or as a demo user: the session answer is cached, so the shell needs no second request. */
function useSessionStart<T>(post: (value: T) => Promise<AuthSession>) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationKey: authQueries.all(),
    mutationFn: post,
    onSuccess: (session) => {
      queryClient.setQueryData(authQueries.session().queryKey, session)
      lastSentTimeZone = browserTimeZone()
    },
    meta: { errorTitle: false },
  })
}

/** How a person proves who they are: their email and password, or (the advanced way) an API key. */
export type Credentials = { email: string; password: string; code?: string } | { api_key: string }

export function useSignIn() {
  return useSessionStart((credentials: Credentials) =>
    authApi.post<AuthSession>('session', { ...credentials, time_zone: browserTimeZone() }),
  )
}

export function useDemoSignIn() {
  return useSessionStart((email: string) =>
    authApi.post<AuthSession>('demo-session', { email, time_zone: browserTimeZone() }),
  )
}

export function useSignOut() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationKey: authQueries.all(),
    mutationFn: () => authApi.delete('session'),
    // Nothing of the previous user may stay in memory.
    onSuccess: () => {
      queryClient.clear()
    },
    meta: { errorTitle: 'Could not sign out' },
  })
}

let lastSentTimeZone: string | undefined

/**
 * The BFF turns the user's zone into `X-TZ-Offset` on every API request; tell it when the browser's zone differs
 * from the one last sent (a new page load, or the laptop crossed a border). Its answer is who the person is now (a
 * name or role changed since they signed in) and the zone the API now computes "today" in: when that zone is not the
 * one the screen was read in, every answer that depends on it ("today" in a search) is read again. A failure only
 * costs a stale offset until the next check (a 401 ends the session, as for any mutation). It runs outside React's
 * rendering, hence a MutationObserver.
 */
export function syncTimeZone(queryClient: QueryClient): void {
  if (document.visibilityState === 'hidden') return
  const zone = browserTimeZone()
  if (zone === lastSentTimeZone) return
  lastSentTimeZone = zone
  const sessionKey = authQueries.session().queryKey
  new MutationObserver(queryClient, {
    // Nothing is cached under this key: the answer replaces the session's.
    mutationKey: [...authQueries.all(), 'time-zone'],
    mutationFn: (timeZone: string) => authApi.put<AuthSession>('session', { time_zone: timeZone }),
    meta: { errorTitle: false },
  })
    .mutate(zone)
    .then(
      (session) => {
        const before = queryClient.getQueryData(sessionKey)
        queryClient.setQueryData(sessionKey, session)
        if (before !== undefined && before.time_zone !== session.time_zone)
          return queryClient.invalidateQueries({ predicate: (query) => query.queryKey[0] !== sessionKey[0] })
        return undefined
      },
      () => {
        lastSentTimeZone = undefined
      },
    )
}

/**
 * While signed in: checks the zone once the shell's first frame is painted (not before: the first screen's code, data
 * and paint come first) and again whenever the tab comes back to the foreground.
 */
export function useTimeZoneSync(): void {
  const queryClient = useQueryClient()
  useEffect(() => {
    const check = () => {
      syncTimeZone(queryClient)
    }
    const cancel = afterNextPaint(check)
    document.addEventListener('visibilitychange', check)
    window.addEventListener('focus', check)
    return () => {
      cancel()
      document.removeEventListener('visibilitychange', check)
      window.removeEventListener('focus', check)
    }
  }, [queryClient])
}
