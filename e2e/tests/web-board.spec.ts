import type { Page } from '@playwright/test'
import { formatMoney } from '@leadline/shared/money'
import { CrmClient, demoTest as test, expect, type DemoUser } from '../fixtures.js'
import { boardColumn, expectAccessible, jsonList, pickUpWithSpace, withoutLiveUpdates } from '../journeys.js'

interface BoardSetup {
  crm: CrmClient
  pipelineId: string
  pipelineName: string
  currency: string
  /** Status ids by label. */
  statuses: Record<string, string>
  /** Opportunity ids by lead name. */
  cards: Record<string, string>
}

let pipelines = 0

/**
 * A pipeline of its own in the demo organization (Prospect, Proposal, Closed won), two leads' opportunities in
 * Prospect — one of them overdue — and the admin signed in on its board.
 */
async function openBoard(page: Page, users: DemoUser[], apiUrl: string): Promise<BoardSetup> {
  const admin = users.find((u) => u.title === 'admin')
  if (admin === undefined) throw new Error('the demo seed has no admin')
  const crm = new CrmClient(apiUrl, admin.api_key)
  pipelines += 1
  const pipelineName = `Board ${String(pipelines)}`
  const pipeline = await crm.request('POST', 'pipeline/', {
    name: pipelineName,
    statuses: [{ label: 'Prospect' }, { label: 'Proposal' }, { label: 'Closed won', type: 'won' }],
  })
  const statuses = Object.fromEntries(jsonList(pipeline.statuses).map((s) => [String(s.label), String(s.id)]))
  const organization = await crm.request('GET', `organization/${String(pipeline.organization_id)}/`)
  const cards: Record<string, string> = {}
  const seeds = [
    { name: `Acme ${pipelineName}`, value: 150_000, value_period: 'one_time', confidence: 50, date_won: '2020-01-15' },
    { name: `Globex ${pipelineName}`, value: 20_000, value_period: 'monthly', confidence: 25, date_won: null },
  ]
  for (const seed of seeds) {
    const lead = await crm.createLead({ name: seed.name })
    const opportunity = await crm.request('POST', 'opportunity/', {
      lead_id: lead.id,
      status_id: statuses.Prospect,
      value: seed.value,
      value_period: seed.value_period,
      confidence: seed.confidence,
      date_won: seed.date_won,
    })
    cards[seed.name] = String(opportunity.id)
  }

  await page.goto('/sign-in')
  await page
    .getByRole('region', { name: 'Try the demo organization' })
    .getByRole('button', { name: `Sign in as ${admin.first_name} ${admin.last_name}` })
    .click()
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Opportunities' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'Opportunities' })).toBeVisible()
  await page.getByRole('combobox', { name: 'Pipeline' }).selectOption(pipelineName)
  await expect(page).toHaveURL(new RegExp(`pipeline=${String(pipeline.id)}`))
  for (const label of ['Prospect', 'Proposal', 'Closed won'])
    await expectColumnMatchesApi(page, { crm, statuses, currency: String(organization.currency) }, label)
  return {
    crm,
    pipelineId: String(pipeline.id),
    pipelineName,
    currency: String(organization.currency),
    statuses,
    cards,
  }
}

function card(page: Page, label: string, leadName: string) {
  return boardColumn(page, label).getByRole('article', { name: leadName })
}

/** The column's count, annualized sum and expected value are the API's, whatever is loaded. */
async function expectColumnMatchesApi(
  page: Page,
  { crm, statuses, currency }: Pick<BoardSetup, 'crm' | 'statuses' | 'currency'>,
  label: string,
) {
  const totals = await crm.request('GET', `opportunity/?status_id=${statuses[label] ?? ''}&_limit=1`)
  const count = Number(totals.total_results)
  const header = boardColumn(page, label).locator('header')
  await expect(header).toContainText(`${String(count)} ${count === 1 ? 'opportunity' : 'opportunities'}`)
  await expect(header).toContainText(`${formatMoney(Number(totals.total_value_annualized), currency)} annualized`)
  await expect(header).toContainText(`${formatMoney(Number(totals.expected_value_annualized), currency)} expected`)
}

async function statusOf(crm: CrmClient, opportunityId: string | undefined): Promise<string> {
  return String((await crm.request('GET', `opportunity/${opportunityId ?? ''}/`)).status_label)
}

function moveResponse(page: Page, opportunityId: string | undefined) {
  return page.waitForResponse(
    (response) =>
      response.url().endsWith(`/api/v1/opportunity/${opportunityId ?? ''}/`) && response.request().method() === 'PUT',
  )
}

