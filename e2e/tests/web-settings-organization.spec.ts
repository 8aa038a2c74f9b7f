import type { Page } from '@playwright/test'
import { CrmClient, demoTest as test, expect } from '../fixtures.js'
import {
  deleteConfirmed,
  expectAccessible,
  demoUser,
  jsonList,
  leadStatusLabels,
  pickUpWithSpace,
  rowsOf,
  signInAs,
} from '../journeys.js'

async function outcomeNames(api: CrmClient): Promise<string[]> {
  return jsonList((await api.request('GET', 'outcome/')).data).map((o) => String(o.name))
}

/** The organization saved (a new order of outcomes or lead statuses, a new name). */
function organizationSaved(page: Page) {
  return page.waitForResponse(
    (r) => /\/api\/v1\/organization\/[^/]+\/$/.test(r.url()) && r.request().method() === 'PUT' && r.ok(),
  )
}

test('an admin reorders call outcomes and lead statuses; the order holds after a reload and through the API', async ({
  page,
  demoStack,
}) => {
  test.setTimeout(60_000)
  const admin = demoUser(demoStack.users, 'admin')
  const api = new CrmClient(demoStack.apiUrl, admin.api_key)
  const before = await outcomeNames(api)
  const [first, second, third, ...rest] = before
  const last = rest.at(-1)
  if (first === undefined || second === undefined || third === undefined || last === undefined)
    throw new Error('the demo organization has fewer than four call outcomes')
  const count = String(before.length)

  await signInAs(page, admin)
  await page.goto('/settings/pipelines')
  await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Call outcomes' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'Call outcomes' })).toBeVisible()
  await expect(page).toHaveURL(/\/settings\/call-outcomes$/)
  await expect(page).toHaveTitle('Call outcomes · Settings · Leadline')
  const list = page.getByRole('list', { name: 'Call outcomes' })
  await expect(list.getByRole('listitem')).toHaveText(rowsOf(before))

  let saved = organizationSaved(page)
  await list.getByRole('button', { name: `Move down ${first}` }).click()
  await saved
  await expect(list.getByRole('listitem')).toHaveText(rowsOf([second, first, third, ...rest]))
  await expect(list.getByRole('button', { name: `Move down ${first}` })).toBeFocused()
  await expect(list.getByRole('button', { name: `Move up ${second}` })).toBeDisabled()

  // The keyboard drag: Space picks the last one up, the up arrow moves it one place, Space drops it.
  const announcement = page.getByRole('main').getByRole('status')
  await pickUpWithSpace(page, list.getByRole('button', { name: `Drag ${last}` }))
  await expect(announcement).toHaveText(`Picked up ${last}, at position ${count} of ${count} in the call outcomes.`)
  await page.keyboard.press('ArrowUp')
  const above = String(before.length - 1)
  await expect(announcement).toHaveText(`${last} is over position ${above} of ${count}.`)
  saved = organizationSaved(page)
  await page.keyboard.press('Space')
  await saved
  await expect(announcement).toHaveText(`${last} was dropped at position ${above} of ${count}.`)
  const middle = rest.slice(0, -1)
  const after = [second, first, third, ...middle.slice(0, -1), last, ...middle.slice(-1)]
  await expect(list.getByRole('listitem')).toHaveText(rowsOf(after))
  await expectAccessible(page)

  await page.reload()
  await expect(page.getByRole('list', { name: 'Call outcomes' }).getByRole('listitem')).toHaveText(rowsOf(after))
  expect(await outcomeNames(api)).toEqual(after)

  // Lead statuses, on their own screen, the same way.
  const statuses = await leadStatusLabels(api)
  const [top, next, ...others] = statuses
  if (top === undefined || next === undefined) throw new Error('the demo organization has fewer than two lead statuses')
  await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Lead statuses' }).click()
  const statusList = page.getByRole('list', { name: 'Lead statuses' })
  await expect(statusList.getByRole('listitem')).toHaveText(rowsOf(statuses))
  saved = organizationSaved(page)
  await statusList.getByRole('button', { name: `Move up ${next}` }).click()
  await saved
  const reordered = [next, top, ...others]
  await expect(statusList.getByRole('listitem')).toHaveText(rowsOf(reordered))
  await page.reload()
  await expect(page.getByRole('list', { name: 'Lead statuses' }).getByRole('listitem')).toHaveText(rowsOf(reordered))
  expect(await leadStatusLabels(api)).toEqual(reordered)
})

