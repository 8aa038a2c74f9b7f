import type { Browser, Page, Response } from '@playwright/test'
import { CrmClient, demoTest as test, expect, type DemoUser } from '../fixtures.js'
import { boardColumn, demoUser, jsonList, signInAs } from '../journeys.js'

// Live updates: what one user changes shows on another user's open screen within 2 seconds, without a reload.

const LIVE_MS = 2000

let runs = 0

/**
 * Runs `load` (a sign-in, a page load) and waits until the app follows the live updates again. The stream's answer
 * begins once the BFF follows the organization's events: from then on nothing is missed.
 */
async function streamingAfter(page: Page, load: () => Promise<unknown>): Promise<void> {
  const streaming = page.waitForResponse((r) => new URL(r.url()).pathname === '/events' && r.status() === 200)
  await load()
  await streaming
}

/** A browser of its own (cookies included) for a demo user, signed in, its live-update stream open. */
async function signedInBrowser(browser: Browser, baseURL: string, user: DemoUser): Promise<Page> {
  const context = await browser.newContext({ baseURL })
  const page = await context.newPage()
  await streamingAfter(page, () => signInAs(page, user))
  return page
}

/** Waits for the answer to the page's write, so that the clock starts once the change is made. */
function written(page: Page, method: string, path: RegExp): Promise<Response> {
  return page.waitForResponse((r) => r.request().method() === method && path.test(new URL(r.url()).pathname))
}

/** A lead of its own with a rep's overdue task and an opportunity in a pipeline of its own. */
async function seed(apiUrl: string, admin: DemoUser, rep: DemoUser) {
  runs += 1
  const name = `Live ${String(runs)} ${String(Date.now())}`
  const crm = new CrmClient(apiUrl, admin.api_key)
  const repId = String((await new CrmClient(apiUrl, rep.api_key).request('GET', 'me/')).id)
  const pipeline = await crm.request('POST', 'pipeline/', {
    name,
    statuses: [{ label: 'Prospect' }, { label: 'Proposal' }],
  })
  const statuses = Object.fromEntries(jsonList(pipeline.statuses).map((s) => [String(s.label), String(s.id)]))
  const leadName = `${name} Co`
  const lead = await crm.createLead({ name: leadName })
  const opportunity = await crm.request('POST', 'opportunity/', {
    lead_id: lead.id,
    status_id: statuses.Prospect,
    value: 50_000,
  })
  const taskText = `Call back ${name}`
  const yesterday = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10)
  const task = await crm.request('POST', 'task/', {
    lead_id: lead.id,
    text: taskText,
    date: yesterday,
    assigned_to: repId,
  })
  return {
    pipelineName: name,
    leadId: lead.id,
    leadName,
    taskText,
    taskId: String(task.id),
    opportunityId: String(opportunity.id),
  }
}

async function openBoard(page: Page, pipelineName: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Opportunities' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'Opportunities' })).toBeVisible()
  await page.getByRole('combobox', { name: 'Pipeline' }).selectOption(pipelineName)
}

test('what one user changes shows on another’s open inbox, board and lead page within 2 seconds', async ({
  browser,
  demoStack,
}) => {
  test.setTimeout(90_000)
  const admin = demoUser(demoStack.users, 'admin')
  const rep = demoUser(demoStack.users, 'rep')
  const s = await seed(demoStack.apiUrl, admin, rep)
  const [repPage, adminPage] = await Promise.all([
    signedInBrowser(browser, demoStack.baseURL, rep),
    signedInBrowser(browser, demoStack.baseURL, admin),
  ])

  // The admin completes the rep's task on the lead page; the rep's open inbox drops it.
  await repPage
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name: /^Inbox/ })
    .click()
  const repTask = repPage.getByRole('checkbox', { name: `Complete: ${s.taskText}` })
  await expect(repTask).toBeVisible()
  await adminPage.goto(`/leads/${s.leadId}`)
  const adminTask = adminPage.getByRole('region', { name: 'Tasks' }).getByRole('checkbox', {
    name: `Complete: ${s.taskText}`,
  })
  const completed = written(adminPage, 'PUT', new RegExp(`^/api/v1/task/${s.taskId}/$`))
  await adminTask.click()
  expect((await completed).status()).toBe(200)
  await expect(repTask).toBeHidden({ timeout: LIVE_MS })

  // The admin moves the opportunity on the board; the rep's open board shows it in its new column.
  await Promise.all([openBoard(repPage, s.pipelineName), openBoard(adminPage, s.pipelineName)])
  const repCard = (label: string) => boardColumn(repPage, label).getByRole('article', { name: s.leadName })
  await expect(repCard('Prospect')).toBeVisible()
  await expect(repCard('Proposal')).toHaveCount(0)
  const moved = written(adminPage, 'PUT', /^\/api\/v1\/opportunity\/oppo_\w+\/$/)
  await boardColumn(adminPage, 'Prospect')
    .getByRole('article', { name: s.leadName })
    .getByRole('button', { name: 'Move to…' })
    .click()
  await adminPage.getByRole('menuitem', { name: 'Proposal' }).click()
  expect((await moved).status()).toBe(200)
  await expect(repCard('Proposal')).toBeVisible({ timeout: LIVE_MS })
  await expect(repCard('Prospect')).toHaveCount(0, { timeout: LIVE_MS })

  // The admin deletes it through the API (its event's data is null, its last state in previous_data); it leaves the
  // rep's open board.
  await new CrmClient(demoStack.apiUrl, admin.api_key).request('DELETE', `opportunity/${s.opportunityId}/`)
  await expect(repCard('Proposal')).toHaveCount(0, { timeout: LIVE_MS })

  // The admin renames the lead; the rep's open lead page shows the new name.
  await Promise.all([
    streamingAfter(repPage, () => repPage.goto(`/leads/${s.leadId}`)),
    adminPage.goto(`/leads/${s.leadId}`),
  ])
  await expect(repPage.getByRole('heading', { level: 1, name: s.leadName })).toBeVisible()
  await adminPage.getByRole('button', { name: 'Edit Name' }).click()
  await adminPage.getByRole('textbox', { name: 'Name' }).fill(`${s.leadName} Renamed`)
  const renamed = written(adminPage, 'PUT', new RegExp(`^/api/v1/lead/${s.leadId}/$`))
  await adminPage.getByRole('textbox', { name: 'Name' }).press('Enter')
  expect((await renamed).status()).toBe(200)
  await expect(repPage.getByRole('heading', { level: 1, name: `${s.leadName} Renamed` })).toBeVisible({
    timeout: LIVE_MS,
  })

  await Promise.all([repPage.context().close(), adminPage.context().close()])
})