test('the board shows a column per status with the API totals, marks overdue cards, and moves a card with Move to…', async ({
  page,
  demoStack,
}) => {
  const board = await openBoard(page, demoStack.users, demoStack.apiUrl)
  const acme = `Acme ${board.pipelineName}`
  await expect(page).toHaveTitle('Opportunities · Leadline')
  await expect(page.getByRole('heading', { level: 2 })).toHaveText(['Prospect', 'Proposal', 'Closed won'])
  const acmeCard = card(page, 'Prospect', acme)
  await expect(acmeCard).toContainText('$1,500')
  await expect(acmeCard).toContainText('50% confidence')
  await expect(acmeCard).toContainText('Overdue')
  // The mark is one piece: its sign never stays at a line's end with the word on the next.
  const mark = acmeCard.locator('span', { hasText: /^⚠ Overdue$/ })
  expect(await mark.evaluate((badge) => badge.getClientRects().length)).toBe(1)
  await expect(card(page, 'Prospect', `Globex ${board.pipelineName}`)).not.toContainText('Overdue')
  await expect(acmeCard.getByRole('link', { name: acme })).toHaveAttribute('href', /^\/leads\/lead_/)

  await expectAccessible(page)

  // The column's sum by period shows on hover and on keyboard focus: $1,500 one-time and $200 a month. A click
  // first, as a mouse user's would, so that the page takes the pointer for a mouse.
  await page.getByRole('heading', { name: 'Opportunities', level: 1 }).click()
  await boardColumn(page, 'Proposal')
    .getByRole('button', { name: /annualized$/ })
    .hover()
  await expect(page.getByRole('tooltip')).toHaveText('One-time $0, monthly $0, annual $0')
  await page.mouse.move(0, 0)
  await expect(page.getByRole('tooltip')).toHaveCount(0)
  const sum = boardColumn(page, 'Prospect').getByRole('button', { name: /annualized$/ })
  await sum.focus()
  await page.keyboard.press('Shift+Tab')
  await page.keyboard.press('Tab')
  await expect(sum).toBeFocused()
  await expect(page.getByRole('tooltip')).toHaveText('One-time $1,500, monthly $200, annual $0')
  await page.keyboard.press('Escape')
  await expect(page.getByRole('tooltip')).toHaveCount(0)

  const saved = moveResponse(page, board.cards[acme])
  await acmeCard.getByRole('button', { name: 'Move to…' }).click()
  await expect(page.getByRole('menuitem')).toHaveText(['Proposal', 'Closed won'])
  await page.getByRole('menuitem', { name: 'Proposal' }).click()
  await expect(card(page, 'Proposal', acme)).toBeVisible()
  expect((await saved).status()).toBe(200)
  expect(await statusOf(board.crm, board.cards[acme])).toBe('Proposal')
  await expect(card(page, 'Prospect', acme)).toHaveCount(0)
  for (const label of ['Prospect', 'Proposal']) await expectColumnMatchesApi(page, board, label)
  await expect(page.getByRole('status').filter({ hasText: `${acme} moved to Proposal` })).toBeVisible()
})

test('a card dragged with the mouse to another column moves there', async ({ page, demoStack }) => {
  const board = await openBoard(page, demoStack.users, demoStack.apiUrl)
  const globex = `Globex ${board.pipelineName}`
  const handle = card(page, 'Prospect', globex).getByRole('button', { name: `Drag ${globex}` })
  const from = await handle.boundingBox()
  const to = await boardColumn(page, 'Proposal').boundingBox()
  if (from === null || to === null) throw new Error('the card or the column is not on screen')
  const saved = moveResponse(page, board.cards[globex])
  await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2)
  await page.mouse.down()
  await page.mouse.move(to.x + to.width / 2, to.y + 60, { steps: 12 })
  await expect(boardColumn(page, 'Proposal')).toHaveClass(/border-indigo-400/)
  await page.mouse.up()
  expect((await saved).status()).toBe(200)
  await expect(card(page, 'Proposal', globex)).toBeVisible()
  expect(await statusOf(board.crm, board.cards[globex])).toBe('Proposal')
  for (const label of ['Prospect', 'Proposal']) await expectColumnMatchesApi(page, board, label)

  // Dragged by its body and let go where it started, a card stays put and does not open as if clicked (the pointer
  // is let go over the drag's overlay, not the card).
  const acme = card(page, 'Prospect', `Acme ${board.pipelineName}`)
  const body = await acme.getByText('% confidence').boundingBox()
  if (body === null) throw new Error('the card is not on screen')
  await page.mouse.move(body.x + 5, body.y + 5)
  await page.mouse.down()
  await page.mouse.move(body.x + 40, body.y + 5, { steps: 6 })
  await page.mouse.move(body.x + 6, body.y + 5, { steps: 6 })
  await page.mouse.up()
  await expect(acme).toBeVisible()
  await expect(page.getByRole('dialog')).toHaveCount(0)
  expect(page.url()).not.toContain('opportunity=')
})

