import type { Page } from '@playwright/test'
import { CrmClient, demoTest as test, expect, type DemoUser } from '../fixtures.js'
import { demoUser, expectAccessible, jsonList, signInAs } from '../journeys.js'

// The task inbox: keyboard triage, bulk changes with undo, time zones, and an admin's view of a teammate's tasks.

function named(users: DemoUser[], firstName: string): DemoUser {
  const user = users.find((u) => u.first_name === firstName)
  if (user === undefined) throw new Error(`the demo seed has no ${firstName}`)
  return user
}

async function userId(apiUrl: string, user: DemoUser): Promise<string> {
  return String((await new CrmClient(apiUrl, user.api_key).request('GET', 'me/')).id)
}

/** The calendar day in a time zone at this instant (`YYYY-MM-DD`). */
function dayIn(timeZone: string, at = new Date()): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(at)
}

function daysAgo(days: number): string {
  return new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10)
}

let leads = 0

/** A lead of its own with lead tasks on it (text → date), assigned to `assignee`. */
async function seedTasks(crm: CrmClient, assignee: string, tasks: [string, string][]): Promise<string> {
  leads += 1
  const lead = await crm.createLead({ name: `Inbox Test ${String(leads)} ${String(Date.now())}` })
  for (const [text, date] of tasks) {
    await crm.request('POST', 'task/', { lead_id: lead.id, text, date, assigned_to: assignee })
  }
  return lead.id
}

async function openInbox(page: Page) {
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name: /^Inbox/ })
    .click()
  await expect(page.getByRole('heading', { level: 1, name: 'Inbox' })).toBeVisible()
}

const rows = (page: Page) => page.getByRole('main').locator('li[data-task-id]')
const completeBox = (page: Page, text: string) => page.getByRole('checkbox', { name: `Complete: ${text}` })

test('a rep works through the demo inbox with the keyboard alone', async ({ page, demoStack }) => {
  // A long walk, with three accessibility scans on the way.
  test.setTimeout(60_000)
  const rep = demoUser(demoStack.users, 'rep')
  await signInAs(page, rep)
  await expect(page.getByRole('link', { name: /^Inbox \d+ tasks$/ })).toBeVisible()
  await openInbox(page)
  await expect(page.getByRole('heading', { level: 2, name: /^Overdue/ })).toBeVisible()
  await expect(page.getByRole('heading', { level: 2, name: /^Today/ })).toBeVisible()
  await expectAccessible(page)

  // j and k move between tasks.
  await page.keyboard.press('j')
  await expect(rows(page).first()).toBeFocused()
  await page.keyboard.press('j')
  await expect(rows(page).nth(1)).toBeFocused()
  await page.keyboard.press('k')
  await expect(rows(page).first()).toBeFocused()
  const label = await rows(page)
    .first()
    .getByRole('checkbox', { name: /^Complete: / })
    .getAttribute('aria-label')
  const secondId = await rows(page).nth(1).getAttribute('data-task-id')
  const first = label?.replace(/^Complete: /, '') ?? ''
  expect(first).not.toBe('')
  // Found by id: a shared demo organization may hold two tasks that read the same.
  const firstId = (await rows(page).first().getAttribute('data-task-id')) ?? ''
  const firstBox = page.locator(`li[data-task-id="${firstId}"]`).getByRole('checkbox', { name: `Complete: ${first}` })

  // e completes it: it leaves the inbox, the focus goes on to the next task, and u brings it back.
  await page.keyboard.press('e')
  await expect(firstBox).toHaveCount(0)
  await expect(page.getByRole('status').filter({ hasText: 'Task completed' })).toBeVisible()
  await expect(page.locator(`li[data-task-id="${secondId ?? ''}"]`)).toBeFocused()
  await page.keyboard.press('u')
  await expect(firstBox).toBeVisible()
  await expect(page.getByRole('status').filter({ hasText: 'Undone' })).toBeVisible()
  await expect(firstBox).not.toBeChecked()

  // s snoozes it to tomorrow: it moves to Future.
  await page.keyboard.press('k')
  await expect(rows(page).first()).toBeFocused()
  await page.keyboard.press('s')
  const snooze = page.getByRole('dialog', { name: `Snooze “${first}”` })
  await expect(snooze).toBeVisible()
  await expectAccessible(page)
  while (!(await snooze.getByRole('button', { name: /^Tomorrow/ }).evaluate((b) => b === document.activeElement)))
    await page.keyboard.press('Tab')
  await page.keyboard.press('Enter')
  await expect(snooze).toBeHidden()
  await expect(firstBox).toHaveCount(0)
  await expect(page.getByRole('status').filter({ hasText: /^Task snoozed to / })).toBeVisible()

  // Enter opens the lead of the task in focus; back returns to the inbox.
  await page.keyboard.press('j')
  const lead = await page.locator('li[data-task-id]:focus').getByRole('link').first().textContent()
  await page.keyboard.press('Enter')
  await expect(page).toHaveURL(/\/leads\/lead_/)
  await expect(page.getByRole('heading', { level: 1, name: lead ?? '' })).toBeVisible()
  await page.goBack()
  await expect(page.getByRole('heading', { level: 1, name: 'Inbox' })).toBeVisible()

  // ? lists the shortcuts.
  await page.keyboard.press('?')
  const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' })
  await expect(help).toContainText('Snooze')
  await page.keyboard.press('Escape')
  await expect(help).toBeHidden()

  // Shortcuts stay quiet while the rep types: the filter takes the letters, and x selects nothing.
  const filterBox = page.getByRole('searchbox', { name: 'Filter tasks' })
  await filterBox.focus()
  await page.keyboard.type(lead ?? '')
  await page.keyboard.press('x')
  await expect(filterBox).toHaveValue(`${lead ?? ''}x`)
  await expect(page.getByRole('region', { name: 'Selected tasks' })).toHaveCount(0)
  await expect(page.getByText('No task matches the filter')).toBeVisible()
  await page.keyboard.press('Backspace')
  await expect(rows(page).first()).toContainText(lead ?? '')
  await filterBox.fill('')

  // The snoozed task is under Future, tomorrow.
  await page.getByRole('navigation', { name: 'Task lists' }).getByRole('link', { name: 'Future' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'Future' })).toBeVisible()
  await expect(page).toHaveURL(/tab=future/)
  const tomorrow = page.getByRole('region', { name: /^Tomorrow/ })
  await expect(tomorrow.getByRole('checkbox', { name: `Complete: ${first}` })).toBeVisible()
  await expectAccessible(page)
})

