import { expect, signIn, test } from '../fixtures.js'

test('a rep adds an address to a lead, changes its city and removes it', async ({ page, stack, api }) => {
  const lead = await api.createLead({ name: 'Address Journey Co' })
  await signIn(page, stack.apiKey)
  await page.goto(`/leads/${lead.id}`)
  const addresses = page.getByRole('region', { name: 'Addresses' })
  await expect(addresses.getByText('No addresses.')).toBeVisible()

  await addresses.getByRole('button', { name: 'Edit addresses' }).click()
  const dialog = page.getByRole('dialog', { name: 'Edit addresses' })
  await dialog.getByRole('button', { name: 'Add address' }).click()
  const first = dialog.getByRole('group', { name: 'Address 1' })
  await first.getByRole('combobox', { name: 'Kind' }).selectOption('mailing')
  await first.getByRole('textbox', { name: 'Street', exact: true }).fill('1 Harbor Way')
  await first.getByRole('textbox', { name: 'City' }).fill('Newport Beach')
  await first.getByRole('textbox', { name: 'State' }).fill('CA')
  await first.getByRole('textbox', { name: 'ZIP' }).fill('92660')
  await first.getByRole('textbox', { name: 'Country code' }).fill('US')
  await dialog.getByRole('button', { name: 'Save addresses' }).click()
  await expect(dialog).toHaveCount(0)
  await expect(addresses.getByText('1 Harbor Way')).toBeVisible()
  await expect(addresses.getByText('Newport Beach, CA 92660')).toBeVisible()
  await expect(addresses.getByText('mailing')).toBeVisible()

  await addresses.getByRole('button', { name: 'Edit addresses' }).click()
  await expect(first.getByRole('textbox', { name: 'City' })).toHaveValue('Newport Beach')
  await first.getByRole('textbox', { name: 'City' }).fill('Irvine')
  await dialog.getByRole('button', { name: 'Save addresses' }).click()
  await expect(dialog).toHaveCount(0)
  await page.reload()
  await expect(addresses.getByText('Irvine, CA 92660')).toBeVisible()
  await expect(addresses.getByText('Newport Beach')).toHaveCount(0)
  expect((await api.request('GET', `lead/${lead.id}/`)).addresses).toMatchObject([
    { label: 'mailing', address_1: '1 Harbor Way', city: 'Irvine', state: 'CA', zipcode: '92660', country: 'US' },
  ])

  await addresses.getByRole('button', { name: 'Edit addresses' }).click()
  await first.getByRole('button', { name: 'Remove address 1' }).click()
  await expect(first).toHaveCount(0)
  await dialog.getByRole('button', { name: 'Save addresses' }).click()
  await expect(dialog).toHaveCount(0)
  await expect(addresses.getByText('No addresses.')).toBeVisible()
  await page.reload()
  await expect(addresses.getByText('No addresses.')).toBeVisible()
  expect((await api.request('GET', `lead/${lead.id}/`)).addresses).toEqual([])
})

test('removing an address moves the focus to the next one’s Remove, the one before, or Add address', async ({
  page,
  stack,
  api,
}) => {
  const lead = await api.createLead({
    name: 'Three Sites Co',
    addresses: [
      { label: 'business', address_1: '1 First St', city: 'Austin' },
      { label: 'mailing', address_1: '2 Second St', city: 'Boston' },
      { label: 'other', address_1: '3 Third St', city: 'Chicago' },
    ],
  })
  await signIn(page, stack.apiKey)
  await page.goto(`/leads/${lead.id}`)
  await page.getByRole('region', { name: 'Addresses' }).getByRole('button', { name: 'Edit addresses' }).click()
  const dialog = page.getByRole('dialog', { name: 'Edit addresses' })
  const address = (n: number) => dialog.getByRole('group', { name: `Address ${String(n)}` })
  const remove = (n: number) => dialog.getByRole('button', { name: `Remove address ${String(n)}` })

  await remove(1).focus()
  await page.keyboard.press('Enter')
  await expect(address(1).getByRole('textbox', { name: 'City' })).toHaveValue('Boston')
  await expect(address(2).getByRole('textbox', { name: 'City' })).toHaveValue('Chicago')
  await expect(remove(1)).toBeFocused()

  await remove(2).focus()
  await page.keyboard.press('Enter')
  await expect(address(2)).toHaveCount(0)
  await expect(remove(1)).toBeFocused()
  await expect(address(1).getByRole('combobox', { name: 'Kind' })).toHaveValue('mailing')

  await page.keyboard.press('Enter')
  await expect(address(1)).toHaveCount(0)
  await expect(dialog.getByRole('button', { name: 'Add address' })).toBeFocused()
  await dialog.getByRole('button', { name: 'Save addresses' }).click()
  await expect(dialog).toHaveCount(0)
  expect((await api.request('GET', `lead/${lead.id}/`)).addresses).toEqual([])
})
