import type { Locator, Page } from '@playwright/test'
import { CrmClient, demoTest as test, expect } from '../fixtures.js'
import {
  deleteConfirmed,
  expectAccessible,
  demoUser,
  leadStatusLabels,
  pickUpWithSpace,
  rowsOf,
  signInAs,
} from '../journeys.js'

async function pipelineStatusLabels(api: CrmClient, pipelineId: string): Promise<string[]> {
  const pipeline = await api.request('GET', `pipeline/${pipelineId}/`)
  const statuses: unknown[] = Array.isArray(pipeline.statuses) ? pipeline.statuses : []
  return statuses.map((s) => (typeof s === 'object' && s !== null && 'label' in s ? String(s.label) : ''))
}

function statusList(page: Page, pipeline: string): Locator {
  return page.getByRole('region', { name: pipeline }).getByRole('list', { name: `Statuses of ${pipeline}` })
}

function savedOrder(page: Page, pipelineId: string) {
  return page.waitForResponse(
    (r) => r.url().endsWith(`/api/v1/pipeline/${pipelineId}/`) && r.request().method() === 'PUT' && r.ok(),
  )
}

test('an admin reorders statuses with Move down and a keyboard drag, moves one to another pipeline, and it sticks', async ({
  page,
  demoStack,
}) => {
  // Two pipelines set up, five moves, four boards checked: about 20 s alone, past 30 on a busy machine.
  test.setTimeout(60_000)
  const admin = demoUser(demoStack.users, 'admin')
  const api = new CrmClient(demoStack.apiUrl, admin.api_key)
  const source = await api.request('POST', 'pipeline/', {
    name: 'Reorder Pipeline',
    statuses: [{ label: 'Alpha' }, { label: 'Bravo' }, { label: 'Charlie', type: 'won' }],
  })
  const target = await api.request('POST', 'pipeline/', { name: 'Target Pipeline', statuses: [{ label: 'Delta' }] })
  const sourceId = String(source.id)
  const targetId = String(target.id)

  await signInAs(page, admin)
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'Pipelines' })).toBeVisible()
  await expect(page).toHaveURL(/\/settings\/pipelines$/)
  await expect(page).toHaveTitle('Pipelines · Settings · Leadline')
  const list = statusList(page, 'Reorder Pipeline')
  await expect(list.getByRole('listitem')).toHaveText([/Alpha/, /Bravo/, /Charlie/])
  await expect(list.getByRole('listitem').nth(2)).toContainText('won')
  await expectAccessible(page)

  let saved = savedOrder(page, sourceId)
  await list.getByRole('button', { name: 'Move down Alpha' }).click()
  await saved
  await expect(list.getByRole('listitem')).toHaveText([/Bravo/, /Alpha/, /Charlie/])
  await expect(list.getByRole('button', { name: 'Move down Alpha' })).toBeFocused()
  await expect(list.getByRole('button', { name: 'Move up Bravo' })).toBeDisabled()

  // The keyboard drag: Space picks Charlie up, the up arrow moves it above Alpha, Space drops it.
  const announcement = page.getByRole('region', { name: 'Reorder Pipeline' }).getByRole('status')
  await pickUpWithSpace(page, list.getByRole('button', { name: 'Drag Charlie' }))
  await expect(announcement).toHaveText('Picked up Charlie, at position 3 of 3 in Reorder Pipeline.')
  await page.keyboard.press('ArrowUp')
  await expect(announcement).toHaveText('Charlie is over position 2 of 3.')
  saved = savedOrder(page, sourceId)
  await page.keyboard.press('Space')
  await saved
  await expect(announcement).toHaveText('Charlie was dropped at position 2 of 3.')
  await expect(list.getByRole('listitem')).toHaveText([/Bravo/, /Charlie/, /Alpha/])

  const retyped = page.waitForResponse((r) => r.url().includes('/api/v1/status/opportunity/') && r.ok())
  await list.getByRole('combobox', { name: 'Change the type of Alpha' }).selectOption({ label: 'Lost' })
  await retyped
  await expect(list.getByRole('listitem').nth(2)).toContainText('lost')

  const moved = page.waitForResponse((r) => r.url().includes('/api/v1/status/opportunity/') && r.ok())
  await list
    .getByRole('combobox', { name: 'Move Bravo to another pipeline' })
    .selectOption({ label: 'Target Pipeline' })
  await moved
  await expect(list.getByRole('listitem')).toHaveText([/Charlie/, /Alpha/])
  await expect(statusList(page, 'Target Pipeline').getByRole('listitem')).toHaveText([/Delta/, /Bravo/])

  await page.reload()
  await expect(statusList(page, 'Reorder Pipeline').getByRole('listitem')).toHaveText([/Charlie/, /Alpha/])
  await expect(statusList(page, 'Target Pipeline').getByRole('listitem')).toHaveText([/Delta/, /Bravo/])
  expect(await pipelineStatusLabels(api, sourceId)).toEqual(['Charlie', 'Alpha'])
  expect(await pipelineStatusLabels(api, targetId)).toEqual(['Delta', 'Bravo'])
  const reloaded = await api.request('GET', `pipeline/${sourceId}/`)
  const types = (Array.isArray(reloaded.statuses) ? reloaded.statuses : []).map((s: unknown) =>
    typeof s === 'object' && s !== null && 'type' in s ? String(s.type) : '',
  )
  expect(types).toEqual(['won', 'lost'])

  // The board shows each pipeline's columns in the new order.
  for (const [id, labels] of [
    [sourceId, ['Charlie', 'Alpha']],
    [targetId, ['Delta', 'Bravo']],
  ] as const) {
    await page.goto(`/opportunities?pipeline=${id}`)
    await expect(page.getByRole('heading', { level: 2 })).toHaveText([...labels])
  }
})

