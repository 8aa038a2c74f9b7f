// @vitest-environment jsdom
import { QueryClient } from '@tanstack/react-query'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { adminSession, fakeServer } from '../../lib/screen-fixture'
import { authQueries, type AuthSession } from './auth-queries'
import { adoptPageSession } from './page-session'

function pageWith(text: string | undefined): void {
  document.head.innerHTML =
    text === undefined ? '' : `<script type="application/json" id="leadline-session">${text}</script>`
}

afterEach(() => {
  vi.unstubAllGlobals()
  document.head.innerHTML = ''
})

describe('adoptPageSession', () => {
  it('answers the session check from the page, with no request, and takes the block out of the page', async () => {
    const server = fakeServer({})
    const queryClient = new QueryClient()
    pageWith(JSON.stringify(adminSession))
    adoptPageSession(queryClient, document)
    expect(document.getElementById('leadline-session')).toBeNull()
    expect(await queryClient.query(authQueries.session())).toEqual(adminSession)
    expect(server.sent).toEqual([])
  })

  it('a page without a block, or with one that is not a session, leaves the app to ask', async () => {
    for (const text of [undefined, '{"user":', '{"user":{"id":"user_ann"}}', 'null', '"admin"']) {
      const server = fakeServer({ 'GET /auth/session': { body: adminSession } })
      const queryClient = new QueryClient()
      pageWith(text)
      adoptPageSession(queryClient, document)
      expect(queryClient.getQueryData(authQueries.session().queryKey), String(text)).toBeUndefined()
      expect(document.getElementById('leadline-session')).toBeNull()
      expect(await queryClient.query(authQueries.session())).toEqual(adminSession)
      expect(server.sent.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /auth/session'])
    }
  })
})

describe('syncTimeZone', () => {
  // The zone last sent is the module's own: each test starts from a fresh copy.
  beforeEach(() => {
    vi.resetModules()
  })

  async function sync(stored: AuthSession, answered: AuthSession) {
    const { authQueries: queries, syncTimeZone } = await import('./auth-queries')
    const server = fakeServer({ 'PUT /auth/session': { body: answered } })
    const queryClient = new QueryClient()
    queryClient.setQueryData(queries.session().queryKey, stored)
    queryClient.setQueryData(['leads', 'list'], { data: [] })
    syncTimeZone(queryClient)
    await vi.waitFor(() => {
      expect(queryClient.getQueryData(queries.session().queryKey)).toEqual(answered)
    })
    return { server, queryClient, sessionKey: queries.session().queryKey }
  }

  it('keeps who the person is now from the answer, and reads again what was read in another zone', async () => {
    const answered = { ...adminSession, time_zone: 'Asia/Tokyo', role: 'user' as const }
    const { server, queryClient, sessionKey } = await sync(adminSession, answered)
    expect(server.sent.map((r) => `${r.method} ${r.path}`)).toEqual(['PUT /auth/session'])
    expect(queryClient.getQueryState(['leads', 'list'])?.isInvalidated).toBe(true)
    expect(queryClient.getQueryState(sessionKey)?.isInvalidated).toBe(false)
  })

  it('in the same zone, what is on screen stays as it is', async () => {
    const answered = { ...adminSession, user: { ...adminSession.user, first_name: 'Annie' } }
    const { queryClient } = await sync(adminSession, answered)
    expect(queryClient.getQueryState(['leads', 'list'])?.isInvalidated).toBe(false)
  })
})