test('bulk: shift-click a range, complete it in one go, and undo', async ({ page, demoStack }) => {
  const admin = demoUser(demoStack.users, 'admin')
  const sam = named(demoStack.users, 'Sam')
  const crm = new CrmClient(demoStack.apiUrl, admin.api_key)
  const samId = await userId(demoStack.apiUrl, sam)
  const stamp = String(Date.now())
  const texts = ['Bulk one', 'Bulk two', 'Bulk three'].map((t) => `${t} ${stamp}`)
  const leadId = await seedTasks(
    crm,
    samId,
    texts.map((text) => [text, daysAgo(40)]),
  )
  await signInAs(page, sam)
  await openInbox(page)
  const overdue = page.getByRole('region', { name: /^Overdue/ })
  // Tasks of one day stand in the API's order (by id): the range runs from the first of them to the last.
  const boxes = overdue.getByRole('checkbox', { name: new RegExp(`^Select: Bulk \\w+ ${stamp}$`) })
  await expect(boxes).toHaveCount(3)
  await boxes.first().click()
  await boxes.last().click({ modifiers: ['Shift'] })
  const bar = page.getByRole('region', { name: 'Selected tasks' })
  await expect(bar).toContainText('3 tasks selected')
  const done = page.waitForRequest((r) => r.method() === 'PUT' && r.url().includes('/api/v1/task/?id__in='))
  await bar.getByRole('button', { name: 'Complete' }).click()
  await done
  for (const text of texts) await expect(completeBox(page, text)).toHaveCount(0)
  const toast = page.getByRole('status').filter({ hasText: '3 tasks completed' })
  const open = async () => jsonList((await crm.request('GET', `task/?lead_id=${leadId}&is_complete=false`)).data).length
  await expect.poll(open).toBe(0)
  await toast.getByRole('button', { name: 'Undo' }).click()
  for (const text of texts) await expect(completeBox(page, text)).toBeVisible()
  await expect.poll(open).toBe(3)

  // Delete one, after a confirmation: the focus goes on to the next task.
  await overdue.getByRole('button', { name: `Delete: ${texts[1] ?? ''}` }).click()
  const confirm = page.getByRole('dialog', { name: `Delete “${texts[1] ?? ''}”?` })
  await expectAccessible(page)
  await confirm.getByRole('button', { name: 'Delete' }).click()
  await expect(confirm).toBeHidden()
  await expect(completeBox(page, texts[1] ?? '')).toHaveCount(0)
  await expect(page.locator('li[data-task-id]:focus')).toHaveCount(1)
  await expect.poll(open).toBe(2)

  // Select all in a group, then let go of it.
  await overdue.getByRole('checkbox', { name: 'Select all in Overdue' }).check()
  await expect(bar).toContainText(/\d+ tasks selected/)
  await bar.getByRole('button', { name: 'Clear selection' }).click()
  await expect(bar).toBeHidden()
})

