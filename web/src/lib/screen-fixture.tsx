import { cleanup, configure, render } from '@testing-library/react'
import axe from 'axe-core'
import { QueryClientProvider } from '@tanstack/react-query'
import {
  createMemoryHistory,
  createRootRoute,
  createRoute,
  createRouter,
  Outlet,
  RouterProvider,
} from '@tanstack/react-router'
import { Suspense, type ReactNode } from 'react'
import { afterEach, beforeAll, vi } from 'vitest'
import { ToastRegionView } from '../components/ui/toast'
import type { AuthSession } from '../features/auth/auth-queries'
import { queryClient } from '../query-client'

// A screen's first render (lazy modules, the router's first match) takes well over Testing Library's 1 s default on a
// loaded machine: `findBy…` waits up to 5 s.
configure({ asyncUtilTimeout: 5000 })

// For tests of whole screens in jsdom: the BFF and API answer from a table, and the screen runs in a router of its
// own with the app's query client (so mutations invalidate what they name, as in the app).

/** A request the screen made, its JSON body parsed. */
export interface SentRequest {
  method: string
  path: string
  body: unknown
}

/** What the server answers: a status and a JSON body, or a function of the request's body that gives one. */
export type Answer = { status?: number; body: unknown } | ((body: unknown) => { status?: number; body: unknown })

/**
 * Replaces `fetch` with a server that answers `"METHOD /path"` from `answers` (answers can be changed as the test goes
 * on) and records every request; anything else is a 404 the test will see.
 */
export function fakeServer(answers: Record<string, Answer>) {
  const sent: SentRequest[] = []
  vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) => {
    const method = init?.method ?? 'GET'
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url
    const path = new URL(url, 'http://localhost').pathname
    const body: unknown = typeof init?.body === 'string' ? JSON.parse(init.body) : undefined
    sent.push({ method, path, body })
    const answer = answers[`${method} ${path}`]
    const reply = answer === undefined ? { status: 404, body: { error: `No answer for ${method} ${path}` } } : answer
    const { status = 200, body: replyBody } = typeof reply === 'function' ? reply(body) : reply
    return Promise.resolve(
      new Response(JSON.stringify(replyBody), { status, headers: { 'Content-Type': 'application/json' } }),
    )
  })
  return {
    answers,
    sent,
    /** The bodies of the requests made as `"METHOD /path"`. */
    bodiesOf: (key: string) => sent.filter((r) => `${r.method} ${r.path}` === key).map((r) => r.body),
  }
}

export const adminSession: AuthSession = {
  user: { id: 'user_ann', first_name: 'Ann', last_name: 'Admin', email: 'ann@example.com', display_name: 'Ann Admin' },
  organization: { id: 'orga_1', name: 'Acme Sales' },
  role: 'admin',
  time_zone: 'UTC',
}

/** The text of what describes a field (`aria-describedby`): its error, its hint. */
export function descriptionOf(element: HTMLElement): string {
  const ids = (element.getAttribute('aria-describedby') ?? '').split(' ').filter((id) => id !== '')
  return ids.map((id) => document.getElementById(id)?.textContent ?? '').join(' ')
}

/**
 * What axe finds wrong with the page as it is now, as `rule: selector` lines (none is the goal). Colour contrast needs
 * a layout engine, which jsdom has not: the e2e journeys check it.
 */
export async function axeViolations(): Promise<string[]> {
  const results = await axe.run(document.body, { rules: { 'color-contrast': { enabled: false } } })
  return results.violations.flatMap((v) => v.nodes.map((node) => `${v.id}: ${node.target.join(' ')}`))
}

/**
 * Renders `Screen` at `/screen` (any other path renders nothing; `router.state.location` says where a screen went),
 * with toasts as in the app. A signed-in screen sits in `<main>` as in the app's shell; a public page (`ownMain`) has
 * its own.
 */
export function renderScreen(Screen: () => ReactNode, { ownMain = false }: { ownMain?: boolean } = {}) {
  const screenOutlet = (
    <Suspense fallback={<p>Loading…</p>}>
      <Outlet />
    </Suspense>
  )
  const root = createRootRoute({
    component: () => (
      <>
        {ownMain ? screenOutlet : <main>{screenOutlet}</main>}
        <ToastRegionView />
      </>
    ),
  })
  const screen = createRoute({ getParentRoute: () => root, path: '/screen', component: Screen })
  const elsewhere = createRoute({ getParentRoute: () => root, path: '$', component: () => null })
  const router = createRouter({
    routeTree: root.addChildren([screen, elsewhere]),
    history: createMemoryHistory({ initialEntries: ['/screen'] }),
  })
  render(
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  )
  return { router }
}

// jsdom has no CSS.escape, which React Aria's dialogs use (set for good: the stubs below are undone after each test).
if (typeof globalThis.CSS === 'undefined')
  Object.assign(globalThis, { CSS: { escape: (value: string) => value.replace(/[^\w-]/g, (c) => `\\${c}`) } })

// A screen test clicks and types through React renders on a machine shared with other work: 5 s is too tight.
vi.setConfig({ testTimeout: 30_000 })

// Dialogs load React Aria's modal on first opening: loaded once up front, a test's first dialog shows as fast as the rest.
beforeAll(async () => {
  await import('../components/ui/modal-dialog')
})

afterEach(() => {
  cleanup()
  queryClient.clear()
  vi.unstubAllGlobals()
})
