import { CrmClient, demoTest as test, expect } from '../fixtures.js'
import { demoUser, expectAccessible, signInAs } from '../journeys.js'

// Likely duplicates: a rep creates a lead that is already there, is warned, and merges it from the warning into the
// older lead; then the Potential duplicates screen lists a pair and merges it.

test('create a duplicate lead and merge it from the warning', async ({ page, demoStack }) => {
  const rep = demoUser(demoStack.users, 'rep')
  const crm = new CrmClient(demoStack.apiUrl, rep.api_key)
  const stamp = String(Date.now()).slice(-6)
  const existing = await crm.createLead({
    name: `Gobbler Widgets ${stamp}`,
    contacts: [{ name: 'Gail Gobbler', emails: [{ email: `gail@gobbler${stamp}.example` }] }],
  })

  await signInAs(page, rep)
  await page.goto('/leads')
  await page.getByRole('button', { name: 'New lead' }).click()
  const dialog = page.getByRole('dialog')
  await dialog.getByLabel('Name', { exact: true }).fill(`Gobbler Widget ${stamp}`)
  await dialog.getByRole('textbox', { name: 'Email' }).fill(`GAIL@gobbler${stamp}.example`)
  await dialog.getByRole('button', { name: 'Create lead' }).click()
  await expect(page.getByRole('heading', { level: 1, name: `Gobbler Widget ${stamp}` })).toBeVisible()

  const warning = page.getByRole('status').filter({ hasText: 'Possible duplicates' })
  await expect(warning).toBeVisible()
  const candidate = warning.getByRole('listitem').filter({ hasText: `Gobbler Widgets ${stamp}` })
  await expect(candidate).toContainText('same email, similar name')
  await expect(candidate.getByRole('link', { name: `Open Gobbler Widgets ${stamp}` })).toHaveAttribute(
    'href',
    `/leads/${existing.id}`,
  )
  await expectAccessible(page)

  await candidate.getByRole('button', { name: `Merge with Gobbler Widgets ${stamp}` }).click()
  const confirm = page.getByRole('dialog', { name: `Merge into Gobbler Widgets ${stamp}?` })
  await expect(confirm).toContainText('which is kept')
  await expectAccessible(page)
  await confirm.getByRole('button', { name: 'Merge' }).click()
  await expect(page).toHaveURL(new RegExp(`/leads/${existing.id}$`))
  await expect(page.getByRole('heading', { level: 1, name: `Gobbler Widgets ${stamp}` })).toBeVisible()
  // The new lead's contact moved over; nothing looks like this lead any more.
  await expect(page.getByText(`GAIL@gobbler${stamp}.example`, { exact: false }).first()).toBeVisible()
  await expect(page.getByRole('status').filter({ hasText: 'Possible duplicates' })).toHaveCount(0)
})

test('the Potential duplicates screen lists a pair and merges it', async ({ page, demoStack }) => {
  const rep = demoUser(demoStack.users, 'rep')
  const crm = new CrmClient(demoStack.apiUrl, rep.api_key)
  const stamp = String(Date.now()).slice(-6)
  // A leading 0 sorts this email's cluster before the demo's own.
  const email = `0-pair-${stamp}@twins.example`
  const older = await crm.createLead({ name: `Twin Older ${stamp}`, contacts: [{ emails: [{ email }] }] })
  await crm.createLead({ name: `Twin Newer ${stamp}`, contacts: [{ emails: [{ email }] }] })

  await signInAs(page, rep)
  await page.getByRole('link', { name: 'Leads', exact: true }).first().click()
  await page.getByRole('link', { name: 'Potential duplicates' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'Potential duplicates' })).toBeVisible()
  const cluster = page.getByRole('listitem', { name: `Same email: ${email}` })
  await expect(cluster).toContainText(`Kept: Twin Older ${stamp} (the oldest)`)
  await expectAccessible(page)

  await cluster.getByRole('button', { name: `Merge Twin Newer ${stamp} into Twin Older ${stamp}` }).click()
  const confirm = page.getByRole('dialog', { name: `Merge into Twin Older ${stamp}?` })
  await confirm.getByRole('button', { name: 'Merge' }).click()
  await expect(cluster).toHaveCount(0)
  const lead = await crm.request('GET', `lead/${older.id}/`)
  expect(lead.contacts).toHaveLength(2)
})
