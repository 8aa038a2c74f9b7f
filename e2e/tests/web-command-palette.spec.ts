import type { Page } from '@playwright/test'
import { CrmClient, demoTest as test, expect } from '../fixtures.js'
import { demoUser, expectAccessible, signInAs } from '../journeys.js'

// The command palette (issue 33): Ctrl-K on any screen finds leads, contacts and opportunities as one types, jumps to
// screens and runs actions, all by keyboard.

function palette(page: Page) {
  return page.getByRole('dialog', { name: 'Command palette' })
}

/** Opens the palette with Ctrl-K and waits for its input to take the focus (its code loads on first use). */
async function openPalette(page: Page) {
  await page.keyboard.press('Control+K')
  const input = palette(page).getByRole('combobox', { name: 'Search leads, contacts, opportunities or commands' })
  await expect(input).toBeFocused()
  return input
}

test('Ctrl-K to a lead, by keyboard only', async ({ page, demoStack }) => {
  const rep = demoUser(demoStack.users, 'rep')
  const crm = new CrmClient(demoStack.apiUrl, rep.api_key)
  const stamp = String(Date.now()).slice(-6)
  await crm.createLead({ name: `Palettewalker ${stamp} One` })
  await crm.createLead({
    name: `Palettewalker ${stamp} Two`,
    contacts: [{ name: `Quinn Palettewalker ${stamp}`, emails: [{ email: `quinn.${stamp}@palette.test` }] }],
  })
  await signInAs(page, rep)
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible()

  await openPalette(page)
  await page.keyboard.type(`palettewalker ${stamp}`)
  const leads = palette(page).getByRole('group', { name: 'Leads' }).getByRole('option')
  // The most recently changed lead first, as the leads list orders them; the matching contact in a group of its own.
  await expect(leads).toHaveText([new RegExp(`Palettewalker ${stamp} Two`), new RegExp(`Palettewalker ${stamp} One`)])
  const contacts = palette(page).getByRole('group', { name: 'Contacts' }).getByRole('option')
  await expect(contacts).toHaveText([new RegExp(`Quinn Palettewalker ${stamp}.*quinn\\.${stamp}@palette\\.test`)])
  // On a phone the contact's name still shows whole; its address and lead are what is cut short.
  const viewport = page.viewportSize()
  await page.setViewportSize({ width: 390, height: 844 })
  const name = contacts.first().getByText(`Quinn Palettewalker ${stamp}`, { exact: true })
  expect(await name.evaluate((label) => label.scrollWidth - label.clientWidth)).toBeLessThanOrEqual(0)
  if (viewport !== null) await page.setViewportSize(viewport)
  await expectAccessible(page)
  await expect(leads.first()).toHaveAttribute('aria-selected', 'true')
  await page.keyboard.press('ArrowDown')
  await expect(leads.nth(1)).toHaveAttribute('aria-selected', 'true')
  await page.keyboard.press('Enter')

  await expect(palette(page)).toHaveCount(0)
  await expect(page.getByRole('heading', { level: 1, name: `Palettewalker ${stamp} One` })).toBeVisible()
  await expect(page).toHaveURL(/\/leads\/lead_/)

  // On a lead's page the palette offers to log a call on it.
  await openPalette(page)
  await page.keyboard.type('log call')
  await expect(palette(page).getByRole('option', { name: 'Log a call' })).toHaveAttribute('aria-selected', 'true')
  await page.keyboard.press('Enter')
  const logCall = page.getByRole('dialog', { name: 'Log a call' })
  await expect(logCall.getByRole('button', { name: 'Log call' })).toBeVisible()
  await page.keyboard.press('Escape')
  await expect(logCall).toHaveCount(0)
})

test('the palette jumps to a screen, and Escape gives the focus back', async ({ page, demoStack }) => {
  const rep = demoUser(demoStack.users, 'rep')
  await signInAs(page, rep)
  // Signed in, the screen's heading takes the focus once it shows; the button is focused after that.
  await expect(page.getByRole('heading', { level: 1 })).toBeFocused()
  const button = page.getByRole('button', { name: 'Search and commands' })
  await button.focus()
  await page.keyboard.press('Enter')
  await expect(palette(page).getByRole('combobox')).toBeFocused()
  // Before anything is typed: the screens and the actions, but no Log a call off a lead's page.
  await expect(palette(page).getByRole('group', { name: 'Screens' }).getByRole('option')).toHaveText([
    'Inbox',
    'Leads',
    'Opportunities',
    'Reports',
    'Profile',
  ])
  await expect(palette(page).getByRole('group', { name: 'Actions' }).getByRole('option')).toHaveText([
    'New lead',
    'New task',
  ])
  await expectAccessible(page)
  await page.keyboard.press('Escape')
  await expect(palette(page)).toHaveCount(0)
  await expect(button).toBeFocused()

  await openPalette(page)
  await page.keyboard.type('repo')
  await expect(palette(page).getByRole('option', { name: 'Reports' })).toHaveAttribute('aria-selected', 'true')
  await page.keyboard.press('Enter')
  await expect(page.getByRole('heading', { level: 1, name: 'Reports' })).toBeVisible()
  await expect(page).toHaveURL(/\/reports/)
})

test('New lead and New task from the palette', async ({ page, demoStack }) => {
  const rep = demoUser(demoStack.users, 'rep')
  const stamp = String(Date.now()).slice(-6)
  await signInAs(page, rep)

  await openPalette(page)
  await page.keyboard.type('new lead')
  await expect(palette(page).getByRole('option', { name: 'New lead' })).toHaveAttribute('aria-selected', 'true')
  await page.keyboard.press('Enter')
  const newLead = page.getByRole('dialog', { name: 'New lead' })
  await newLead.getByRole('textbox', { name: 'Name' }).fill(`Palette Made ${stamp}`)
  await newLead.getByRole('button', { name: 'Create lead' }).click()
  await expect(page.getByRole('heading', { level: 1, name: `Palette Made ${stamp}` })).toBeVisible()

  // On the lead's page, New task is for that lead.
  await openPalette(page)
  await page.keyboard.type('new task')
  await page.keyboard.press('Enter')
  const newTask = page.getByRole('dialog', { name: 'New task' })
  await expect(newTask.getByText(`For Palette Made ${stamp}`)).toBeVisible()
  await expect(newTask.getByRole('textbox', { name: 'Task' })).toBeFocused()
  await page.keyboard.type('Send the palette proposal')
  await expectAccessible(page)
  await page.keyboard.press('Enter')
  await expect(newTask).toHaveCount(0)
  await expect(page.getByText('Send the palette proposal')).toBeVisible()
})
