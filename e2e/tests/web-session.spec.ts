import { expect, signIn, test } from '../fixtures.js'

test('a session that ends mid-work leads to sign-in and back to the same lead', async ({ page, stack, api }) => {
  const lead = await api.createLead({ name: 'Expiring Session Co' })
  await signIn(page, stack.apiKey)
  await page.goto(`/leads/${lead.id}`)
  await expect(page.getByRole('heading', { name: 'Expiring Session Co' })).toBeVisible()
  // The page's panels load their own data after the heading (the tasks, the teammates to assign them to): let them
  // finish, or one of them meets the ended session before the note does.
  await expect(page.getByRole('region', { name: 'Tasks' }).getByText('No open tasks.')).toBeVisible()
  await page.waitForLoadState('networkidle')

  // The session ends on the server (expired, or signed out in another tab) while the page stays open.
  const ended = await page.request.delete('/auth/session', { headers: { 'X-Requested-With': 'leadline' } })
  expect(ended.status()).toBe(204)

  await page.getByRole('textbox', { name: 'Note' }).fill('Written after the session ended')
  await page.getByRole('button', { name: 'Save note' }).click()
  await expect(page).toHaveURL(/\/sign-in\?redirect=/)
  await expect(page.getByRole('textbox', { name: 'Email' })).toBeVisible()
  await expect(page.getByRole('status').filter({ hasText: 'Your session ended' })).toBeVisible()
  await expect(page.getByRole('alert').filter({ hasText: 'You are not signed in' })).toHaveCount(0)

  // The API key form keeps where the session ended.
  await page.getByRole('link', { name: 'Sign in with an API key' }).click()
  await page.getByRole('textbox', { name: 'API key' }).fill(stack.apiKey)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await expect(page).toHaveURL(new RegExp(`/leads/${lead.id}$`))
  await expect(page.getByRole('heading', { name: 'Expiring Session Co' })).toBeVisible()
})

test('a sign-in link that points off the site signs in to the leads list instead', async ({ page, stack }) => {
  // Browsers read `/\evil.example` as `//evil.example`, another origin.
  await page.goto(`/sign-in?method=key&redirect=${encodeURIComponent('/\\evil.example')}`)
  await page.getByRole('textbox', { name: 'API key' }).fill(stack.apiKey)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await expect(page.getByRole('heading', { name: 'Leads' })).toBeVisible()
  await expect(page).toHaveURL(/\/leads$/)
})

test('a sign-in link to a page of the app returns there', async ({ page, stack, api }) => {
  const lead = await api.createLead({ name: 'Redirect Target Co' })
  await page.goto(`/sign-in?method=key&redirect=${encodeURIComponent(`/leads/${lead.id}`)}`)
  await page.getByRole('textbox', { name: 'API key' }).fill(stack.apiKey)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await expect(page.getByRole('heading', { name: 'Redirect Target Co' })).toBeVisible()
})
