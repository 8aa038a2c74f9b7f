import { expect, signIn, test } from '../fixtures.js'

test('a rep types a contact’s phone and fills the contact’s own custom field', async ({ page, stack, api }) => {
  const field = await api.request('POST', 'custom_field/contact/', {
    name: 'Decision role',
    type: 'choices',
    choices: ['Champion', 'Economic buyer'],
  })
  const lead = await api.createLead({ name: 'Typed Contact Co', contacts: [{ name: 'Tina Typed' }] })
  await signIn(page, stack.apiKey)
  await page.goto(`/leads/${lead.id}`)
  await page.getByRole('button', { name: 'Edit contact Tina Typed' }).click()
  const dialog = page.getByRole('dialog')
  await dialog.getByRole('button', { name: 'Add phone' }).click()
  await dialog.getByRole('textbox', { name: 'Phone 1', exact: true }).fill('415 555 0123')
  await dialog.getByRole('combobox', { name: 'Phone 1 type' }).selectOption('mobile')
  await dialog.getByRole('combobox', { name: 'Decision role' }).selectOption('Champion')
  await dialog.getByRole('button', { name: 'Save contact' }).click()
  await expect(dialog).toHaveCount(0)

  const contacts = page.getByRole('region', { name: 'Contacts' })
  await expect(contacts.getByText('+1 415 555 0123')).toBeVisible()
  await expect(contacts.getByText('mobile', { exact: true })).toBeVisible()
  await expect(contacts.getByText('Decision role')).toBeVisible()
  await expect(contacts.getByText('Champion')).toBeVisible()

  // What the screen shows is what the API stored.
  const list = await api.request('GET', `contact/?lead_id=${lead.id}`)
  expect(list.data).toMatchObject([
    {
      name: 'Tina Typed',
      phones: [{ phone: '+14155550123', type: 'mobile' }],
      [`custom.${String(field.id)}`]: 'Champion',
    },
  ])
})

test('a contact custom field that the API refuses shows its error in the form', async ({ page, stack, api }) => {
  await api.request('POST', 'custom_field/contact/', { name: 'Years in role', type: 'number' })
  const lead = await api.createLead({ name: 'Refused Field Co', contacts: [{ name: 'Nina Number' }] })
  await signIn(page, stack.apiKey)
  await page.goto(`/leads/${lead.id}`)
  await page.getByRole('button', { name: 'Edit contact Nina Number' }).click()
  const dialog = page.getByRole('dialog')
  await dialog.getByRole('textbox', { name: 'Years in role' }).fill('a few')
  await dialog.getByRole('button', { name: 'Save contact' }).click()
  await expect(dialog.getByRole('textbox', { name: 'Years in role' })).toHaveAttribute('aria-invalid', 'true')
  await dialog.getByRole('textbox', { name: 'Years in role' }).fill('4')
  await dialog.getByRole('button', { name: 'Save contact' }).click()
  await expect(dialog).toHaveCount(0)
  await expect(page.getByRole('region', { name: 'Contacts' }).getByText('Years in role')).toBeVisible()
})

test('a user field offers the organization’s members by name', async ({ page, stack, api }) => {
  const field = await api.request('POST', 'custom_field/lead/', { name: 'Account owner', type: 'user' })
  const me = await api.request('GET', 'me/')
  const lead = await api.createLead({ name: 'Owned Lead Co' })
  await signIn(page, stack.apiKey)
  await page.goto(`/leads/${lead.id}`)
  await page.getByRole('button', { name: 'Edit Account owner' }).click()
  await page.getByRole('combobox', { name: 'Account owner' }).selectOption('Casey Closer')
  await page.getByRole('button', { name: 'Save Account owner' }).click()
  const custom = page.getByRole('region', { name: 'Custom fields' })
  await expect(custom.getByText('Casey Closer')).toBeVisible()
  await expect(custom.getByText(String(me.id))).toHaveCount(0)
  const stored = await api.request('GET', `lead/${lead.id}/`)
  expect(stored[`custom.${String(field.id)}`]).toBe(me.id)
})