test('an admin deletes a pipeline after deleting its only status, which no opportunity uses', async ({
  page,
  demoStack,
}) => {
  const admin = demoUser(demoStack.users, 'admin')
  const api = new CrmClient(demoStack.apiUrl, admin.api_key)
  await api.request('POST', 'pipeline/', { name: 'Retired Pipeline', statuses: [{ label: 'Unused Stage' }] })

  await signInAs(page, admin)
  await page.goto('/settings/pipelines')
  const region = page.getByRole('region', { name: 'Retired Pipeline' })
  const statuses = region.getByRole('list', { name: 'Statuses of Retired Pipeline' })
  await expect(statuses.getByRole('listitem')).toHaveText([/Unused Stage/])

  await deleteConfirmed(page, region, 'Unused Stage')
  await expect(region).toContainText('No statuses in this pipeline yet.')
  await expect(region.getByRole('alert')).toHaveCount(0)
  await deleteConfirmed(page, region, 'Retired Pipeline')
  await expect(region).toHaveCount(0)
  await expectAccessible(page)

  await page.reload()
  await expect(page.getByRole('heading', { level: 1, name: 'Pipelines' })).toBeVisible()
  await expect(page.getByRole('region', { name: 'Retired Pipeline' })).toHaveCount(0)
  const pipelines = jsonList((await api.request('GET', 'pipeline/')).data).map((p) => String(p.name))
  expect(pipelines).not.toContain('Retired Pipeline')
})

test('an admin adds a phone number, shows and rotates the inbound secret, and renames the organization', async ({
  page,
  demoStack,
}) => {
  test.setTimeout(60_000)
  const admin = demoUser(demoStack.users, 'admin')
  const api = new CrmClient(demoStack.apiUrl, admin.api_key)

  await signInAs(page, admin)
  await page.goto('/settings/pipelines')
  await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Phone numbers' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'Phone numbers' })).toBeVisible()
  await expect(page).toHaveTitle('Phone numbers · Settings · Leadline')
  await expect(page.getByRole('region', { name: 'Texts' })).toContainText(
    'None: texts are written to the server log and not sent',
  )

  await page.getByRole('button', { name: 'Add phone number' }).click()
  const dialog = page.getByRole('dialog', { name: 'Add phone number' })
  await expect(dialog.getByRole('textbox', { name: 'Number' })).toBeFocused()
  await dialog.getByRole('textbox', { name: 'Number' }).fill('not a number')
  await dialog.getByRole('button', { name: 'Add phone number' }).click()
  await expect(dialog.getByRole('textbox', { name: 'Number' })).toHaveAccessibleDescription(
    /Enter a valid phone number\./,
  )
  await dialog.getByRole('textbox', { name: 'Number' }).fill('+1 415 555 0199')
  await dialog.getByRole('textbox', { name: 'Label' }).fill('Front desk')
  await dialog.getByRole('button', { name: 'Add phone number' }).click()
  await expect(dialog).toHaveCount(0)
  const table = page.getByRole('table', { name: 'Phone numbers' })
  const row = table.getByRole('row').filter({ hasText: 'Front desk' })
  await expect(row).toBeVisible()
  const numbers = jsonList((await api.request('GET', 'phone_number/')).data)
  expect(numbers.map((n) => [n.number, n.label, n.type])).toContainEqual(['+14155550199', 'Front desk', 'internal'])

  const secretSection = page.getByRole('region', { name: 'Inbound secret' })
  await secretSection.getByRole('button', { name: 'Show' }).click()
  const shown = secretSection.getByLabel('Inbound secret', { exact: true })
  await expect(shown).toHaveText(/^whsec_/)
  const before = (await shown.textContent()) ?? ''
  expect(before).toEqual(String((await api.request('GET', 'inbound/secret/')).secret))
  await expectAccessible(page)

  await secretSection.getByRole('button', { name: 'Rotate' }).click()
  const asking = page.getByRole('dialog', { name: 'Rotate the inbound secret?' })
  await expect(asking.getByRole('button', { name: 'Cancel' })).toBeFocused()
  await asking.getByRole('button', { name: 'Rotate' }).click()
  await expect(asking).toHaveCount(0)
  await expect(shown).not.toHaveText(before)
  await expect(shown).toHaveText(/^whsec_/)
  const rotated = String((await api.request('GET', 'inbound/secret/')).secret)
  expect(rotated).not.toEqual(before)
  await expect(shown).toHaveText(rotated)

  await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Organization' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'Organization' })).toBeVisible()
  const environment = page.getByRole('region', { name: 'Set by the server' })
  await expect(environment).toContainText('Completed tasks kept')
  await expect(environment).toContainText('Event log kept')
  const name = page.getByRole('textbox', { name: 'Name' })
  const original = await name.inputValue()
  await name.fill('')
  await page.getByRole('button', { name: 'Save organization' }).click()
  await expect(name).toHaveAccessibleDescription(/./)
  await name.fill(`${original} Renamed`)
  const saved = organizationSaved(page)
  await page.getByRole('button', { name: 'Save organization' }).click()
  await saved
  await expectAccessible(page)
  await page.reload()
  await expect(page.getByRole('textbox', { name: 'Name' })).toHaveValue(`${original} Renamed`)
  // The demo organization: the stack's own `organizationId` is the one `leadline init` made beside it.
  const organizationId = String(jsonList((await api.request('GET', 'me/')).organizations)[0]?.id)
  expect((await api.request('GET', `organization/${organizationId}/`)).name).toBe(`${original} Renamed`)
})
