import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from '@playwright/test'
import { demoTest as test, expect } from '../fixtures.js'

/*
 * The three screens a visit starts on, on a laptop and on a phone, with the demo organization's data: nothing may
 * stick out sideways. With LEADLINE_SCREENSHOTS=<folder> it also saves a screenshot of each, and the README's
 * docs/lead-page.png (1366×900, as the demo rep): `LEADLINE_SCREENSHOTS=/tmp/shots pnpm --filter @leadline/e2e exec
 * playwright test web-layout`, then copy lead-page.png into docs/.
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

    await page.getByRole('button', { name: `Sign in as ${rep.first_name} ${rep.last_name}` }).click()
    await expect(page.getByRole('heading', { name: 'Leads' })).toBeVisible()
    await expect(page.getByRole('navigation', { name: 'Pages' })).toBeVisible()
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
