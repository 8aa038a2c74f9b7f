// @vitest-environment jsdom
import { QueryClient } from '@tanstack/react-query'
import { createMemoryHistory } from '@tanstack/react-router'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { firstScreenRequests } from '@leadline/shared/first-screen-requests'
import { localDateIn } from '@leadline/shared/task-dates'
import { authQueries } from './features/auth/auth-queries'
import { adminSession } from './lib/screen-fixture'
import { createAppRouter } from './router-factory'

// The BFF writes the answers of @leadline/shared/first-screen-requests into the page; the app uses one only when a
// screen asks for exactly its address. Here each screen's loaders run as the app runs them, and every address the
// shared list names must be among those they ask for: an answer for an address no screen reads would be sent for
// nothing, and the screen would wait for its own read as before.

/** The API addresses (with their queries) the route loaders of `href` ask for. */
async function addressesReadAt(href: string): Promise<string[]> {
  const asked: string[] = []
  vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url, 'http://x')
    if ((init?.method ?? 'GET') === 'GET') asked.push(url.pathname + url.search)
    // Enough of an answer for every loader: an empty list, a lead and an organization alike.
    const body = { data: [], has_more: false, total_results: 0, id: 'lead_abc', memberships: [], currency: 'USD' }
    return Promise.resolve(new Response(JSON.stringify(body), { headers: { 'Content-Type': 'application/json' } }))
  })
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } })
  queryClient.setQueryData(authQueries.session().queryKey, adminSession)
  const router = createAppRouter(queryClient, createMemoryHistory({ initialEntries: [href] }))
  await router.load()
  // Loaders start some reads without awaiting them; they are asked for in the same turn.
  await new Promise((resolve) => setTimeout(resolve, 0))
  return asked
}

afterEach(() => {
  vi.unstubAllGlobals()
})

const viewer = {
  userId: adminSession.user.id,
  organizationId: adminSession.organization.id,
  today: localDateIn(adminSession.time_zone, new Date()),
}

describe('the first screen’s requests', () => {
  it.each([
    '/',
    '/leads',
    '/leads?query=acme',
    '/leads/lead_abc',
    '/leads/lead_abc?activity=calls',
    '/inbox',
    '/inbox?tab=future',
    '/opportunities',
    '/opportunities?view=list',
    '/settings',
    '/settings/pipelines',
    '/reports',
    '/reports?by=owner&status=won',
  ])('are what the screen at %s reads', async (href) => {
    const url = new URL(href, 'http://x')
    const listed = firstScreenRequests(url.pathname, url.searchParams, viewer)
    const asked = await addressesReadAt(href)
    expect(asked.filter((address) => listed.includes(address)).toSorted()).toEqual(listed.toSorted())
  })

  it('names something for every screen of the header', () => {
    for (const path of ['/leads', '/leads/lead_abc', '/inbox', '/opportunities', '/reports', '/settings']) {
      expect(firstScreenRequests(path, new URLSearchParams(), viewer), path).not.toEqual([])
    }
  })
})
