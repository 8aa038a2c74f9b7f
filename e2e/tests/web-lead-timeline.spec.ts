import { CrmClient, demoTest as test, expect } from '../fixtures.js'
import { demoUser, expectAccessible, jsonList, signInAs } from '../journeys.js'

test('the lead timeline filters by kind in the URL, and the panel adds and deletes an opportunity', async ({
  page,
  demoStack,
}) => {
  const admin = demoUser(demoStack.users, 'admin')
  const crm = new CrmClient(demoStack.apiUrl, admin.api_key)
  const pipeline = await crm.request('POST', 'pipeline/', {
    name: 'Timeline deals',
    statuses: [{ label: 'Scoping' }, { label: 'Signed' }],
  })
  expect(jsonList(pipeline.statuses).map((s) => s.label)).toEqual(['Scoping', 'Signed'])
  const lead = await crm.createLead({ name: 'Timeline Filters Co' })

  await signInAs(page, admin)
  await page.goto(`/leads/${lead.id}`)
  await expect(page.getByRole('heading', { name: 'Timeline Filters Co' })).toBeVisible()
  const timeline = page.getByRole('region', { name: 'Activity' })
  const entries = timeline.getByRole('article')
  const show = timeline.getByRole('group', { name: 'Show' })
  await expect(show.getByRole('button', { name: 'All', exact: true })).toHaveAttribute('aria-pressed', 'true')

  await timeline.getByRole('textbox', { name: 'Note' }).fill('Asked for a quote')
  await timeline.getByRole('button', { name: 'Save note' }).click()
  await expect(entries.filter({ hasText: 'Asked for a quote' })).toBeVisible()

  const panel = page.getByRole('region', { name: 'Opportunities' })
  await panel.getByRole('button', { name: 'New opportunity' }).click()
  const form = page.getByRole('dialog', { name: 'New opportunity' })
  await form.getByRole('combobox', { name: 'Pipeline' }).selectOption('Timeline deals')
  await form.getByRole('combobox', { name: 'Status' }).selectOption('Signed')
  await form.getByRole('textbox', { name: 'Value' }).fill('2500')
  await form.getByRole('textbox', { name: 'Confidence (%)' }).fill('40')
  await form.getByRole('button', { name: 'Add opportunity' }).click()
  await expect(form).toBeHidden()
  const item = panel.getByRole('listitem').filter({ hasText: 'Signed' })
  await expect(item).toContainText('40%')
  await expect(item).toContainText('active')
  const change = entries.filter({ hasText: 'Opportunity created in Signed' })
  await expect(change).toBeVisible()
  await expect(entries).toHaveCount(3)

  await show.getByRole('button', { name: 'Notes' }).click()
  await expect(page).toHaveURL(/[?&]activity=notes(&|$)/)
  await expect(show.getByRole('button', { name: 'Notes' })).toHaveAttribute('aria-pressed', 'true')
  await expect(show.getByRole('button', { name: 'All', exact: true })).toHaveAttribute('aria-pressed', 'false')
  await expect(entries).toHaveCount(1)
  await expect(entries).toHaveAttribute('data-activity-type', 'Note')
  await expectAccessible(page)

  // From the keyboard: the next button is one Tab away, and Enter presses it.
  await show.getByRole('button', { name: 'Notes' }).focus()
  await page.keyboard.press('Tab')
  await expect(show.getByRole('button', { name: 'Calls' })).toBeFocused()
  await page.keyboard.press('Enter')
  await expect(page).toHaveURL(/[?&]activity=calls(&|$)/)
  await expect(timeline.getByText('No calls yet.')).toBeVisible()
  await expect(entries).toHaveCount(0)
  await show.getByRole('button', { name: 'Status changes' }).click()
  await expect(page).toHaveURL(/[?&]activity=status(&|$)/)
  await expect(timeline.getByText('No status changes yet.')).toBeVisible()
  await expect(entries).toHaveCount(0)

  await show.getByRole('button', { name: 'Opportunities' }).click()
  await expect(page).toHaveURL(/[?&]activity=opportunities(&|$)/)
  await expect(entries).toHaveCount(1)
  await expect(entries).toHaveAttribute('data-activity-type', 'OpportunityStatusChange')

  // The filter survives a reload; an unknown one is All.
  await page.reload()
  await expect(show.getByRole('button', { name: 'Opportunities' })).toHaveAttribute('aria-pressed', 'true')
  await expect(entries).toHaveCount(1)
  await page.goto(`/leads/${lead.id}?activity=meetings`)
  await expect(show.getByRole('button', { name: 'All', exact: true })).toHaveAttribute('aria-pressed', 'true')
  await expect(entries).toHaveCount(3)
  await show.getByRole('button', { name: 'Opportunities' }).click()
  await expect(entries).toHaveCount(1)

  await show.getByRole('button', { name: 'All', exact: true }).click()
  await expect(page).not.toHaveURL(/activity=/)
  await expect(entries).toHaveCount(3)
  await expect(timeline.locator('[data-activity-type="Created"]')).toHaveCount(1)

  await item.getByRole('button', { name: 'Delete Signed opportunity' }).click()
  const confirm = page.getByRole('dialog', { name: 'Delete the Signed opportunity?' })
  await expect(confirm.getByRole('button', { name: 'Cancel' })).toBeFocused()
  await confirm.getByRole('button', { name: 'Delete' }).click()
  await expect(confirm).toBeHidden()
  await expect(panel.getByRole('listitem')).toHaveCount(0)
  await expect(panel.getByText('No opportunities.')).toBeVisible()
  expect(jsonList((await crm.request('GET', `opportunity/?lead_id=${lead.id}`)).data)).toEqual([])
  // Its history stays, as the confirmation says.
  await expect(change).toBeVisible()
})
