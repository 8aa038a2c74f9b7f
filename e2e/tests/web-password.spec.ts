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

test('a rep changes their password, sees their sessions, and makes and revokes an API key on their profile', async ({
  page,
  browser,
  demoStack,
}) => {
  const rep = demoUser(demoStack.users, 'rep')
  const signInWithPassword = async (target: typeof page, password: string) => {
    await target.goto('/sign-in')
    await target.getByRole('textbox', { name: 'Email' }).fill(rep.email)
    await target.getByLabel('Password').fill(password)
    await target.getByRole('button', { name: 'Sign in', exact: true }).click()
  }
  const signedInElsewhere = async () => {
    const context = await browser.newContext({ baseURL: demoStack.baseURL })
    const other = await context.newPage()
    await signInWithPassword(other, rep.password)
    await expect(other.getByRole('button', { name: 'Sign out' })).toBeVisible()
    return { context, other }
  }
  // Another browser signed in as the same rep, and (from journeys before this one) maybe more.
  const first = await signedInElsewhere()
  await signInWithPassword(page, rep.password)
  await page.getByRole('banner').getByRole('link', { name: 'Profile' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'Profile' })).toBeVisible()
  const sessions = page.getByRole('region', { name: 'Active sessions' })
  await expect(sessions.getByText('This session')).toBeVisible()
  await sessions.getByRole('button', { name: 'Sign out other sessions' }).click()
  await expect(sessions.getByRole('listitem')).toHaveCount(1)
  await first.other.reload()
  await expect(first.other.getByRole('textbox', { name: 'Email' })).toBeVisible()
  await first.context.close()

  // A second browser: its session ends when the password changes.
  const { context: elsewhere, other: otherPage } = await signedInElsewhere()
  await page.reload()
  await expect(sessions.getByRole('listitem')).toHaveCount(2)
  await expectAccessible(page)

  const passwordSection = page.getByRole('region', { name: 'Change password' })
  await passwordSection.getByLabel('Current password').fill(rep.password)
  await passwordSection.getByLabel('New password').fill('password1234')
  await passwordSection.getByRole('button', { name: 'Change password' }).click()
  await expect(passwordSection.getByText(/too easy to guess/)).toBeVisible()
  const newPassword = 'amber kettle drift 51 willow'
  await passwordSection.getByLabel('New password').fill(newPassword)
  await passwordSection.getByRole('button', { name: 'Change password' }).click()
  await expect(page.getByText('Password changed')).toBeVisible()
  await expect(sessions.getByRole('listitem')).toHaveCount(1)
  await otherPage.reload()
  await expect(otherPage.getByRole('textbox', { name: 'Email' })).toBeVisible()
  await elsewhere.close()

  const keys = page.getByRole('region', { name: 'Your API keys' })
  await keys.getByLabel('What the key is for').fill('Reporting script')
  await keys.getByRole('button', { name: 'Create API key' }).click()
  const shown = keys.getByLabel('New API key')
  await expect(shown).toHaveText(/^[A-Za-z0-9_]+\.[A-Za-z0-9]+$/)
  const key = (await shown.textContent()) ?? ''
  const me = await fetch(`${demoStack.apiUrl}/api/v1/me/`, {
    headers: { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` },
  })
  expect(me.status).toBe(200)
  await expect(keys.getByText('Reporting script')).toBeVisible()
  await keys
    .getByRole('listitem')
    .filter({ hasText: 'Reporting script' })
    .getByRole('button', { name: 'Revoke' })
    .click()
  await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click()
  await expect(keys.getByText('Reporting script')).toHaveCount(0)
  await expect
    .poll(async () => {
      const res = await fetch(`${demoStack.apiUrl}/api/v1/me/`, {
        headers: { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` },
      })
      return res.status
    })
    .toBe(401)

  // And the new password is the one that signs in.
  await page.getByRole('button', { name: 'Sign out', exact: true }).click()
  await signInWithPassword(page, newPassword)
  await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible()
})
