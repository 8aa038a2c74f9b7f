import type { Page } from '@playwright/test'
import { CrmClient, demoTest as test, expect } from '../fixtures.js'
import { expectAccessible, demoUser, jsonList, jsonRecord, signInAs } from '../journeys.js'

async function leadFields(api: CrmClient): Promise<Record<string, unknown>[]> {
  return jsonList((await api.request('GET', 'custom_field_schema/lead/')).fields)
}

async function leadFieldNames(api: CrmClient): Promise<string[]> {
  return (await leadFields(api)).map((f) => String(f.name))
}

function savedSchema(page: Page) {
  return page.waitForResponse(
    (r) => r.url().endsWith('/api/v1/custom_field_schema/lead/') && r.request().method() === 'PUT' && r.ok(),
  )
}

test('an admin adds a choices field, moves it up, sees it on a lead in that order, and deletes a field after seeing its count', async ({
  page,
  demoStack,
}) => {
  test.setTimeout(90_000)
  const admin = demoUser(demoStack.users, 'admin')
  const api = new CrmClient(demoStack.apiUrl, admin.api_key)
  const before = await leadFieldNames(api)
  expect(before).toEqual(['Industry', 'Employees', 'Renewal date', 'Account owner'])

  await signInAs(page, admin)
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click()
  await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Custom fields' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'Custom fields' })).toBeVisible()
  await expect(page).toHaveTitle('Custom fields · Settings · Leadline')
  const section = page.getByRole('region', { name: 'Lead fields' })
  const list = section.getByRole('list', { name: 'Lead fields' })
  await expect(list.getByRole('listitem')).toHaveText([/^Industry/, /^Employees/, /^Renewal date/, /^Account owner/])
  await expectAccessible(page)

  // A choices field, its choices typed and put in order by keyboard.
  await section.getByRole('button', { name: 'Add lead field' }).click()
  const dialog = page.getByRole('dialog', { name: 'Add lead field' })
  await dialog.getByRole('textbox', { name: 'Name' }).fill('Deal size')
  await dialog.getByRole('combobox', { name: 'Type' }).selectOption({ label: 'Choices' })
  const choice = dialog.getByRole('textbox', { name: 'New choice' })
  for (const name of ['Large', 'Small']) {
    await choice.fill(name)
    await dialog.getByRole('button', { name: 'Add choice' }).click()
  }
  await dialog.getByRole('button', { name: 'Up Small' }).click()
  await expect(dialog.getByRole('list', { name: 'Choices' }).getByRole('listitem')).toHaveText([/^Small/, /^Large/])
  await expectAccessible(page)
  await dialog.getByRole('button', { name: 'Add lead field' }).click()
  await expect(dialog).toBeHidden()
  await expect(list.getByRole('listitem')).toHaveText([
    /^Industry/,
    /^Employees/,
    /^Renewal date/,
    /^Account owner/,
    /^Deal size.*Choices · Small, Large/,
  ])

  const saved = savedSchema(page)
  await list.getByRole('button', { name: 'Move up Deal size' }).click()
  await saved
  await expect(list.getByRole('listitem')).toHaveText([
    /^Industry/,
    /^Employees/,
    /^Renewal date/,
    /^Deal size/,
    /^Account owner/,
  ])
  expect(await leadFieldNames(api)).toEqual(['Industry', 'Employees', 'Renewal date', 'Deal size', 'Account owner'])

  // The lead page shows the new field, in the organization's order.
  const leads = await api.request('GET', 'lead/?_limit=1')
  const leadId = String(jsonList(leads.data)[0]?.id)
  await page.goto(`/leads/${leadId}`)
  const custom = page.getByRole('region', { name: 'Custom fields' })
  const edits = custom.getByRole('button', { name: /^Edit / })
  await expect(edits).toHaveCount(5)
  expect(await edits.evaluateAll((buttons) => buttons.map((b) => b.getAttribute('aria-label')))).toEqual(
    ['Industry', 'Employees', 'Renewal date', 'Deal size', 'Account owner'].map((name) => `Edit ${name}`),
  )

  // Deleting asks first, and says how many values go.
  const industry = (await leadFields(api)).find((f) => f.name === 'Industry')
  const count = Number((await api.request('GET', `custom_field/lead/${String(industry?.id)}/usage/`)).values)
  expect(count).toBeGreaterThan(0)
  await page.goto('/settings/custom-fields')
  await expect(page.getByRole('heading', { level: 1, name: 'Custom fields' })).toBeVisible()
  await list.getByRole('button', { name: 'Delete Industry' }).click()
  const confirm = page.getByRole('dialog', { name: 'Delete the lead field Industry?' })
  await expect(confirm).toContainText(`Deleting Industry removes its ${count.toLocaleString('en-US')} value`)
  await expectAccessible(page)
  await confirm.getByRole('button', { name: 'Delete' }).click()
  await expect(confirm).toBeHidden()
  await expect(list.getByRole('listitem')).toHaveText([/^Employees/, /^Renewal date/, /^Deal size/, /^Account owner/])
  expect(await leadFieldNames(api)).toEqual(['Employees', 'Renewal date', 'Deal size', 'Account owner'])
})

