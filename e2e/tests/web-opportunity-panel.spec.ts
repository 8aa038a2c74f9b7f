import type { Page } from '@playwright/test'
import { formatMoney } from '@leadline/shared/money'
import { CrmClient, demoTest as test, expect, type DemoUser } from '../fixtures.js'
import { jsonList, boardColumn, expectAccessible } from '../journeys.js'

interface Setup {
  crm: CrmClient
  pipelineName: string
  currency: string
  statuses: Record<string, string>
  leadName: string
  leadId: string
  opportunityId: string
  /** Another member of the organization, to hand the opportunity to. */
  other: { id: string; name: string }
}

let pipelines = 0

/** A pipeline of its own, one lead with a $1,000 opportunity in Prospect, and the admin signed in on its board. */
async function openBoard(page: Page, users: DemoUser[], apiUrl: string): Promise<Setup> {
  const admin = users.find((u) => u.title === 'admin')
  if (admin === undefined) throw new Error('the demo seed has no admin')
  const crm = new CrmClient(apiUrl, admin.api_key)
  pipelines += 1
  const pipelineName = `Panel ${String(pipelines)}`
  const pipeline = await crm.request('POST', 'pipeline/', {
    name: pipelineName,
    statuses: [{ label: 'Prospect' }, { label: 'Proposal' }],
  })
  const statuses = Object.fromEntries(jsonList(pipeline.statuses).map((s) => [String(s.label), String(s.id)]))
  const organization = await crm.request('GET', `organization/${String(pipeline.organization_id)}/`)
  const member = jsonList(organization.memberships).find((m) => m.user_email !== admin.email)
  if (member === undefined) throw new Error('the demo seed has a single member')
  const leadName = `Initech ${pipelineName}`
  const lead = await crm.createLead({ name: leadName })
  const opportunity = await crm.request('POST', 'opportunity/', {
    lead_id: lead.id,
    status_id: statuses.Prospect,
    value: 100_000,
    confidence: 20,
  })
  await page.goto('/sign-in')
  await page
    .getByRole('region', { name: 'Try the demo organization' })
    .getByRole('button', { name: `Sign in as ${admin.first_name} ${admin.last_name}` })
    .click()
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Opportunities' }).click()
  await page.getByRole('combobox', { name: 'Pipeline' }).selectOption(pipelineName)
  await expect(page).toHaveURL(new RegExp(`pipeline=${String(pipeline.id)}`))
  return {
    crm,
    pipelineName,
    currency: String(organization.currency),
    statuses,
    leadName,
    leadId: lead.id,
    opportunityId: String(opportunity.id),
    other: { id: String(member.user_id), name: String(member.user_full_name) },
  }
}

test('a card opens its side panel, which saves changes, refuses a bad value and reopens from the URL', async ({
  page,
  demoStack,
}) => {
  const s = await openBoard(page, demoStack.users, demoStack.apiUrl)
  const open = page.getByRole('button', { name: `Open ${s.leadName} opportunity` })
  await open.click()
  const panel = page.getByRole('dialog', { name: s.leadName })
  await expect(panel).toBeVisible()
  await expect(page).toHaveURL(new RegExp(`opportunity=${s.opportunityId}`))
  await expect(panel.getByRole('textbox', { name: 'Value' })).toHaveValue('1000')
  await expectAccessible(page)

  // A confidence over 100 is refused beside its field, and nothing is sent.
  await panel.getByRole('textbox', { name: 'Confidence (%)' }).fill('150')
  await panel.getByRole('button', { name: 'Save opportunity' }).click()
  await expect(panel.getByText('Enter a whole number from 0 to 100.')).toBeVisible()
  await expect(panel.getByRole('textbox', { name: 'Confidence (%)' })).toHaveAttribute('aria-invalid', 'true')
  expect((await s.crm.request('GET', `opportunity/${s.opportunityId}/`)).confidence).toBe(20)

  await panel.getByRole('textbox', { name: 'Value' }).fill('2,500.50')
  await panel.getByRole('textbox', { name: 'Confidence (%)' }).fill('60')
  await panel.getByRole('combobox', { name: 'Owner' }).selectOption(s.other.id)
  await panel.getByRole('button', { name: 'Save opportunity' }).click()
  await expect(panel).toBeHidden()
  await expect(open).toBeFocused()
  await expect(page.getByRole('status').filter({ hasText: `Opportunity of ${s.leadName} saved` })).toBeVisible()
  const saved = await s.crm.request('GET', `opportunity/${s.opportunityId}/`)
  expect([saved.value, saved.confidence, saved.user_id]).toEqual([250_050, 60, s.other.id])
  const card = boardColumn(page, 'Prospect').getByRole('article', { name: s.leadName })
  await expect(card).toContainText('$2,500.50')
  await expect(card).toContainText('60% confidence')
  await expect(card).toContainText(s.other.name)
  await expect(boardColumn(page, 'Prospect').locator('header')).toContainText(
    `${formatMoney(250_050, s.currency)} annualized`,
  )

  // The open panel is in the URL: a reload opens it again, and Escape closes it.
  await open.click()
  await expect(panel).toBeVisible()
  await page.reload()
  await expect(page.getByRole('dialog', { name: s.leadName })).toBeVisible()
  await page.keyboard.press('Escape')
  await expect(page.getByRole('dialog', { name: s.leadName })).toBeHidden()
  await expect(page).not.toHaveURL(/opportunity=/)
})

