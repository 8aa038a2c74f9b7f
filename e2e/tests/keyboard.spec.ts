import type { Locator, Page } from '@playwright/test'
import { expect, test } from '../fixtures.js'

/**
 * Presses Tab until the target has focus, as a keyboard user would; fails if it never gets there. From the lead page's
 * Add contact, Delete lead is 41 stops on (round through the header, which has the Search button since issue 33).
 */
async function tabTo(page: Page, target: Locator, limit = 50): Promise<void> {
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press('Tab')
    if (await target.evaluate((el) => el === document.activeElement)) return
  }
  throw new Error(`Tab never reached ${String(target)}`)
}

/** The focused control shows where it is: a ring (box-shadow) or an outline. */
async function expectVisibleFocus(target: Locator): Promise<void> {
  const style = await target.evaluate((el) => {
    const css = getComputedStyle(el)
    return { focusVisible: el.matches(':focus-visible'), outline: css.outlineStyle, shadow: css.boxShadow }
  })
  expect(style.focusVisible).toBe(true)
  expect(style.outline !== 'none' || style.shadow !== 'none').toBe(true)
}

test('a rep signs in and works a lead with the keyboard alone', async ({ page, stack, api }) => {
  const lead = await api.createLead({ name: 'Keyboard Co' })
  await page.goto('/sign-in')
  await tabTo(page, page.getByRole('link', { name: 'Sign in with an API key' }))
  await page.keyboard.press('Enter')
  const keyField = page.getByRole('textbox', { name: 'API key' })
  await expect(keyField).toBeVisible()
  if (!(await keyField.evaluate((el) => el === document.activeElement))) await tabTo(page, keyField)
  await page.keyboard.type(stack.apiKey)
  await page.keyboard.press('Enter')
  await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible()

  await page.goto(`/leads/${lead.id}`)
  await expect(page.getByRole('heading', { name: 'Keyboard Co' })).toBeVisible()

  // Rename inline: Enter opens the editor with its input focused, Enter saves.
  const editName = page.getByRole('button', { name: 'Edit Name' })
  await tabTo(page, editName)
  await expectVisibleFocus(editName)
  await page.keyboard.press('Enter')
  await expect(page.getByRole('textbox', { name: 'Name' })).toBeFocused()
  await page.keyboard.press('ControlOrMeta+A')
  await page.keyboard.type('Keyboard Corp')
  await page.keyboard.press('Enter')
  await expect(page.getByRole('heading', { name: 'Keyboard Corp' })).toBeVisible()
  // Closing the editor gives focus back to its Edit button, not to the page: after a save and after Escape.
  await expect(editName).toBeFocused()
  await page.keyboard.press('Enter')
  await expect(page.getByRole('textbox', { name: 'Name' })).toBeFocused()
  await page.keyboard.press('Escape')
  await expect(page.getByRole('textbox', { name: 'Name' })).toHaveCount(0)
  await expect(editName).toBeFocused()

  // Add a contact: the dialog takes focus, Enter in a field submits it.
  const addContact = page.getByRole('button', { name: 'Add contact' })
  await tabTo(page, addContact)
  await page.keyboard.press('Enter')
  const dialog = page.getByRole('dialog')
  await expect(dialog.getByRole('textbox', { name: 'Name' })).toBeFocused()
  await page.keyboard.type('Kim Keys')
  await page.keyboard.press('Enter')
  await expect(dialog).toHaveCount(0)
  await expect(page.getByRole('region', { name: 'Contacts' }).getByText('Kim Keys')).toBeVisible()

  // Escape closes a dialog and gives focus back to the control that opened it.
  const deleteLead = page.getByRole('button', { name: 'Delete lead' })
  await tabTo(page, deleteLead)
  await page.keyboard.press('Enter')
  await expect(page.getByRole('dialog')).toBeVisible()
  await page.keyboard.press('Escape')
  await expect(page.getByRole('dialog')).toHaveCount(0)
  await expect(deleteLead).toBeFocused()
  await expect(page.getByRole('heading', { name: 'Keyboard Corp' })).toBeVisible()
})