test('opportunity fields moved in Settings show in that order on the opportunity form, and their values are saved', async ({
  page,
  demoStack,
}) => {
  test.setTimeout(90_000)
  const admin = demoUser(demoStack.users, 'admin')
  const api = new CrmClient(demoStack.apiUrl, admin.api_key)
  const competitor = await api.request('POST', 'custom_field/opportunity/', { name: 'Competitor', type: 'text' })
  const priority = await api.request('POST', 'custom_field/opportunity/', {
    name: 'Priority',
    type: 'choices',
    choices: ['High', 'Low'],
  })

  await signInAs(page, admin)
  await page.goto('/settings/custom-fields')
  const list = page
    .getByRole('region', { name: 'Opportunity fields' })
    .getByRole('list', { name: 'Opportunity fields' })
  await expect(list.getByRole('listitem')).toHaveText([/^Competitor/, /^Priority/])
  const saved = page.waitForResponse(
    (r) => r.url().endsWith('/api/v1/custom_field_schema/opportunity/') && r.request().method() === 'PUT' && r.ok(),
  )
  await list.getByRole('button', { name: 'Move up Priority' }).click()
  await saved
  await expect(list.getByRole('listitem')).toHaveText([/^Priority/, /^Competitor/])

  const leads = await api.request('GET', 'lead/?_limit=1')
  const leadId = String(jsonList(leads.data)[0]?.id)
  await page.goto(`/leads/${leadId}`)
  await page.getByRole('region', { name: 'Opportunities' }).getByRole('button', { name: 'New opportunity' }).click()
  const form = page.getByRole('dialog', { name: 'New opportunity' })
  const custom = form.getByRole('group', { name: 'Custom fields' })
  await expect(custom.getByRole('combobox', { name: 'Priority' })).toBeVisible()
  const labels = await custom.locator('label').allTextContents()
  expect(labels).toEqual(['Priority', 'Competitor'])
  await custom.getByRole('combobox', { name: 'Priority' }).selectOption('High')
  await custom.getByRole('textbox', { name: 'Competitor' }).fill('Globex')
  await form.getByRole('textbox', { name: 'Value' }).fill('900')
  const created = page.waitForResponse(
    (r) => r.url().endsWith('/api/v1/opportunity/') && r.request().method() === 'POST' && r.ok(),
  )
  await form.getByRole('button', { name: 'Add opportunity' }).click()
  const opportunity = jsonRecord(await (await created).json())
  await expect(form).toBeHidden()
  const stored = await api.request('GET', `opportunity/${String(opportunity.id)}/`)
  expect(stored[`custom.${String(priority.id)}`]).toBe('High')
  expect(stored[`custom.${String(competitor.id)}`]).toBe('Globex')
})
