import { CrmClient, demoTest as test, expect } from '../fixtures.js'
import { demoUser, expectAccessible, jsonList, leadStatusLabels, signInAs } from '../journeys.js'

// Bulk actions on the leads list: a rep selects every lead a search matches (more than a page), sets their status in
// the background, watches it finish, and undoes it from the toast; a bulk delete asks for the count to be typed.

async function makeLeads(crm: CrmClient, prefix: string, n: number): Promise<void> {
  for (let i = 1; i <= n; i += 1)
    await crm.request('POST', 'lead/', { name: `${prefix} ${String(i).padStart(2, '0')}` })
}

async function statusesOf(crm: CrmClient, prefix: string): Promise<string[]> {
  const found = await crm.request('GET', `lead/?query=${encodeURIComponent(`name:"${prefix}"`)}&_limit=100`)
  return jsonList(found.data).map((lead) => String(lead.status_label))
}

test('a rep selects all matching leads, sets their status, watches it finish, then undoes it', async ({
  page,
  demoStack,
}) => {
  const rep = demoUser(demoStack.users, 'rep')
  const crm = new CrmClient(demoStack.apiUrl, rep.api_key)
  const prefix = `Bulkwalker ${String(Date.now()).slice(-6)}`
  await makeLeads(crm, prefix, 55)
  const before = await statusesOf(crm, prefix)
  const target = (await leadStatusLabels(crm)).find((label) => !before.includes(label)) ?? ''

  await signInAs(page, rep)
  await page.getByRole('link', { name: 'Leads', exact: true }).first().click()
  await page.getByRole('textbox', { name: 'Search leads' }).fill(`name:"${prefix}"`)
  await page.getByRole('button', { name: 'Search', exact: true }).click()
  await expect(page.getByText('55 leads', { exact: true })).toBeVisible()

  await page.getByRole('checkbox', { name: 'Select every loaded lead' }).check()
  const bar = page.getByRole('region', { name: 'Selected leads' })
  await expect(bar.getByText('50 leads selected')).toBeVisible()
  await bar.getByRole('button', { name: 'Select all 55 leads matching' }).click()
  await expect(bar.getByText('All 55 leads matching are selected')).toBeVisible()
  await expectAccessible(page)

  await bar.getByRole('button', { name: 'Edit selected leads' }).click()
  const dialog = page.getByRole('dialog', { name: 'Edit 55 leads' })
  await dialog.getByRole('combobox', { name: 'New status' }).selectOption({ label: target })
  await expectAccessible(page)
  await dialog.getByRole('button', { name: 'Apply to 55 leads' }).click()
  await expect(dialog).toHaveCount(0)

  // The job's progress, then what it did; the list shows the new status.
  await expect(page.getByRole('status').filter({ hasText: 'Bulk edit: 55 of 55 leads changed.' })).toBeVisible()
  const table = page.getByRole('table', { name: 'Leads' })
  await expect(table.getByText(target, { exact: true }).first()).toBeVisible()
  expect(new Set(await statusesOf(crm, prefix))).toEqual(new Set([target]))

  const toast = page.getByRole('region', { name: 'Notifications' }).getByRole('status').filter({
    hasText: 'Bulk edit done',
  })
  await expect(toast).toBeVisible()
  await expectAccessible(page)
  await toast.getByRole('button', { name: 'Undo' }).click()
  await expect(page.getByRole('status').filter({ hasText: 'Undone: 55 leads put back.' })).toBeVisible()
  await expect(table.getByText(target, { exact: true })).toHaveCount(0)
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