test('a rep deletes a contact after confirming, and it stays gone after a reload', async ({ page, stack, api }) => {
  const lead = await api.createLead({
    name: 'Two Contacts Co',
    contacts: [{ name: 'Keep Kelly' }, { name: 'Gone Gary' }],
  })
  await signIn(page, stack.apiKey)
  await page.goto(`/leads/${lead.id}`)
  const contacts = page.getByRole('region', { name: 'Contacts' })

  // Cancelling the confirmation deletes nothing.
  await contacts.getByRole('button', { name: 'Delete contact Gone Gary' }).click()
  const confirm = page.getByRole('dialog', { name: 'Delete Gone Gary?' })
  await confirm.getByRole('button', { name: 'Cancel' }).click()
  await expect(confirm).toHaveCount(0)
  await expect(contacts.getByText('Gone Gary')).toBeVisible()

  await contacts.getByRole('button', { name: 'Delete contact Gone Gary' }).click()
  await confirm.getByRole('button', { name: 'Delete' }).click()
  await expect(confirm).toHaveCount(0)
  await expect(contacts.getByText('Gone Gary')).toHaveCount(0)

  await page.reload()
  await expect(contacts.getByText('Keep Kelly')).toBeVisible()
  await expect(contacts.getByText('Gone Gary')).toHaveCount(0)
  const stored = await api.request('GET', `contact/?lead_id=${lead.id}`)
  expect(stored.data).toMatchObject([{ name: 'Keep Kelly' }])
})

test('removing a phone keeps each row’s own value and moves the focus to the next row, the one before, or Add', async ({
  page,
  stack,
  api,
}) => {
  const lead = await api.createLead({
    name: 'Many Phones Co',
    contacts: [
      {
        name: 'Pia Phones',
        phones: [
          { phone: '+14155550101', type: 'office' },
          { phone: '+14155550102', type: 'mobile' },
          { phone: '+14155550103', type: 'home' },
        ],
      },
    ],
  })
  await signIn(page, stack.apiKey)
  await page.goto(`/leads/${lead.id}`)
  await page.getByRole('button', { name: 'Edit contact Pia Phones' }).click()
  const dialog = page.getByRole('dialog')
  const phone = (n: number) => dialog.getByRole('textbox', { name: `Phone ${String(n)}`, exact: true })
  const remove = (n: number) => dialog.getByRole('button', { name: `Remove phone ${String(n)}` })
  await phone(2).fill('+14155550122')

  // The middle one: the next row takes its place, with its own value and the focus on its Remove.
  await remove(2).focus()
  await page.keyboard.press('Enter')
  await expect(phone(1)).toHaveValue('+14155550101')
  await expect(phone(2)).toHaveValue('+14155550103')
  await expect(dialog.getByRole('combobox', { name: 'Phone 2 type' })).toHaveValue('home')
  await expect(remove(2)).toBeFocused()

  // The last one: the focus goes to the row before it; the only one: to Add phone.
  await page.keyboard.press('Enter')
  await expect(phone(2)).toHaveCount(0)
  await expect(remove(1)).toBeFocused()
  await page.keyboard.press('Enter')
  await expect(phone(1)).toHaveCount(0)
  await expect(dialog.getByRole('button', { name: 'Add phone' })).toBeFocused()

  await dialog.getByRole('button', { name: 'Add phone' }).click()
  await phone(1).fill('415 555 0199')
  await dialog.getByRole('button', { name: 'Save contact' }).click()
  await expect(dialog).toHaveCount(0)
  const list = await api.request('GET', `contact/?lead_id=${lead.id}`)
  expect(list.data).toMatchObject([{ name: 'Pia Phones', phones: [{ phone: '+14155550199' }] }])
})
