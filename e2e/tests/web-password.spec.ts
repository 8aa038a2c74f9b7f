import { demoTest as test, expect } from '../fixtures.js'
import { demoUser, expectAccessible } from '../journeys.js'

test('a rep signs in with email and password, after a wrong one is refused, and signs out', async ({
  page,
  demoStack,
}) => {
  const rep = demoUser(demoStack.users, 'rep')
  await page.goto('/sign-in')
  await expect(page.getByRole('heading', { name: 'Sign in to your CRM' })).toBeVisible()
  await expectAccessible(page)

  await page.getByRole('textbox', { name: 'Email' }).fill(rep.email)
  await page.getByLabel('Password').fill(`${rep.password}-wrong`)
  await page.getByRole('button', { name: 'Sign in', exact: true }).click()
  await expect(page.getByText('That email and password do not match an account.')).toBeVisible()
  await expect(page.getByLabel('Password')).toHaveAttribute('aria-invalid', 'true')
  await expectAccessible(page)

  await page.getByLabel('Password').fill(rep.password)
  await page.getByRole('button', { name: 'Sign in', exact: true }).click()
  await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible()
  await expect(page.getByText(rep.email)).toBeVisible()
  // The browser holds no key: not the rep's own, and not the one the server keeps for this session.
  const secret = rep.api_key.split('.')[1] ?? rep.api_key
  expect(await page.content()).not.toContain(secret)

  await page.getByRole('button', { name: 'Sign out' }).click()
  await expect(page.getByRole('textbox', { name: 'Email' })).toBeVisible()
  await page.goto('/leads')
  await expect(page).toHaveURL(/\/sign-in/)
})