test('a task dated today is in the inbox in Auckland and under Future in Honolulu at the same instant', async ({
  browser,
  demoStack,
}) => {
  const admin = demoUser(demoStack.users, 'admin')
  const riley = named(demoStack.users, 'Riley')
  const manager = named(demoStack.users, 'Morgan')
  const crm = new CrmClient(demoStack.apiUrl, admin.api_key)
  const rileyId = await userId(demoStack.apiUrl, riley)
  const today = dayIn('Pacific/Auckland')
  const text = `Call the Auckland office ${String(Date.now())}`
  await seedTasks(crm, rileyId, [[text, today]])

  const auckland = await browser.newContext({ baseURL: demoStack.baseURL, timezoneId: 'Pacific/Auckland' })
  const honolulu = await browser.newContext({ baseURL: demoStack.baseURL, timezoneId: 'Pacific/Honolulu' })
  try {
    const rep = await auckland.newPage()
    await signInAs(rep, riley)
    await openInbox(rep)
    await expect(
      rep.getByRole('region', { name: /^Today/ }).getByRole('checkbox', { name: `Complete: ${text}` }),
    ).toBeVisible()

    // The manager, in Honolulu, looks at Riley's tasks: there it is still yesterday, so the task is tomorrow's.
    const boss = await honolulu.newPage()
    await signInAs(boss, manager)
    await openInbox(boss)
    await boss.getByRole('combobox', { name: 'Tasks of' }).selectOption({ label: 'Riley Rep' })
    await expect(boss).toHaveURL(/user=user_/)
    // Auckland (+13) and Honolulu (−10) share a date one hour a day; then the task is today's in both.
    const later = dayIn('Pacific/Honolulu') < today
    await expect(completeBox(boss, text)).toHaveCount(later ? 0 : 1)
    await boss.getByRole('navigation', { name: 'Task lists' }).getByRole('link', { name: 'Future' }).click()
    await expect(boss).toHaveURL(/tab=future/)
    await expect(boss).toHaveURL(/user=user_/)
    await expect(completeBox(boss, text)).toHaveCount(later ? 1 : 0)
    if (later) await expect(boss.getByRole('region', { name: /^Tomorrow/ })).toContainText(text)
  } finally {
    await auckland.close()
    await honolulu.close()
  }
})

test('an admin looks at a teammate’s inbox and at everyone’s', async ({ page, demoStack }) => {
  const admin = demoUser(demoStack.users, 'admin')
  const sam = named(demoStack.users, 'Sam')
  const crm = new CrmClient(demoStack.apiUrl, admin.api_key)
  const text = `Sam’s own task ${String(Date.now())}`
  await seedTasks(crm, await userId(demoStack.apiUrl, sam), [[text, daysAgo(1)]])
  await signInAs(page, admin)
  await openInbox(page)
  await expect(completeBox(page, text)).toHaveCount(0)
  const picker = page.getByRole('combobox', { name: 'Tasks of' })
  await expect(picker).toHaveValue(await userId(demoStack.apiUrl, admin))
  await picker.selectOption({ label: 'Sam Seller' })
  await expect(completeBox(page, text)).toBeVisible()
  await picker.selectOption({ label: 'Everyone' })
  await expect(page).toHaveURL(/user=all/)
  const row = rows(page).filter({ has: completeBox(page, text) })
  await expect(row).toContainText('Sam Seller')
  await page.getByRole('navigation', { name: 'Task lists' }).getByRole('link', { name: 'Archive' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'Archive' })).toBeVisible()
  await expect(picker).toHaveValue('all')
  await expectAccessible(page)
})

test('the lead page adds a task, completes it, and the timeline shows it with the opportunity', async ({
  page,
  demoStack,
}) => {
  const admin = demoUser(demoStack.users, 'admin')
  const crm = new CrmClient(demoStack.apiUrl, admin.api_key)
  const lead = await crm.createLead({ name: `Task Panel Co ${String(Date.now())}` })
  await signInAs(page, admin)
  await page.goto(`/leads/${lead.id}`)
  const tasks = page.getByRole('region', { name: 'Tasks' })
  await expect(tasks.getByText('No open tasks.')).toBeVisible()
  await tasks.getByRole('textbox', { name: 'New task' }).fill('Send the proposal')
  await tasks.getByRole('button', { name: 'Add task' }).click()
  await expect(completeBox(page, 'Send the proposal')).toBeVisible()
  await expect(tasks.getByRole('textbox', { name: 'New task' })).toHaveValue('')
  await expectAccessible(page)

  // Edit in place, then complete.
  await tasks.getByRole('button', { name: 'Edit: Send the proposal' }).click()
  const edit = page.getByRole('dialog', { name: 'Edit task' })
  await edit.getByRole('textbox', { name: 'Task' }).fill('Send the signed proposal')
  await edit.getByRole('button', { name: 'Save task' }).click()
  await expect(edit).toBeHidden()
  await completeBox(page, 'Send the signed proposal').click()
  await expect(tasks.getByText('No open tasks.')).toBeVisible()

  const opportunities = page.getByRole('region', { name: 'Opportunities' })
  await opportunities.getByRole('button', { name: 'New opportunity' }).click()
  const dialog = page.getByRole('dialog', { name: 'New opportunity' })
  await dialog.getByRole('textbox', { name: 'Value' }).fill('1200')
  await dialog.getByRole('button', { name: 'Add opportunity' }).click()
  await expect(dialog).toBeHidden()

  const timeline = page.getByRole('region', { name: 'Activity' })
  await expect(timeline.locator('[data-activity-type="TaskCompleted"]')).toContainText('Send the signed proposal')
  await expect(timeline.locator('[data-activity-type="OpportunityStatusChange"]')).toContainText('$1,200')
})
