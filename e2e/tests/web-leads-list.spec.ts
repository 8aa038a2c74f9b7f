import { expect, signIn, test } from '../fixtures.js'

test('a search the API cannot parse is marked on the search box and can be fixed there', async ({
  page,
  stack,
  api,
}) => {
  await api.createLead({ name: 'Acme Quoting Works' })
  await signIn(page, stack.apiKey)
  await page.goto('/leads')
  const searchBox = page.getByRole('textbox', { name: 'Search leads' })
  await searchBox.fill('name:"acme')
  await searchBox.press('Enter')

  await expect(searchBox).toHaveAttribute('aria-invalid', 'true')
  await expect(searchBox).toHaveAccessibleDescription(/Unterminated quoted string at column \d+/)
  await expect(searchBox).toHaveValue('name:"acme')
  await expect(page.getByText('Something went wrong')).toHaveCount(0)

  await searchBox.fill('name:"acme quoting"')
  await searchBox.press('Enter')
  await expect(page.getByRole('link', { name: 'Acme Quoting Works' })).toBeVisible()
  await expect(searchBox).not.toHaveAttribute('aria-invalid', 'true')
})

test('the list loads as one scrolls, keeping only the rows near the screen in the page', async ({
  page,
  stack,
  api,
}) => {
  // 120 leads: more than two pages (50 each). The search keeps other journeys' leads out of the count.
  for (let i = 1; i <= 120; i++) await api.createLead({ name: `Pagewalker ${String(i).padStart(3, '0')}` })
  await signIn(page, stack.apiKey)
  await page.goto('/leads?query=pagewalker%20sort:name&page=9')
  // An old link's page is dropped: the list starts at the top.
  await expect(page).not.toHaveURL(/page=/)
  const table = page.getByRole('table', { name: 'Leads' })
  await expect(page.getByText('Showing 50 of 120 leads')).toBeVisible()
  await expect(table).toHaveAttribute('aria-rowcount', '121')
  await expect(table.getByRole('link', { name: 'Pagewalker 001' })).toBeVisible()

  // Scrolling down asks for the next pages as their rows come near.
  for (let i = 0; i < 20; i++) {
    await page.mouse.wheel(0, 3000)
    if (await page.getByText('Showing 120 of 120 leads').isVisible()) break
  }
  await expect(page.getByText('Showing 120 of 120 leads')).toBeVisible()
  await page.evaluate(() => {
    window.scrollTo(0, document.body.scrollHeight)
  })
  await expect(table.getByRole('link', { name: 'Pagewalker 120' })).toBeVisible()
  // Only the rows near the screen are in the page: the first ones are gone from it.
  await expect(table.getByRole('link', { name: 'Pagewalker 001' })).toHaveCount(0)
  expect(await table.getByRole('link').count()).toBeLessThan(60)
  await expect(page.getByRole('button', { name: 'Load more leads' })).toHaveCount(0)
})

test('j and k move through the leads, Enter opens one, and the count of results shows', async ({
  page,
  stack,
  api,
}) => {
  for (const n of ['A', 'B', 'C']) await api.createLead({ name: `Keywalker ${n}` })
  await signIn(page, stack.apiKey)
  await page.goto(`/leads?query=${encodeURIComponent('name:keywalker sort:name')}`)
  await expect(page.getByText('3 leads', { exact: true })).toBeVisible()
  const table = page.getByRole('table', { name: 'Leads' })
  await expect(table.getByRole('link')).toHaveCount(3)
  await page.locator('body').click({ position: { x: 1, y: 1 } })
  await page.keyboard.press('j')
  await expect(table.getByRole('link', { name: 'Keywalker A' })).toBeFocused()
  await page.keyboard.press('j')
  await page.keyboard.press('j')
  await expect(table.getByRole('link', { name: 'Keywalker C' })).toBeFocused()
  await page.keyboard.press('k')
  await expect(table.getByRole('link', { name: 'Keywalker B' })).toBeFocused()
  // Typing in the search box is typing, not moving.
  const searchBox = page.getByRole('textbox', { name: 'Search leads' })
  await searchBox.press('j')
  await expect(searchBox).toBeFocused()
  await expect(searchBox).toHaveValue(/j/)
  await table.getByRole('link', { name: 'Keywalker B' }).focus()
  await page.keyboard.press('Enter')
  await expect(page.getByRole('heading', { level: 1, name: 'Keywalker B' })).toBeVisible()
})
