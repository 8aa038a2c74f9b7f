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

test('paging reaches the last lead, and a page past the end offers the way back', async ({ page, stack, api }) => {
  // 51 leads: one more than a page (50). The search keeps other journeys' leads out of the count.
  for (let i = 1; i <= 51; i++) await api.createLead({ name: `Pagewalker ${String(i).padStart(2, '0')}` })
  await signIn(page, stack.apiKey)
  await page.goto('/leads?query=pagewalker')
  const pages = page.getByRole('navigation', { name: 'Pages' })
  await expect(pages.getByText('1–50 of 51 leads')).toBeVisible()
  await pages.getByRole('button', { name: 'Next' }).click()
  await expect(pages.getByText('51–51 of 51 leads')).toBeVisible()
  await expect(page.getByRole('table', { name: 'Leads' }).getByRole('link')).toHaveCount(1)
  await expect(pages.getByRole('button', { name: 'Next' })).toBeDisabled()

  await page.goto('/leads?query=pagewalker&page=9')
  await expect(page.getByText('No leads on this page')).toBeVisible()
  await expect(pages.getByText('51 leads in all')).toBeVisible()
  await page.getByRole('link', { name: 'Go to page 1' }).click()
  await expect(pages.getByText('1–50 of 51 leads')).toBeVisible()
  await expect(page).toHaveURL(/query=pagewalker/)
  await expect(page).not.toHaveURL(/page=/)
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
