import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from '@playwright/test'
import { CrmClient, demoTest as test, expect } from '../fixtures.js'
import { demoUser, signInAs } from '../journeys.js'

/*
 * The three screens a visit starts on, on a laptop and on a phone, with the demo organization's data: nothing may
 * stick out sideways. With LEADLINE_SCREENSHOTS=<folder> it also saves a screenshot of each, and the README's
 * docs/lead-page.png (1366×900, as the demo rep), docs/board.png and docs/report.png (as the admin), from an
 * organization as full as `npm start` seeds: `LEADLINE_E2E_DEMO_LEADS=250 LEADLINE_SCREENSHOTS=<folder> pnpm
 * --filter @leadline/e2e exec playwright test web-layout`, then copy them (and docs/inbox.png, below) into docs/.
 */
const screenshots = process.env.LEADLINE_SCREENSHOTS
const viewports = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'mobile', width: 390, height: 844 },
]

async function check(page: Page, name: string): Promise<void> {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
  expect(overflow, `${name} scrolls sideways by ${String(overflow)}px`).toBeLessThanOrEqual(0)
  if (screenshots !== undefined) {
    mkdirSync(screenshots, { recursive: true })
    await page.screenshot({ path: join(screenshots, `${name}.png`), fullPage: true })
  }
}

for (const viewport of viewports) {
  test(`sign-in, leads list and lead page fit a ${viewport.name} screen (${String(viewport.width)}×${String(viewport.height)})`, async ({
    page,
    demoStack,
  }) => {
    const rep = demoStack.users.find((u) => u.title === 'rep')
    if (rep === undefined) throw new Error('the demo seed has no rep')
    await page.setViewportSize({ width: viewport.width, height: viewport.height })

    await page.goto('/sign-in')
    await expect(page.getByRole('heading', { name: 'Sign in to your CRM' })).toBeVisible()
    await check(page, `sign-in-${viewport.name}`)
    // Each demo user's button and title stay inside the card (beside the button, a long name pushed the title out).
    const outside = await page.getByRole('region', { name: 'Try the demo organization' }).evaluate((region) =>
      Array.from(region.querySelectorAll('li > *'))
        .filter((part) => part.getBoundingClientRect().right > region.getBoundingClientRect().right + 0.5)
        .map((part) => part.textContent),
    )
    expect(outside).toEqual([])

    await page.getByRole('button', { name: `Sign in as ${rep.first_name} ${rep.last_name}` }).click()
    await expect(page.getByRole('heading', { name: 'Leads' })).toBeVisible()
    await expect(page.getByText(/^Showing [\d,]+ of [\d,]+ leads$/)).toBeVisible()
    await check(page, `leads-${viewport.name}`)
    const searchBox = page.getByRole('textbox', { name: 'Search leads' })
    await searchBox.fill('name:"bright')
    await searchBox.press('Enter')
    await expect(searchBox).toHaveAttribute('aria-invalid', 'true')
    await check(page, `leads-search-error-${viewport.name}`)
    await page.getByRole('link', { name: 'show every lead' }).click()

    await page.getByRole('table').getByRole('link').first().click()
    await expect(page.getByRole('region', { name: 'Activity' }).getByRole('article').first()).toBeVisible()
    await expect(page.getByRole('button', { name: 'Sign out' })).toBeInViewport()
    await check(page, `lead-${viewport.name}`)

    if (screenshots !== undefined && viewport.name === 'desktop') {
      await page.setViewportSize({ width: 1366, height: 900 })
      await page.screenshot({ path: join(screenshots, 'lead-page.png') })
    }
  })
}