test('a card lifted with space, carried with the arrow keys and dropped with space moves, and is announced', async ({
  page,
  demoStack,
}) => {
  const board = await openBoard(page, demoStack.users, demoStack.apiUrl)
  const acme = `Acme ${board.pipelineName}`
  await pickUpWithSpace(page, card(page, 'Prospect', acme).getByRole('button', { name: `Drag ${acme}` }))
  await expect(
    page.getByRole('status').filter({ hasText: `Picked up ${acme}; it is over Prospect, where it started.` }),
  ).toBeAttached()
  await page.keyboard.press('ArrowRight')
  await expect(page.getByRole('status').filter({ hasText: `${acme} is over Proposal.` })).toBeAttached()
  await page.keyboard.press('ArrowRight')
  await expect(page.getByRole('status').filter({ hasText: `${acme} is over Closed won.` })).toBeAttached()
  const saved = moveResponse(page, board.cards[acme])
  await page.keyboard.press('Space')
  expect((await saved).status()).toBe(200)
  await expect(card(page, 'Closed won', acme)).toBeVisible()
  const won = await board.crm.request('GET', `opportunity/${board.cards[acme] ?? ''}/`)
  expect(won.status_label).toBe('Closed won')
  // Moved to a won status, it is no longer overdue: it says when it was won instead.
  await expect(card(page, 'Closed won', acme)).not.toContainText('Overdue')
  for (const label of ['Prospect', 'Closed won']) await expectColumnMatchesApi(page, board, label)
})

test('Undo in the toast moves the card back, on screen and in the API', async ({ page, demoStack }) => {
  const board = await openBoard(page, demoStack.users, demoStack.apiUrl)
  const globex = `Globex ${board.pipelineName}`
  await card(page, 'Prospect', globex).getByRole('button', { name: 'Move to…' }).click()
  await page.getByRole('menuitem', { name: 'Closed won' }).click()
  const toast = page.getByRole('status').filter({ hasText: `${globex} moved to Closed won` })
  await expect(card(page, 'Closed won', globex)).toBeVisible()
  await expect.poll(() => statusOf(board.crm, board.cards[globex])).toBe('Closed won')
  await expectColumnMatchesApi(page, board, 'Closed won')

  const undone = moveResponse(page, board.cards[globex])
  await toast.getByRole('button', { name: 'Undo' }).click()
  expect((await undone).status()).toBe(200)
  await expect(card(page, 'Prospect', globex)).toBeVisible()
  await expect(card(page, 'Closed won', globex)).toHaveCount(0)
  expect(await statusOf(board.crm, board.cards[globex])).toBe('Prospect')
  await expect(page.getByRole('status').filter({ hasText: `${globex} is back in Prospect` })).toBeVisible()
  for (const label of ['Prospect', 'Closed won']) await expectColumnMatchesApi(page, board, label)
})

test('a move the API refuses puts the card back and says why', async ({ page, demoStack }) => {
  // Live updates would take the deleted status off the board at once.
  await withoutLiveUpdates(page)
  const board = await openBoard(page, demoStack.users, demoStack.apiUrl)
  const acme = `Acme ${board.pipelineName}`
  const doomed = board.statuses.Proposal ?? ''
  // An admin deletes the status while the board still shows it: the API refuses the move for real.
  await board.crm.request('DELETE', `status/opportunity/${doomed}/`)
  const refused = moveResponse(page, board.cards[acme])
  await card(page, 'Prospect', acme).getByRole('button', { name: 'Move to…' }).click()
  await page.getByRole('menuitem', { name: 'Proposal' }).click()
  const response = await refused
  expect(response.status()).toBe(400)
  const message = `Not an opportunity status of your organization: "${doomed}".`
  expect(await response.json()).toEqual({ errors: [], 'field-errors': { status_id: message } })

  const alert = page.getByRole('alert').filter({ hasText: `${acme} was not moved to Proposal` })
  await expect(alert).toContainText(`${message} It is back in Prospect.`)
  await expect(card(page, 'Prospect', acme)).toBeVisible()
  await expect(card(page, 'Proposal', acme)).toHaveCount(0)
  expect(await statusOf(board.crm, board.cards[acme])).toBe('Prospect')
  await expectColumnMatchesApi(page, board, 'Prospect')
})