test('an admin creates and deletes a pipeline; deletes the API refuses show its message', async ({
  page,
  demoStack,
}) => {
  const admin = demoUser(demoStack.users, 'admin')
  const api = new CrmClient(demoStack.apiUrl, admin.api_key)
  const holding = await api.request('POST', 'pipeline/', {
    name: 'Holding Pipeline',
    statuses: [{ label: 'Busy Stage' }],
  })
  const statuses: unknown[] = Array.isArray(holding.statuses) ? holding.statuses : []
  const busy = statuses[0]
  const busyId = typeof busy === 'object' && busy !== null && 'id' in busy ? String(busy.id) : ''
  const lead = await api.createLead({ name: 'Pipeline Settings Co' })
  await api.request('POST', 'opportunity/', { lead_id: lead.id, status_id: busyId })

  await signInAs(page, admin)
  await page.goto('/settings/pipelines')
  await page.getByRole('textbox', { name: 'New pipeline name' }).fill('Short-lived Pipeline')
  await page.getByRole('button', { name: 'Create pipeline' }).click()
  const created = page.getByRole('region', { name: 'Short-lived Pipeline' })
  await expect(created).toBeVisible()
  await expect(created).toContainText('No statuses in this pipeline yet.')
  await expect(page.getByRole('textbox', { name: 'New pipeline name' })).toHaveValue('')

  await created.getByRole('button', { name: 'Rename Short-lived Pipeline' }).click()
  await created.getByRole('textbox', { name: 'Name' }).fill('Brief Pipeline')
  await created.getByRole('button', { name: 'Save Short-lived Pipeline' }).click()
  const renamed = page.getByRole('region', { name: 'Brief Pipeline' })
  await expect(renamed.getByRole('heading', { level: 2, name: 'Brief Pipeline' })).toBeVisible()
  await expect(renamed.getByRole('button', { name: 'Rename Brief Pipeline' })).toBeFocused()

  const holdingRegion = page.getByRole('region', { name: 'Holding Pipeline' })
  await deleteConfirmed(page, holdingRegion, 'Holding Pipeline')
  await expect(holdingRegion.getByRole('alert')).toHaveText(
    'This pipeline still holds 1 opportunity status: move them to another pipeline or delete them first.',
  )
  await deleteConfirmed(page, holdingRegion, 'Busy Stage')
  await expect(holdingRegion.getByRole('listitem').getByRole('alert')).toHaveText(
    'This status is still used by 1 opportunities: move them to another status first.',
  )
  await expectAccessible(page)

  // Cancel keeps it; confirming deletes it.
  await renamed.getByRole('button', { name: 'Delete Brief Pipeline' }).click()
  const asking = page.getByRole('dialog', { name: 'Delete Brief Pipeline?' })
  await expect(asking.getByRole('button', { name: 'Cancel' })).toBeFocused()
  await asking.getByRole('button', { name: 'Cancel' }).click()
  await expect(asking).toHaveCount(0)
  await expect(renamed).toBeVisible()
  await deleteConfirmed(page, renamed, 'Brief Pipeline')
  await expect(renamed).toHaveCount(0)
  const pipelines = await api.request('GET', 'pipeline/')
  const names = (Array.isArray(pipelines.data) ? pipelines.data : []).map((p: unknown) =>
    typeof p === 'object' && p !== null && 'name' in p ? String(p.name) : '',
  )
  expect(names).toContain('Holding Pipeline')
  expect(names).not.toContain('Brief Pipeline')
  expect(names).not.toContain('Short-lived Pipeline')
})