test('each screen has its own title, and going to another moves focus to its heading', async ({ page, demoStack }) => {
  const admin = demoStack.users.find((u) => u.title === 'admin')
  if (admin === undefined) throw new Error('the demo seed has no admin')
  const focusedTag = () => page.evaluate(() => document.activeElement?.tagName)

  // The first page load leaves focus where the browser puts it.
  await page.goto('/sign-in')
  await page.getByRole('button', { name: `Sign in as ${admin.first_name} ${admin.last_name}` }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'Leads' })).toBeVisible()
  await page.reload()
  await expect(page.getByRole('heading', { level: 1, name: 'Leads' })).toBeVisible()
  await expect(page).toHaveTitle('Leads · Leadline')
  expect(await focusedTag()).toBe('BODY')

  const nav = page.getByRole('navigation', { name: 'Main' })
  const screens = [
    { link: 'Inbox', heading: 'Inbox', title: 'Inbox · Leadline' },
    { link: 'Opportunities', heading: 'Opportunities', title: 'Opportunities · Leadline' },
    { link: 'Reports', heading: 'Reports', title: 'Reports · Leadline' },
    { link: 'Settings', heading: 'Pipelines', title: 'Pipelines · Settings · Leadline' },
    { link: 'Leads', heading: 'Leads', title: 'Leads · Leadline' },
  ]
  for (const screen of screens) {
    await nav.getByRole('link', { name: screen.link }).click()
    const heading = page.getByRole('heading', { level: 1, name: screen.heading })
    await expect(heading).toBeFocused()
    expect(await focusedTag()).toBe('H1')
    await expect(page).toHaveTitle(screen.title)
  }

  // With the keyboard: Enter on a link lands on the new screen's heading, shown without a focus ring, and Tab goes on
  // into that screen rather than back to the header.
  await nav.getByRole('link', { name: 'Opportunities' }).focus()
  await page.keyboard.press('Enter')
  const board = page.getByRole('heading', { level: 1, name: 'Opportunities' })
  await expect(board).toBeFocused()
  expect(await board.evaluate((h) => getComputedStyle(h).outlineStyle)).toBe('none')
  await page.keyboard.press('Tab')
  expect(await page.evaluate(() => document.querySelector('main')?.contains(document.activeElement))).toBe(true)

  // A new search on the same screen is not a new screen: focus is not taken to the heading.
  await nav.getByRole('link', { name: 'Leads' }).click()
  const leads = page.getByRole('heading', { level: 1, name: 'Leads' })
  await expect(leads).toBeFocused()
  const searchBox = page.getByRole('textbox', { name: 'Search leads' })
  await searchBox.fill('name:a')
  await searchBox.press('Enter')
  await expect(page).toHaveURL(/query=/)
  await expect(page.getByRole('table').getByRole('link').first()).toBeVisible()
  await expect(leads).not.toBeFocused()

  // A lead's page is a screen too: its heading is the lead's name.
  const firstLead = page.getByRole('table').getByRole('link').first()
  const name = (await firstLead.textContent()) ?? ''
  await firstLead.click()
  await expect(page.getByRole('heading', { level: 1, name })).toBeFocused()
  await expect(page).toHaveTitle(`${name} · Leads · Leadline`)
})

/*
 * The manager's screens with the demo organization's data, on a laptop and on a phone, signed in as the admin (whose
 * header has the most links): nothing sticks out sideways; the board scrolls inside itself. With
 * LEADLINE_SCREENSHOTS it also saves the README's docs/board.png, docs/report.png and docs/settings.png (1366×900).
 */
