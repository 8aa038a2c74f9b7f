import { expect, signIn, test } from '../fixtures.js'

test('a rep signs in with an API key and signs out', async ({ page, stack }) => {
  await signIn(page, stack.apiKey)
  await expect(page.getByRole('banner').getByText('Journey Co', { exact: true })).toBeVisible()
  await page.getByRole('button', { name: 'Sign out' }).click()
  await expect(page.getByRole('textbox', { name: 'Email' })).toBeVisible()
  await page.goto('/leads')
  await expect(page.getByRole('textbox', { name: 'Email' })).toBeVisible()
  await expect(page.getByLabel('Password')).toBeVisible()
})

test('a wrong key shows an error and does not sign in', async ({ page }) => {
  await page.goto('/sign-in')
  await page.getByRole('link', { name: 'Sign in with an API key' }).click()
  await page.getByLabel('API key').fill('key_wrong.nope')
  await page.getByRole('button', { name: 'Sign in' }).click()
  await expect(page.getByText(/not accepted/i)).toBeVisible()
  await expect(page.getByRole('textbox', { name: 'API key' })).toHaveAttribute('aria-invalid', 'true')
  await expect(page.getByRole('button', { name: 'Sign out' })).toHaveCount(0)
})

test('the API key appears nowhere in the page, its storage or its cookies', async ({ page, context, stack, api }) => {
  const lead = await api.createLead({ name: 'Secret Keeper Inc' })
  await signIn(page, stack.apiKey)
  await page.goto(`/leads/${lead.id}`)
  await expect(page.getByRole('heading', { name: 'Secret Keeper Inc' })).toBeVisible()
  const secret = stack.apiKey.split('.')[1] ?? stack.apiKey
  const html = await page.content()
  expect(html).not.toContain(secret)
  const storage = await page.evaluate(() => {
    const dump = (store: Storage) => Object.keys(store).map((k) => `${k}=${store.getItem(k) ?? ''}`)
    return JSON.stringify({ local: dump(localStorage), session: dump(sessionStorage), cookie: document.cookie })
  })
  expect(storage).not.toContain(secret)
  const cookies = await context.cookies()
  expect(JSON.stringify(cookies)).not.toContain(secret)
  expect(cookies.find((c) => c.name.startsWith('__Host-'))).toMatchObject({
    httpOnly: true,
    secure: true,
    sameSite: 'Strict',
  })
})
