import { readFile } from 'node:fs/promises'
import { expect, signIn, test } from '../fixtures.js'

// Leads → Import with a CSV that has a bit of everything: two rows of one company (one lead, two contacts), a row of
// a lead that is already here (matched on its contact's email and skipped), a bad email and an unknown status (both
// failed). The wizard maps, checks, runs; the failed rows are downloaded and read; Undo import takes it back.

const CSV = [
  'Company,Contact Name,Email,Phone,Status,City',
  'Importwalker Robotics,Ann Walker,ann@importwalker.example,+14155550101,Qualified,Denver',
  'importwalker robotics ,Bob Walker,bob@importwalker.example,,Qualified,Denver',
  'Already Here Inc,Dee Dup,dee@already.example,,Potential,Boston',
  'Importwalker Bad Email,Carl Bad,not-an-email,,Potential,Austin',
  'Importwalker Odd Status,Eve Odd,eve@odd.example,,No Such Status,Austin',
  '',
].join('\r\n')

test('a CSV goes through the import wizard: mapping, duplicates, bad rows, failed rows, and undo', async ({
  page,
  stack,
  api,
}) => {
  await api.createLead({
    name: 'Already Here Inc',
    contacts: [{ name: 'Dee', emails: [{ email: 'DEE@already.example' }] }],
  })
  await signIn(page, stack.apiKey)
  await page.goto('/leads')
  await page.getByRole('link', { name: 'Import' }).click()
  await expect(page.getByRole('heading', { name: 'Import leads' })).toBeVisible()

  await page.getByLabel('Choose a CSV file').setInputFiles({
    name: 'walkers.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from(CSV, 'utf8'),
  })
  // Auto-mapped from the headers.
  await expect(page.getByRole('combobox', { name: 'Company' })).toHaveValue('lead.name')
  await expect(page.getByRole('combobox', { name: 'Email' })).toHaveValue('contact.email')
  await expect(page.getByRole('combobox', { name: 'Contact Name' })).toHaveValue('contact.name')
  await expect(page.getByRole('combobox', { name: 'City' })).toHaveValue('address.city')
  await page.getByRole('combobox', { name: 'Match rows to existing leads on' }).selectOption('email')
  await page.getByRole('combobox', { name: 'When a row matches a lead' }).selectOption('skip')

  await page.getByRole('button', { name: 'Check file' }).click()
  await expect(page.getByText('3 rows ready to import, 2 rows with problems.')).toBeVisible({ timeout: 30_000 })
  const problems = page.getByRole('table', { name: 'Problems' })
  await expect(problems).toContainText('not an email address')
  await expect(problems).toContainText('unknown lead status')

  await page.getByRole('button', { name: 'Start import' }).click()
  const counts = page.getByRole('definition')
  await expect(page.getByRole('link', { name: 'Download failed rows' })).toBeVisible({ timeout: 60_000 })
  await expect(counts).toHaveText(['1', '0', '1', '2'])

  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('link', { name: 'Download failed rows' }).click(),
  ])
  const text = await readFile(await download.path(), 'utf8')
  const [header, ...rows] = text.split(/\r?\n/).filter((line) => line !== '')
  expect(header).toBe('Company,Contact Name,Email,Phone,Status,City,reason')
  expect(rows).toHaveLength(2)
  expect(rows[0]).toMatch(/^Importwalker Bad Email,Carl Bad,not-an-email,.*not an email address/i)
  expect(rows[1]).toMatch(/^Importwalker Odd Status,Eve Odd,.*unknown lead status/i)

  // The grouped lead, with both contacts, is in the list.
  const imported = await api.request('GET', 'lead/?query=importwalker')
  expect(
    (imported.data as { display_name: string; contacts: unknown[] }[]).map((l) => [l.display_name, l.contacts.length]),
  ).toEqual([['Importwalker Robotics', 2]])

  await page.getByRole('button', { name: 'Undo import' }).click()
  await page.getByRole('dialog', { name: 'Undo this import?' }).getByRole('button', { name: 'Undo import' }).click()
  await expect(page.getByText(/undone/i)).toBeVisible({ timeout: 60_000 })
  expect((await api.request('GET', 'lead/?query=importwalker')).data).toEqual([])
  expect(((await api.request('GET', 'lead/?query=already')).data as unknown[]).length).toBe(1)
})