for (const viewport of viewports) {
  test(`the board and the report fit a ${viewport.name} screen as the admin`, async ({ page, demoStack }) => {
    const admin = demoStack.users.find((u) => u.title === 'admin')
    if (admin === undefined) throw new Error('the demo seed has no admin')
    await page.setViewportSize({ width: viewport.width, height: viewport.height })
    await page.goto('/sign-in')
    await page.getByRole('button', { name: `Sign in as ${admin.first_name} ${admin.last_name}` }).click()
    const nav = page.getByRole('navigation', { name: 'Main' })
    await expect(nav.getByRole('link', { name: 'Settings' })).toBeVisible()
    await check(page, `leads-admin-${viewport.name}`)

    await nav.getByRole('link', { name: 'Opportunities' }).click()
    await expect(page.getByRole('heading', { level: 1, name: 'Opportunities' })).toBeVisible()
    await expect(page.getByRole('article').first()).toBeVisible()
    await check(page, `board-${viewport.name}`)

    await nav.getByRole('link', { name: 'Reports' }).click()
    await expect(page.getByRole('heading', { level: 1, name: 'Reports' })).toBeVisible()
    await expect(page.getByRole('table').getByRole('row').nth(2)).toBeVisible()
    await check(page, `report-${viewport.name}`)
    // The demo's four members all show in the Owners list, none cut in half as if it were the last.
    const owners = page.getByRole('listbox', { name: 'Owners' })
    expect(await owners.evaluate((list) => list.scrollHeight - list.clientHeight)).toBeLessThanOrEqual(0)
    // The chart keeps its labels legible: never drawn narrower than 640 px (on a phone it scrolls inside its card).
    const chart = await page.getByRole('group', { name: 'Chart' }).boundingBox()
    expect(chart?.width ?? 0).toBeGreaterThanOrEqual(640)

    // Settings: its own row of screen links must wrap, not stick out, on a phone.
    await nav.getByRole('link', { name: 'Settings' }).click()
    const settingsNav = page.getByRole('navigation', { name: 'Settings' })
    await settingsNav.getByRole('link', { name: 'Custom fields' }).click()
    await expect(page.getByRole('heading', { level: 1, name: 'Custom fields' })).toBeVisible()
    await check(page, `settings-${viewport.name}`)

    // The audit log's rows stay a few lines tall: on a phone its table scrolls rather than squeezing the ids in it
    // to a letter a line.
    await settingsNav.getByRole('link', { name: 'Audit log' }).click()
    const entry = page.getByRole('table', { name: 'Audit log' }).getByRole('row').nth(1)
    await expect(entry).toBeVisible()
    expect((await entry.boundingBox())?.height ?? 0).toBeLessThanOrEqual(120)
    await check(page, `audit-log-${viewport.name}`)

    if (screenshots !== undefined && viewport.name === 'desktop') {
      await page.setViewportSize({ width: 1366, height: 900 })
      await nav.getByRole('link', { name: 'Opportunities' }).click()
      await expect(page.getByRole('article').first()).toBeVisible()
      await page.screenshot({ path: join(screenshots, 'board.png') })
      await nav.getByRole('link', { name: 'Reports' }).click()
      await expect(page.getByRole('table').getByRole('row').nth(2)).toBeVisible()
      await page.screenshot({ path: join(screenshots, 'report.png') })
      await nav.getByRole('link', { name: 'Settings' }).click()
      await settingsNav.getByRole('link', { name: 'Custom fields' }).click()
      await expect(page.getByRole('heading', { level: 1, name: 'Custom fields' })).toBeVisible()
      await page.screenshot({ path: join(screenshots, 'settings.png') })
    }
  })
}

/*
 * The admin's header (the most links) on laptops: each link of the main navigation shows whole, none cut off at the
 * navigation's edge nor scrolled out of it, and the user's own links are on screen. On a phone the navigation is a
 * row of its own that scrolls sideways (the tests above). The widest settings table, the members with their role
 * pickers and Deactivate buttons, shows whole too rather than scrolling inside its card.
 */