test('an admin adds, renames and deletes a lead status; one in use is refused with the API message', async ({
  page,
  demoStack,
}) => {
  const admin = demoUser(demoStack.users, 'admin')
  const api = new CrmClient(demoStack.apiUrl, admin.api_key)
  const inUse = await api.request('POST', 'status/lead/', { label: 'Occupied' })
  await api.createLead({ name: 'Lead Status Settings Co', status_id: String(inUse.id) })

  await signInAs(page, admin)
  await page.goto('/settings/pipelines')
  await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Lead statuses' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'Lead statuses' })).toBeVisible()
  await expect(page).toHaveTitle('Lead statuses · Settings · Leadline')
  const list = page.getByRole('list', { name: 'Lead statuses' })

  await page.getByRole('textbox', { name: 'New lead status' }).fill('Freshly added')
  await page.getByRole('button', { name: 'Add lead status' }).click()
  await expect(list.getByRole('listitem').filter({ hasText: 'Freshly added' })).toBeVisible()

  await list.getByRole('button', { name: 'Rename Freshly added' }).click()
  const field = list.getByRole('textbox', { name: 'Name' })
  await expect(field).toBeFocused()
  await field.fill('')
  await list.getByRole('button', { name: 'Save Freshly added' }).click()
  await expect(list.getByRole('textbox', { name: 'Name' })).toHaveAccessibleDescription(/./)
  await field.fill('Renamed status')
  await field.press('Enter')
  await expect(list.getByRole('button', { name: 'Rename Renamed status' })).toBeFocused()

  await deleteConfirmed(page, list, 'Occupied')
  await expect(list.getByRole('alert')).toHaveText(
    'This status is still used by 1 leads: move them to another status first.',
  )
  await expectAccessible(page)

  await deleteConfirmed(page, list, 'Renamed status')
  await expect(list.getByRole('listitem').filter({ hasText: 'Renamed status' })).toHaveCount(0)
  const leadStatuses = await api.request('GET', 'status/lead/')
  const labels = (Array.isArray(leadStatuses.data) ? leadStatuses.data : []).map((s: unknown) =>
    typeof s === 'object' && s !== null && 'label' in s ? String(s.label) : '',
  )
  expect(labels).toContain('Occupied')
  expect(labels).not.toContain('Renamed status')
  expect(labels).not.toContain('Freshly added')
})

test('an admin reorders lead statuses with Move up and a keyboard drag; the order sticks and status pickers follow it', async ({
  page,
  demoStack,
}) => {
  const admin = demoUser(demoStack.users, 'admin')
  const api = new CrmClient(demoStack.apiUrl, admin.api_key)
  const lead = await api.createLead({ name: 'Status Order Co' })
  const before = await leadStatusLabels(api)
  const [first, second, third, ...rest] = before
  if (first === undefined || second === undefined || third === undefined)
    throw new Error('the demo organization has fewer than three lead statuses')
  const count = String(before.length)
  const saved = () =>
    page.waitForResponse(
      (r) => /\/api\/v1\/organization\/[^/]+\/$/.test(r.url()) && r.request().method() === 'PUT' && r.ok(),
    )

  await signInAs(page, admin)
  await page.goto('/settings/lead-statuses')
  const list = page.getByRole('list', { name: 'Lead statuses' })
  await expect(list.getByRole('listitem')).toHaveText(rowsOf(before))

  let save = saved()
  await list.getByRole('button', { name: `Move up ${second}` }).click()
  await save
  await expect(list.getByRole('listitem')).toHaveText(rowsOf([second, first, third, ...rest]))
  await expect(list.getByRole('button', { name: `Move down ${second}` })).toBeFocused()

  // The keyboard drag: Space picks the third up, two presses of the up arrow take it to the top, Space drops it.
  const announcement = page.getByRole('main').getByRole('status')
  await pickUpWithSpace(page, list.getByRole('button', { name: `Drag ${third}` }))
  await expect(announcement).toHaveText(`Picked up ${third}, at position 3 of ${count} in the lead statuses.`)
  await page.keyboard.press('ArrowUp')
  await expect(announcement).toHaveText(`${third} is over position 2 of ${count}.`)
  await page.keyboard.press('ArrowUp')
  await expect(announcement).toHaveText(`${third} is over position 1 of ${count}.`)
  save = saved()
  await page.keyboard.press('Space')
  await save
  await expect(announcement).toHaveText(`${third} was dropped at position 1 of ${count}.`)
  const after = [third, second, first, ...rest]
  await expect(list.getByRole('listitem')).toHaveText(rowsOf(after))
  await expectAccessible(page)

  await page.reload()
  await expect(page.getByRole('list', { name: 'Lead statuses' }).getByRole('listitem')).toHaveText(rowsOf(after))
  expect(await leadStatusLabels(api)).toEqual(after)

  await page.goto(`/leads/${lead.id}`)
  await expect(page.getByRole('combobox', { name: 'Status' }).getByRole('option')).toHaveText(after)
})

test('a rep sees no Settings link and a friendly page at a settings URL', async ({ page, demoStack }) => {
  const rep = demoUser(demoStack.users, 'rep')
  await signInAs(page, rep)
  const nav = page.getByRole('navigation', { name: 'Main' })
  await expect(nav.getByRole('link', { name: 'Leads' })).toBeVisible()
  await expect(nav.getByRole('link', { name: 'Settings' })).toHaveCount(0)

  await page.goto('/settings/pipelines')
  await expect(page.getByRole('heading', { level: 1, name: 'Only admins can change settings' })).toBeVisible()
  await expect(page.getByRole('heading', { name: 'Pipelines' })).toHaveCount(0)
  await expect(page.getByRole('alert')).toHaveCount(0)
  await expect(page.getByRole('link', { name: 'Back to leads' })).toBeVisible()
  await expectAccessible(page)
})
