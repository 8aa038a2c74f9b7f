// The BFF's server render (docs/decisions/0092-screens-drawn-by-the-server.md): the first screen of a signed-in page,
// drawn from the API answers the BFF read for it, so the browser shows it before the app's code has run. Built apart
// (vite.server.config.ts) into dist-server/ and loaded by the BFF; the browser's app then draws the screen again in
// its place (main.tsx).

import { AsyncLocalStorage } from 'node:async_hooks'
import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { createMemoryHistory, RouterProvider } from '@tanstack/react-router'
import { StrictMode } from 'react'
import { renderToString } from 'react-dom/server'
import { authQueries, type AuthSession } from './features/auth/auth-queries'
import { SCREEN_REDIRECTS } from './features/shell/screen-redirects'
import { setDisplayTimeZone } from './lib/format'
import { readOnServerWith } from './lib/page-answers'
import { createAppRouter } from './router-factory'

export interface ScreenToRender {
  /** The page's path and query, as the browser asked for it. */
  url: string
  session: AuthSession
  /** The API's answers the BFF read for the page, by address (the page's data block carries the same). */
  answers: Record<string, unknown>
}

/** The screen's HTML, or why it was not drawn (for the BFF's log). */
export type ScreenDrawn = { html: string } | { notDrawn: string }

/** A read the page's answers do not hold: the screen is then not drawn on the server. */
class NotAnswered extends Error {
  constructor(url: string) {
    super(`no answer for ${url}`)
  }
}

const pageAnswers = new AsyncLocalStorage<ReadonlyMap<string, unknown>>()

readOnServerWith((method, url) => {
  const answers = pageAnswers.getStore()
  if (method !== 'GET' || answers === undefined || !answers.has(url)) throw new NotAnswered(url)
  return answers.get(url)
})

/**
 * A Suspense boundary React could not finish (a lazy module not yet loaded, a component that threw): its content is
 * left to the browser.
 */
const UNFINISHED = '<!--$!-->'

/**
 * How long a render waits, in all, for the lazy modules it met to load (waiting 5 ms, then twice as long each time):
 * in the BFF's one bundle they load at once, and after a screen's first render they are loaded for good.
 */
const LAZY_WAIT_MS = 150

/**
 * Matches one `style` attribute as React writes it (a quote in a value is written `&quot;`, and text never holds
 * one), so the match cannot run past the attribute's end nor backtrack.
 */
const STYLE_ATTRIBUTE = / style="[^"]*"/g

/**
 * The screen at `url` as HTML, or why it cannot be drawn from the answers alone (a read they do not hold, a redirect,
 * an error, a part still loading). The markup carries no `style` attribute: the Content-Security-Policy
 * refuses them (`default-src 'self'`), and the browser's own render sets the few there are (a list's spacer heights).
 */
export async function renderScreen(screen: ScreenToRender): Promise<ScreenDrawn> {
  const queryClient = new QueryClient({ defaultOptions: { queries: { staleTime: Infinity, retry: false } } })
  queryClient.setQueryData(authQueries.session().queryKey, screen.session)
  // A path that only redirects (`/`, `/settings`) shows the screen it goes on to, as the browser will at once.
  const [path = '/', query] = screen.url.split('?', 2)
  const url = query === undefined ? (SCREEN_REDIRECTS[path] ?? screen.url) : screen.url
  // No scroll restoration: on a server it writes an inline script, which the policy refuses.
  const router = createAppRouter(queryClient, createMemoryHistory({ initialEntries: [url] }), false)
  await pageAnswers.run(new Map(Object.entries(screen.answers)), () => router.load())
  const { state } = router
  // No match at all: the load redirected (a redirect is no screen to draw) or failed before any route.
  if (state.matches.length === 0) return { notDrawn: 'the page redirects' }
  const failed = state.matches.find((match) => match.status !== 'success')
  if (failed !== undefined) return { notDrawn: `${failed.routeId}: ${failed.status} (${String(failed.error)})` }
  const app = (
    <StrictMode>
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </StrictMode>
  )
  for (let waited = 0, wait = 5; ; waited += wait, wait *= 2) {
    // The zone is the module's: set right before each render, which runs to its end without yielding.
    setDisplayTimeZone(screen.session.time_zone)
    const html = renderToString(app)
    if (!html.includes(UNFINISHED)) return { html: html.replace(STYLE_ATTRIBUTE, '') }
    // A part that threw is left to the browser the same way, and is waited for in vain.
    if (waited >= LAZY_WAIT_MS) return { notDrawn: 'a part was still loading, or failed' }
    await new Promise((resolve) => setTimeout(resolve, wait))
  }
}