test('the side panel deletes an opportunity after a confirmation', async ({ page, demoStack }) => {
  const s = await openBoard(page, demoStack.users, demoStack.apiUrl)
  // A click on the card itself, away from its links and buttons, opens it as the Open button does.
  await boardColumn(page, 'Prospect').getByRole('article', { name: s.leadName }).getByText('% confidence').click()
  const panel = page.getByRole('dialog', { name: s.leadName })
  await expect(page).toHaveURL(/opportunity=oppo_/)
  await panel.getByRole('button', { name: 'Delete opportunity' }).click()
  const confirm = page.getByRole('dialog', { name: 'Delete opportunity' })
  await confirm.getByRole('button', { name: 'Delete', exact: true }).click()
  await expect(panel).toBeHidden()
  await expect(boardColumn(page, 'Prospect').getByRole('article', { name: s.leadName })).toHaveCount(0)
  await expect(s.crm.request('GET', `opportunity/${s.opportunityId}/`)).rejects.toThrow(/404/)
})

test('New opportunity on the board finds the lead by search and adds it to the pipeline shown', async ({
  page,
  demoStack,
}) => {
  const s = await openBoard(page, demoStack.users, demoStack.apiUrl)
  const leadName = `Hooli ${s.pipelineName}`
  const lead = await s.crm.createLead({ name: leadName })
  await page.getByRole('button', { name: 'New opportunity' }).click()
  const dialog = page.getByRole('dialog', { name: 'New opportunity' })
  await dialog.getByRole('combobox', { name: 'Lead' }).fill('Hooli')
  await page.getByRole('option', { name: leadName }).click()
  await expect(dialog.getByRole('combobox', { name: 'Status' })).toHaveValue(s.statuses.Prospect ?? '')
  await dialog.getByRole('textbox', { name: 'Value' }).fill('300')
  await dialog.getByRole('textbox', { name: 'Confidence (%)' }).fill('40')
  await expectAccessible(page)
  await dialog.getByRole('button', { name: 'Add opportunity' }).click()
  await expect(dialog).toBeHidden()
  const card = boardColumn(page, 'Prospect').getByRole('article', { name: leadName })
  await expect(card).toContainText('$300')
  const stored = jsonList((await s.crm.request('GET', `opportunity/?lead_id=${lead.id}`)).data)
  expect(stored.map((o) => [o.value, o.confidence, o.status_id])).toEqual([[30_000, 40, s.statuses.Prospect]])
})

test('the lead page adds an opportunity and edits one with the same form', async ({ page, demoStack }) => {
  const s = await openBoard(page, demoStack.users, demoStack.apiUrl)
  await page.goto(`/leads/${s.leadId}`)
  const opportunities = page.getByRole('region', { name: 'Opportunities' })
  await opportunities.getByRole('button', { name: 'New opportunity' }).click()
  const dialog = page.getByRole('dialog', { name: 'New opportunity' })
  await dialog.getByRole('combobox', { name: 'Pipeline' }).selectOption(s.pipelineName)
  await dialog.getByRole('combobox', { name: 'Status' }).selectOption('Proposal')
  await dialog.getByRole('textbox', { name: 'Value' }).fill('75')
  await dialog.getByRole('button', { name: 'Add opportunity' }).click()
  await expect(dialog).toBeHidden()
  await expect(opportunities.getByRole('listitem').filter({ hasText: 'Proposal' })).toContainText('$75')

  await opportunities.getByRole('button', { name: 'Edit Prospect opportunity' }).click()
  const edit = page.getByRole('dialog', { name: 'Edit opportunity' })
  await edit.getByRole('textbox', { name: 'Note' }).fill('Budget approved')
  await edit.getByRole('button', { name: 'Save opportunity' }).click()
  await expect(edit).toBeHidden()
  await expect(opportunities.getByRole('listitem').filter({ hasText: 'Prospect' })).toContainText('Budget approved')
  const stored = jsonList((await s.crm.request('GET', `opportunity/?lead_id=${s.leadId}`)).data)
  expect(stored.map((o) => [o.status_label, o.value, o.note]).sort()).toEqual([
    ['Proposal', 7500, ''],
    ['Prospect', 100_000, 'Budget approved'],
  ])
})
