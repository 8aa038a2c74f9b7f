import { expect, signIn, test } from '../fixtures.js'

test('the app runs under the BFF’s Content Security Policy without a single violation', async ({
  page,
  stack,
  api,
}) => {
  const violations: string[] = []
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text())
  })
  // Chromium reports a blocked inline style on the console; the event also names what was blocked.
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      console.error(`Content Security Policy violation: ${event.violatedDirective} ${event.sample}`)
    })
  })
  await api.createLead({ name: 'Strict Policy Co', contacts: [{ name: 'Polly Policy' }] })

  const response = await page.goto('/sign-in')
  expect(response?.headers()['content-security-policy']).toContain("default-src 'self'")
  await signIn(page, stack.apiKey)

  await page.goto('/leads')
  await expect(page.getByRole('link', { name: 'Strict Policy Co' })).toBeVisible()
  await page.getByRole('button', { name: 'New lead' }).click()
  await expect(page.getByRole('dialog')).toBeVisible()
  await page.keyboard.press('Escape')
  await expect(page.getByRole('dialog')).toHaveCount(0)

  await page.getByRole('link', { name: 'Strict Policy Co' }).click()
  await expect(page.getByRole('heading', { name: 'Strict Policy Co' })).toBeVisible()
  await page.getByRole('button', { name: 'Edit contact Polly Policy' }).click()
  const dialog = page.getByRole('dialog', { name: 'Edit Polly Policy' })
  await expect(dialog.getByRole('button', { name: 'Save contact' })).toBeVisible()
  await dialog.getByRole('button', { name: 'Cancel' }).click()
  await expect(dialog).toHaveCount(0)
  await page.getByRole('button', { name: 'Delete contact Polly Policy' }).click()
  await expect(page.getByRole('dialog', { name: 'Delete Polly Policy?' })).toBeVisible()
  await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click()

  // The board, whose controls make React Aria add a style of its own: let in by the page's nonce (decision 0092).
  await page.goto('/opportunities')
  await expect(page.getByRole('heading', { level: 1, name: 'Opportunities' })).toBeVisible()
  await page.waitForLoadState('networkidle')

  expect(violations).toEqual([])
})
