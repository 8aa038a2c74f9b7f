import { expect, signIn, test } from '../fixtures.js'

test('a rep creates a lead with a contact from the list page and finds it by search', async ({ page, stack }) => {
  await signIn(page, stack.apiKey)
  await page.goto('/leads')
  await page.getByRole('button', { name: 'New lead' }).click()
  const dialog = page.getByRole('dialog')
  await dialog.getByLabel('Name', { exact: true }).fill('Bluth Company')
  await dialog.getByRole('textbox', { name: 'Contact' }).fill('George Bluth')
  await dialog.getByRole('textbox', { name: 'Email' }).fill('george@bluth.example.com')
  await dialog.getByRole('button', { name: 'Create lead' }).click()
  await expect(page.getByRole('heading', { name: 'Bluth Company' })).toBeVisible()

  await page.goto('/leads')
  await page.getByRole('textbox', { name: 'Search leads' }).fill('george@bluth')
  await page.getByRole('textbox', { name: 'Search leads' }).press('Enter')
  await expect(page).toHaveURL(/query=george/)
  await expect(page.getByRole('link', { name: 'Bluth Company' })).toBeVisible()
})

test('the new-lead dialog shows a field error beside its field', async ({ page, stack }) => {
  await signIn(page, stack.apiKey)
  await page.goto('/leads')
  await page.getByRole('button', { name: 'New lead' }).click()
  const dialog = page.getByRole('dialog')
  await dialog.getByLabel('Name', { exact: true }).fill('Broken Email Co')
  await dialog.getByRole('textbox', { name: 'Contact' }).fill('Nobody')
  // The browser accepts this address; the API does not (no domain dot), so the error comes back as a field error.
  await dialog.getByRole('textbox', { name: 'Email' }).fill('nobody@localhost')
  await dialog.getByRole('button', { name: 'Create lead' }).click()
  await expect(dialog.getByText('Enter a valid email address.')).toBeVisible()
  await expect(dialog.getByRole('textbox', { name: 'Email' })).toHaveAttribute('aria-invalid', 'true')
})

test('changing the status shows at once and appears in the timeline', async ({ page, stack, api }) => {
  const lead = await api.createLead({ name: 'Status Journey Co' })
  await signIn(page, stack.apiKey)
  await page.goto(`/leads/${lead.id}`)
  await page.getByRole('combobox', { name: 'Status' }).selectOption('Qualified')
  await expect(page.getByRole('combobox', { name: 'Status' })).toHaveValue(/.+/)
  await expect(page.getByRole('combobox', { name: 'Status' }).locator('option:checked')).toHaveText('Qualified')
  await expect(page.getByRole('article').filter({ hasText: /Potential.*Qualified/ })).toBeVisible()
})

test('a rep logs a note on a lead', async ({ page, stack, api }) => {
  const lead = await api.createLead({ name: 'Note Journey Co' })
  await signIn(page, stack.apiKey)
  await page.goto(`/leads/${lead.id}`)
  await page.getByRole('textbox', { name: 'Note' }).fill('Called, will call back')
  await page.getByRole('button', { name: 'Save note' }).click()
  await expect(page.getByRole('article').filter({ hasText: 'Called, will call back' })).toBeVisible()
})

test('a rep adds a second phone to a contact', async ({ page, stack, api }) => {
  const lead = await api.createLead({
    name: 'Phone Journey Co',
    contacts: [{ name: 'Pam Phone', phones: [{ phone: '+14155550100' }] }],
  })
  await signIn(page, stack.apiKey)
  await page.goto(`/leads/${lead.id}`)
  await page.getByRole('button', { name: 'Edit contact Pam Phone' }).click()
  await page.getByRole('button', { name: 'Add phone' }).click()
  await page.getByRole('textbox', { name: 'Phone 2' }).fill('(415) 555-0199')
  await page.getByRole('button', { name: 'Save contact' }).click()
  await expect(page.getByText('+1 415 555 0199')).toBeVisible()
  await expect(page.getByText('+1 415 555 0100')).toBeVisible()
})

test('a rep edits a custom field', async ({ page, stack, api }) => {
  await api.request('POST', 'custom_field/lead/', {
    name: 'Industry',
    type: 'choices',
    choices: ['Retail', 'Software'],
  })
  const lead = await api.createLead({ name: 'Custom Journey Co' })
  await signIn(page, stack.apiKey)
  await page.goto(`/leads/${lead.id}`)
  await page.getByRole('button', { name: 'Edit Industry' }).click()
  await page.getByRole('combobox', { name: 'Industry' }).selectOption('Software')
  await page.getByRole('button', { name: 'Save Industry' }).click()
  await expect(page.getByRole('button', { name: 'Edit Industry' })).toBeVisible()
  await page.reload()
  await expect(page.getByText('Software')).toBeVisible()
})

test('a rep deletes a lead after confirming', async ({ page, stack, api }) => {
  const lead = await api.createLead({ name: 'Doomed Journey Co' })
  await signIn(page, stack.apiKey)
  await page.goto(`/leads/${lead.id}`)
  await page.getByRole('button', { name: 'Delete lead' }).click()
  await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click()
  await expect(page).toHaveURL(/\/leads$/)
  await page.goto(`/leads/${lead.id}`)
  await expect(page.getByRole('heading', { name: 'This lead does not exist' })).toBeVisible()
})

test('a deep link to a lead page works after a reload', async ({ page, stack, api }) => {
  const lead = await api.createLead({ name: 'Deep Link Co' })
  await signIn(page, stack.apiKey)
  await page.goto(`/leads/${lead.id}`)
  await page.reload()
  await expect(page.getByRole('heading', { name: 'Deep Link Co' })).toBeVisible()
})
