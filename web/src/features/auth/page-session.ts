import type { QueryClient } from '@tanstack/react-query'
import { takeDataBlock } from '../../lib/data-block'
import { authQueries, type AuthSession } from './auth-queries'

// The BFF writes who is signed in into the page it serves a signed-in browser (bff/src/app-page.ts): the first
// screen's session check is then answered from memory, and its code and data start loading at once.

/** The id of the BFF's data block (bff/src/app-page.ts). */
const SESSION_ELEMENT_ID = 'leadline-session'

function isSession(value: unknown): value is AuthSession {
  if (typeof value !== 'object' || value === null) return false
  const { user, organization, role, time_zone } = value as Record<string, unknown>
  return (
    typeof user === 'object' &&
    user !== null &&
    typeof (user as Record<string, unknown>).id === 'string' &&
    typeof organization === 'object' &&
    organization !== null &&
    typeof (organization as Record<string, unknown>).id === 'string' &&
    typeof role === 'string' &&
    typeof time_zone === 'string'
  )
}

/**
 * Caches the session the page came with, as if `GET /auth/session` had answered it, and removes the block from the
 * page. A page without one (signed out), or with one that does not read as a session, changes nothing: the app asks.
 */
export function adoptPageSession(queryClient: QueryClient, document: Document): void {
  const session = takeDataBlock(document, SESSION_ELEMENT_ID)
  if (isSession(session)) queryClient.setQueryData(authQueries.session().queryKey, session)
}