test('the admin’s header and the members table show whole on laptop screens', async ({ page, demoStack }) => {
  const admin = demoUser(demoStack.users, 'admin')
  await signInAs(page, admin)
  const nav = page.getByRole('navigation', { name: 'Main' })
  await nav.getByRole('link', { name: 'Settings' }).click()
  await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Users' }).click()
  const members = page.getByRole('table', { name: 'Members' })
  await expect(members.getByRole('button', { name: 'Deactivate' }).first()).toBeAttached()
  for (const width of [1024, 1280, 1440]) {
    await page.setViewportSize({ width, height: 800 })
    const cut = await nav.evaluate((element) => {
      const box = element.getBoundingClientRect()
      return Array.from(element.querySelectorAll('a'))
        .filter((link) => {
          const own = link.getBoundingClientRect()
          return own.left < box.left - 0.5 || own.right > box.right + 0.5 || link.scrollWidth > link.clientWidth
        })
        .map((link) => link.textContent)
    })
    expect(cut, `links cut off at ${String(width)}px`).toEqual([])
    for (const name of ['Search and commands', 'Sign out'])
      await expect(page.getByRole('button', { name })).toBeInViewport({ ratio: 1 })
    await expect(page.getByRole('link', { name: 'Profile' })).toBeInViewport({ ratio: 1 })
    const hidden = await members.evaluate((table) => table.scrollWidth - (table.parentElement?.clientWidth ?? 0))
    expect(hidden, `the members table scrolls by ${String(hidden)}px at ${String(width)}px`).toBeLessThanOrEqual(0)
    await check(page, `users-admin-${String(width)}`)
  }
})

/*
 * A pipeline's statuses on a tablet, where a row's controls do not fit beside the name: they go under it, and no name
 * runs under its Rename button (with no room kept for it, a name shrank to nothing and its text ran under the buttons).
 */
test('a pipeline’s statuses keep their names clear of their buttons on a tablet', async ({ page, demoStack }) => {
  const admin = demoUser(demoStack.users, 'admin')
  await page.setViewportSize({ width: 768, height: 900 })
  await signInAs(page, admin)
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click()
  const statuses = page.getByRole('list', { name: 'Statuses of Sales' })
  await expect(statuses.getByRole('listitem').first()).toBeVisible()
  const labels = await statuses
    .getByRole('button', { name: /^Drag / })
    .evaluateAll((handles) => handles.map((h) => (h.getAttribute('aria-label') ?? '').replace(/^Drag /, '')))
  expect(labels.length).toBeGreaterThan(1)
  for (const label of labels) {
    const row = statuses
      .getByRole('listitem')
      .filter({ has: page.getByRole('button', { name: `Drag ${label}`, exact: true }) })
    // The name comes first in its row; the buttons after it carry it too, for screen readers only.
    const name = await row.getByText(label, { exact: true }).first().boundingBox()
    const rename = await row.getByRole('button', { name: `Rename ${label}`, exact: true }).boundingBox()
    if (name === null || rename === null) throw new Error(`${label} or its Rename button is not shown`)
    const apart =
      name.x + name.width <= rename.x ||
      rename.x + rename.width <= name.x ||
      name.y + name.height <= rename.y ||
      rename.y + rename.height <= name.y
    expect(apart, `${label} overlaps its Rename button`).toBe(true)
  }
  await check(page, 'pipelines-tablet')
})

/*
 * The email composer on a phone: a recipient's chip (name and address, easily wider than the field) is cut short, and
 * its remove button stays inside the To field where it can be seen and pressed.
 */
