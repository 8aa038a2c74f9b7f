import { readFile } from 'node:fs/promises'
import { expect, signIn, test } from '../fixtures.js'

test('an export from the leads list with a search downloads a CSV of the leads the list shows', async ({
  page,
  stack,
  api,
}) => {
  // Leads the search finds, and one it must leave out. Their names need no CSV quoting.
  for (const n of ['01', '02', '03', '04', '05']) await api.createLead({ name: `Exportwalker ${n}` })
  await api.createLead({ name: 'Somebody Else Entirely' })
  await signIn(page, stack.apiKey)
  await page.goto('/leads?query=exportwalker')
  const table = page.getByRole('table', { name: 'Leads' })
  await expect(table.getByRole('link')).toHaveCount(5)
  // Each row's name and status as the list shows them (after the row's selection box).
  const listed: string[] = []
  for (const row of await table
    .getByRole('row')
    .filter({ has: page.getByRole('link') })
    .all()) {
    const cells = row.getByRole('cell')
    listed.push(`${(await cells.nth(1).innerText()).trim()},${(await cells.nth(2).innerText()).trim()}`)
  }
  listed.sort()
  expect(listed).toHaveLength(5)

  await page.getByRole('button', { name: 'Export' }).click()
  const dialog = page.getByRole('dialog', { name: 'Export leads' })
  await dialog.getByRole('radio', { name: 'CSV' }).check()
  await dialog.getByRole('checkbox', { name: 'All columns' }).uncheck()
  await dialog.getByRole('checkbox', { name: 'Name' }).check()
  await dialog.getByRole('checkbox', { name: 'Status' }).check()
  await dialog.getByRole('button', { name: 'Start export' }).click()
  await expect(dialog).toHaveCount(0)

  const link = page.getByRole('link', { name: 'Download export' })
  await expect(link).toBeVisible({ timeout: 30_000 })
  await expect(page.getByRole('status').filter({ hasText: 'Export done: 5 rows.' })).toBeVisible()
  const [download] = await Promise.all([page.waitForEvent('download'), link.click()])
  expect(download.suggestedFilename()).toMatch(/^leads-leads-.+\.csv$/)
  // The browser saved the CSV itself, not the gzip bytes it travelled as.
  const text = await readFile(await download.path(), 'utf8')
  const [header, ...rows] = text.split(/\r?\n/).filter((line) => line !== '')
  expect(header).toBe('display_name,status_label')
  expect(rows.sort()).toEqual(listed)
})
