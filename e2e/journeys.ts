import AxeBuilder from '@axe-core/playwright'
import type { Locator, Page } from '@playwright/test'
import { expect, type CrmClient, type DemoUser } from './fixtures.js'

// What the web journeys share: reading API answers, the demo users, signing in, axe, and the board's columns.

export function jsonRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null ? { ...value } : {}
}

export function jsonList(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.map(jsonRecord) : []
}

export function demoUser(users: DemoUser[], title: 'admin' | 'rep'): DemoUser {
  const user = users.find((u) => u.title === title)
  if (user === undefined) throw new Error(`the demo seed has no ${title}`)
  return user
}

/** Signs in with the sign-in page's one-click demo button for this user. */
export async function signInAs(page: Page, user: DemoUser): Promise<void> {
  await page.goto('/sign-in')
  await page
    .getByRole('region', { name: 'Try the demo organization' })
    .getByRole('button', { name: `Sign in as ${user.first_name} ${user.last_name}` })
    .click()
  await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible()
}

/** Zero serious or critical axe-core violations on what the page shows now. */
export async function expectAccessible(page: Page): Promise<void> {
  const results = await new AxeBuilder({ page }).analyze()
  const serious = results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)
  expect(serious).toEqual([])
}

/**
 * Keeps a page from hearing of other users' changes (the live updates), for journeys about a screen that has not
 * heard of one yet: a status deleted while it is still offered, say.
 */
export async function withoutLiveUpdates(page: Page): Promise<void> {
  await page.route('**/events', (route) => route.abort())
}

/**
 * Takes the first screen's API answers, and the screen the BFF drew from them (decision 0092), out of every page the
 * BFF serves (decision 0091), for journeys that change what the API answers a screen's first reads (`page.route`):
 * the app then asks for them, the route sees them, and nothing of the real answers is shown first.
 */
export async function withoutPageAnswers(page: Page): Promise<void> {
  await page.route(
    (url) => !url.pathname.startsWith('/api/') && !url.pathname.startsWith('/assets/'),
    async (route) => {
      if (route.request().resourceType() !== 'document') return route.fallback()
      const response = await route.fetch()
      const html = withoutDrawnScreen(await response.text()).replace(
        /<script type="application\/json" id="leadline-answers">[^]*?<\/script>/,
        '',
      )
      return route.fulfill({ response, body: html })
    },
  )
}

/** The page with its root emptied: the root's end is the last `</div>` before `</body>`. */
function withoutDrawnScreen(html: string): string {
  const open = '<div id="root">'
  const start = html.indexOf(open)
  const end = html.lastIndexOf('</div>', html.lastIndexOf('</body>'))
  return start === -1 || end < start ? html : html.slice(0, start + open.length) + html.slice(end)
}

/** A status's column on the board. */
export function boardColumn(page: Page, label: string): Locator {
  return page.getByRole('region', { name: label, exact: true })
}

/** The organization's lead statuses' labels, in their order. */
export async function leadStatusLabels(api: CrmClient): Promise<string[]> {
  return jsonList((await api.request('GET', 'status/lead/')).data).map((s) => String(s.label))
}

/** A row's text starts with its name (its drag handle has no text): one pattern per name, in order. */
export function rowsOf(names: string[]): RegExp[] {
  return names.map((name) => new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`))
}

/** Presses `Delete <name>` in `scope` and confirms in the dialog that asks first. */
export async function deleteConfirmed(page: Page, scope: Locator, name: string): Promise<void> {
  await scope.getByRole('button', { name: `Delete ${name}` }).click()
  await page
    .getByRole('dialog', { name: `Delete ${name}?` })
    .getByRole('button', { name: 'Delete' })
    .click()
}

/**
 * Focuses a drag handle and picks its item up with Space. dnd-kit's keyboard sensor starts listening for the arrow
 * keys on the page's next timer turn, and a key pressed as soon as the pick-up is announced can run before it (input
 * goes ahead of timers in Chromium, and CI lost an arrow key that way): this waits for a timer queued after the
 * sensor's, which the page runs after it (timers of equal delay run in the order they were set).
 */
export async function pickUpWithSpace(page: Page, handle: Locator): Promise<void> {
  await handle.focus()
  await page.keyboard.press('Space')
  await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 0)))
}