test('on a phone, a long recipient keeps its remove button inside the To field', async ({ page, demoStack }) => {
  const rep = demoUser(demoStack.users, 'rep')
  // A lead of its own (the other journeys add leads to the same organization, some with short addresses or none),
  // its contact's address one unbreakable word wider than the field.
  const api = new CrmClient(demoStack.apiUrl, rep.api_key)
  const lead = await api.request('POST', 'lead/', {
    name: 'Northwind Logistics Worldwide',
    contacts: [
      {
        name: 'Alexandra Montgomery',
        emails: [{ email: 'alexandra.montgomery@northwindlogisticsworldwide.example.com', type: 'office' }],
      },
    ],
  })
  await page.setViewportSize({ width: 390, height: 844 })
  await signInAs(page, rep)
  await page.goto(`/leads/${String(lead.id)}`)
  const timeline = page.getByRole('region', { name: 'Activity' })
  await timeline.getByRole('button', { name: 'Send email' }).click()
  const composer = timeline.getByRole('region', { name: 'Email', exact: true })
  const remove = composer.getByRole('button', { name: /^Remove .* from To$/ }).first()
  await expect(remove).toBeVisible()
  const field = await composer.getByRole('combobox', { name: 'To', exact: true }).evaluate((input) => {
    const box = input.parentElement?.getBoundingClientRect()
    return box === undefined ? undefined : { left: box.left, right: box.right }
  })
  const button = await remove.boundingBox()
  if (field === undefined || button === null) throw new Error('the To field or its remove button has no box')
  expect(button.x).toBeGreaterThanOrEqual(field.left)
  expect(button.x + button.width).toBeLessThanOrEqual(field.right)
  await check(page, 'composer-mobile')
  // The journeys after this one find the organization's newest leads as they left them.
  await api.request('DELETE', `lead/${String(lead.id)}/`)
})

/*
 * The import wizard's column mapping on a phone: its table scrolls inside its frame, and nothing in it (the selects'
 * screen-reader labels, placed absolutely) makes the whole page scroll sideways.
 */
test('on a phone, the import wizard’s column mapping does not widen the page', async ({ page, demoStack }) => {
  const rep = demoUser(demoStack.users, 'rep')
  await page.setViewportSize({ width: 390, height: 844 })
  await signInAs(page, rep)
  await page.getByRole('link', { name: 'Import' }).click()
  // Samples long enough that the mapping table is wider than a phone, as a real file's are.
  const rows = ['Acme Rockets International Holdings', 'Bright Analytics Consulting Group', 'Coastal Construction Corp']
  const csv = ['Company,Contact Email', ...rows.map((company, i) => `${company},person${String(i)}@example.com`)].join(
    '\n',
  )
  await page
    .locator('input[type=file]')
    .setInputFiles({ name: 'leads.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) })
  await expect(page.getByRole('heading', { level: 2, name: '2. Map columns' })).toBeVisible()
  await expect(page.getByRole('combobox', { name: 'Company', exact: true })).toBeAttached()
  await check(page, 'import-mobile')
})

/*
 * A rep's task inbox with the demo organization's tasks, on a laptop and on a phone: nothing sticks out sideways.
 * With LEADLINE_SCREENSHOTS it also saves the README's docs/inbox.png (1366×900), a task in focus.
 */
for (const viewport of viewports) {
  test(`the inbox fits a ${viewport.name} screen as a rep`, async ({ page, demoStack }) => {
    const rep = demoStack.users.find((u) => u.title === 'rep')
    if (rep === undefined) throw new Error('the demo seed has no rep')
    await page.setViewportSize({ width: viewport.width, height: viewport.height })
    await page.goto('/sign-in')
    await page.getByRole('button', { name: `Sign in as ${rep.first_name} ${rep.last_name}` }).click()
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: /^Inbox/ })
      .click()
    await expect(page.getByRole('heading', { level: 2, name: /^Today/ })).toBeVisible()
    await check(page, `inbox-${viewport.name}`)
    await page.getByRole('navigation', { name: 'Task lists' }).getByRole('link', { name: 'Future' }).click()
    await expect(page.getByRole('heading', { level: 2, name: /^Tomorrow/ })).toBeVisible()
    await check(page, `future-${viewport.name}`)

    if (screenshots !== undefined && viewport.name === 'desktop') {
      await page.setViewportSize({ width: 1366, height: 900 })
      await page.getByRole('navigation', { name: 'Task lists' }).getByRole('link', { name: 'Inbox' }).click()
      await expect(page.getByRole('heading', { level: 2, name: /^Today/ })).toBeVisible()
      await page.keyboard.press('j')
      await page.keyboard.press('j')
      await page.screenshot({ path: join(screenshots, 'inbox.png') })
    }
  })
}
