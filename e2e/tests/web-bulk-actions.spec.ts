import { CrmClient, demoTest as test, expect } from '../fixtures.js'
import { demoUser, expectAccessible, jsonList, leadStatusLabels, signInAs } from '../journeys.js'

// Bulk actions on the leads list: a rep selects every lead a search matches (thousands), sets their status in the
// background, watches its progress part-way and its end, and undoes it from the toast; a bulk delete asks for the
// count to be typed.

/** The leads the first journey edits, and how the screen writes their number. */
const LEADS = 10_000
const ALL = LEADS.toLocaleString('en-US')

async function makeLeads(crm: CrmClient, prefix: string, n: number): Promise<void> {
  for (let i = 1; i <= n; i += 1)
    await crm.request('POST', 'lead/', { name: `${prefix} ${String(i).padStart(2, '0')}` })
}

async function statusesOf(crm: CrmClient, prefix: string): Promise<string[]> {
  const found = await crm.request('GET', `lead/?query=${encodeURIComponent(`name:"${prefix}"`)}&_limit=100`)
  return jsonList(found.data).map((lead) => String(lead.status_label))
}

/** How many leads whose names hold `prefix` have the status `label`. */
async function countWithStatus(crm: CrmClient, prefix: string, label: string): Promise<number> {
  const query = `name:"${prefix}" status:"${label}"`
  const found = await crm.request('GET', `lead/?query=${encodeURIComponent(query)}&_limit=1`)
  return Number(found.total_results)
}

/** `n` leads in one CSV import through the API (creating thousands one by one would take the journey's time). */
async function importLeads(crm: CrmClient, apiUrl: string, prefix: string, n: number): Promise<void> {
  const rows = Array.from({ length: n }, (_, i) => `${prefix} ${String(i + 1).padStart(5, '0')}`)
  const upload = await fetch(`${apiUrl}/api/v1/import/?filename=bulk.csv`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${crm.key}:`).toString('base64')}`, 'content-type': 'text/csv' },
    body: ['Company', ...rows].join('\n'),
  })
  expect(upload.status).toBe(201)
  const made = (await upload.json()) as { id: string }
  await crm.request('POST', `import/${made.id}/run/`)
  await expect
    .poll(async () => (await crm.request('GET', `import/${made.id}/`)).status, { timeout: 60_000 })
    .toBe('done')
}

test('a rep selects all matching leads, sets their status, watches its progress, then undoes it', async ({
  page,
  demoStack,
}) => {
  const rep = demoUser(demoStack.users, 'rep')
  const crm = new CrmClient(demoStack.apiUrl, rep.api_key)
  const prefix = `Bulkwalker ${String(Date.now()).slice(-6)}`
  // Enough leads for the job to take many batches (500 a transaction) over several seconds, so its progress shows
  // between them whatever the machine's speed.
  await importLeads(crm, demoStack.apiUrl, prefix, LEADS)
  const before = await statusesOf(crm, prefix)
  const target = (await leadStatusLabels(crm)).find((label) => !before.includes(label)) ?? ''
  expect(await countWithStatus(crm, prefix, target)).toBe(0)

  await signInAs(page, rep)
  await page.getByRole('link', { name: 'Leads', exact: true }).first().click()
  await page.getByRole('textbox', { name: 'Search leads' }).fill(`name:"${prefix}"`)
  await page.getByRole('button', { name: 'Search', exact: true }).click()
  await expect(page.getByText(`${ALL} leads`, { exact: true })).toBeVisible()

  await page.getByRole('checkbox', { name: 'Select every loaded lead' }).check()
  const bar = page.getByRole('region', { name: 'Selected leads' })
  await expect(bar.getByText('50 leads selected')).toBeVisible()
  await bar.getByRole('button', { name: `Select all ${ALL} leads matching` }).click()
  await expect(bar.getByText(`All ${ALL} leads matching are selected`)).toBeVisible()
  await expectAccessible(page)

  await bar.getByRole('button', { name: 'Edit selected leads' }).click()
  const dialog = page.getByRole('dialog', { name: `Edit ${ALL} leads` })
  await dialog.getByRole('combobox', { name: 'New status' }).selectOption({ label: target })
  await expectAccessible(page)
  await dialog.getByRole('button', { name: `Apply to ${ALL} leads` }).click()
  await expect(dialog).toHaveCount(0)

  // The job's progress part-way (some leads changed, not all), then what it did; the list shows the new status.
  await expect(page.getByRole('progressbar', { name: 'Bulk edit progress' })).toBeVisible()
  await expect(page.getByRole('status').getByText(new RegExp(`^[1-9][\\d,]* of ${ALL} leads$`))).toBeVisible()
  await expect(page.getByRole('status').filter({ hasText: `Bulk edit: ${ALL} of ${ALL} leads changed.` })).toBeVisible({
    timeout: 60_000,
  })
  const table = page.getByRole('table', { name: 'Leads' })
  await expect(table.getByText(target, { exact: true }).first()).toBeVisible()
  expect(await countWithStatus(crm, prefix, target)).toBe(LEADS)

  const toast = page.getByRole('region', { name: 'Notifications' }).getByRole('status').filter({
    hasText: 'Bulk edit done',
  })
  await expect(toast).toBeVisible()
  await expectAccessible(page)
  await toast.getByRole('button', { name: 'Undo' }).click()
  await expect(page.getByRole('status').filter({ hasText: `Undone: ${ALL} leads put back.` })).toBeVisible({
    timeout: 60_000,
  })
  await expect(table.getByText(target, { exact: true })).toHaveCount(0)
  expect(await countWithStatus(crm, prefix, target)).toBe(0)
  expect((await statusesOf(crm, prefix)).toSorted()).toEqual(before.toSorted())
})

test('a bulk delete asks for the number of leads to be typed first', async ({ page, demoStack }) => {
  const rep = demoUser(demoStack.users, 'rep')
  const crm = new CrmClient(demoStack.apiUrl, rep.api_key)
  const prefix = `Bulkgone ${String(Date.now()).slice(-6)}`
  await makeLeads(crm, prefix, 3)

  await signInAs(page, rep)
  await page.goto(`/leads?query=${encodeURIComponent(`name:"${prefix}"`)}`)
  const table = page.getByRole('table', { name: 'Leads' })
  await expect(table.getByRole('link')).toHaveCount(3)
  await table.getByRole('checkbox', { name: `Select ${prefix} 01` }).check()
  await table.getByRole('checkbox', { name: `Select ${prefix} 03` }).check()
  const bar = page.getByRole('region', { name: 'Selected leads' })
  await expect(bar.getByText('2 leads selected')).toBeVisible()
  await bar.getByRole('button', { name: 'Delete selected leads' }).click()

  const dialog = page.getByRole('dialog', { name: 'Delete 2 leads' })
  const confirm = dialog.getByRole('button', { name: 'Delete 2 leads' })
  await expect(confirm).toBeDisabled()
  await dialog.getByRole('textbox', { name: 'Type 2 to confirm' }).fill('3')
  await expect(confirm).toBeDisabled()
  await dialog.getByRole('textbox', { name: 'Type 2 to confirm' }).fill('2')
  await expectAccessible(page)
  await confirm.click()
  await expect(page.getByRole('status').filter({ hasText: 'Bulk delete: Deleted 2 leads.' })).toBeVisible()
  await expect(table.getByRole('link')).toHaveCount(1)
  await expect(table.getByRole('link', { name: `${prefix} 02` })).toBeVisible()
})
