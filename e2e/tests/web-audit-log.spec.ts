import { readFile } from 'node:fs/promises'
import { demoTest as test, expect } from '../fixtures.js'
import { demoUser, expectAccessible, signInAs } from '../journeys.js'

test('an admin finds a failed sign-in and their own sign-in in Settings → Audit log, filters it, and exports it', async ({
  page,
  demoStack,
}) => {
  const admin = demoUser(demoStack.users, 'admin')
  const adminName = `${admin.first_name} ${admin.last_name}`

  // A wrong password first, then the one-click sign-in.
  await page.goto('/sign-in')
  await page.getByRole('textbox', { name: 'Email' }).fill(admin.email)
  await page.getByLabel('Password').fill(`${admin.password}-wrong`)
  await page.getByRole('button', { name: 'Sign in', exact: true }).click()
  await expect(page.getByText('That email and password do not match an account.')).toBeVisible()
  await signInAs(page, admin)

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click()
  await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Audit log' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'Audit log' })).toBeVisible()
  await expect(page).toHaveTitle('Audit log · Settings · Leadline')
  const table = page.getByRole('table', { name: 'Audit log' })
  const rows = table.getByRole('row').filter({ has: page.getByRole('cell') })

  // Newest first: their own sign-in, by name, from the browser's address.
  const newest = rows.first()
  await expect(newest).toContainText('Sign in')
  await expect(newest).toContainText(adminName)
  await expect(newest).toContainText('127.0.0.1')
  await expectAccessible(page)

  // Only failed sign-ins: the wrong password is there, under the email tried.
  const filters = page.getByRole('search', { name: 'Filter the audit log' })
  await filters.getByRole('combobox', { name: 'Action' }).selectOption({ label: 'Sign in failed' })
  await expect(rows.filter({ hasText: admin.email }).first()).toBeVisible()
  await expect(rows.filter({ hasNotText: 'Sign in failed' })).toHaveCount(0)
  const shown = await rows.count()
  expect(shown).toBeGreaterThan(0)

  // The CSV holds what the filter keeps.
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('link', { name: 'Export CSV' }).click(),
  ])
  expect(download.suggestedFilename()).toBe('audit-log.csv')
  const text = await readFile(await download.path(), 'utf8')
  const [header, ...lines] = text.split(/\r?\n/).filter((line) => line !== '')
  expect(header).toBe(
    'date_created,action,user_id,actor_name,actor_email,object_type,object_id,client_address,details,request_id',
  )
  expect(lines).toHaveLength(shown)
  for (const line of lines) expect(line.split(',')[1]).toBe('sign_in_failed')
  expect(lines.some((line) => line.includes(admin.email) && line.includes('127.0.0.1'))).toBe(true)

  // Their own entries: a person, and the sign-ins again.
  await filters.getByRole('combobox', { name: 'Action' }).selectOption({ label: 'Sign in' })
  await filters.getByRole('combobox', { name: 'Person' }).selectOption({ label: adminName })
  await expect(rows.first()).toContainText(adminName)
  await expect(rows.filter({ hasNotText: adminName })).toHaveCount(0)
})
