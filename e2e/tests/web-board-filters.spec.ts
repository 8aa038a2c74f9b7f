import type { Page } from '@playwright/test'
import { formatMoney } from '@leadline/shared/money'
import { CrmClient, demoTest as test, expect, type DemoUser } from '../fixtures.js'
import { boardColumn, expectAccessible, jsonList } from '../journeys.js'

interface Member {
  id: string
  name: string
}

interface FilterBoard {
  crm: CrmClient
  pipelineId: string
  pipelineName: string
  currency: string
  /** Status ids by label. */
  statuses: Record<string, string>
  /** The admin (first) and another member. */
  owners: [Member, Member]
  /** A word only the first lead's name has. */
  token: string
}

const LABELS = ['Prospect', 'Proposal', 'Closed won']
let pipelines = 0

function adminOf(users: DemoUser[]): DemoUser {
  const admin = users.find((u) => u.title === 'admin')
  if (admin === undefined) throw new Error('the demo seed has no admin')
  return admin
}

/** A pipeline of its own (Prospect, Proposal, Closed won), created by the admin, who is then signed in on its board. */
async function newPipeline(page: Page, users: DemoUser[], apiUrl: string) {
  const admin = adminOf(users)
  const crm = new CrmClient(apiUrl, admin.api_key)
  pipelines += 1
  const pipelineName = `Filters ${String(pipelines)}`
  const pipeline = await crm.request('POST', 'pipeline/', {
    name: pipelineName,
    statuses: [{ label: 'Prospect' }, { label: 'Proposal' }, { label: 'Closed won', type: 'won' }],
  })
  const statuses = Object.fromEntries(jsonList(pipeline.statuses).map((s) => [String(s.label), String(s.id)]))
  const organization = await crm.request('GET', `organization/${String(pipeline.organization_id)}/`)
  const members = jsonList(organization.memberships).map((m) => ({
    id: String(m.user_id),
    name: String(m.user_full_name),
  }))
  const adminMember = members.find((m) => m.name === `${admin.first_name} ${admin.last_name}`)
  const other = members.find((m) => m !== adminMember)
  if (adminMember === undefined || other === undefined) throw new Error('the demo organization needs two members')
  return {
    crm,
    admin,
    pipelineId: String(pipeline.id),
    pipelineName,
    currency: String(organization.currency),
    statuses,
    owners: [adminMember, other] as [Member, Member],
  }
}

async function signInOnBoard(page: Page, admin: DemoUser, pipelineId: string, pipelineName: string) {
  await page.goto('/sign-in')
  await page
    .getByRole('region', { name: 'Try the demo organization' })
    .getByRole('button', { name: `Sign in as ${admin.first_name} ${admin.last_name}` })
    .click()
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Opportunities' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'Opportunities' })).toBeVisible()
  await page.getByRole('combobox', { name: 'Pipeline' }).selectOption(pipelineName)
  await expect(page).toHaveURL(new RegExp(`pipeline=${pipelineId}`))
}

/**
 * Two leads — one named with a word of its own — and five opportunities across the columns, owners, periods and
 * close dates, so that each filter keeps a different part of them.
 */
async function openFilterBoard(page: Page, users: DemoUser[], apiUrl: string): Promise<FilterBoard> {
  const setup = await newPipeline(page, users, apiUrl)
  const { crm, statuses, owners } = setup
  const token = `Zephyr${String(pipelines)}${String(Date.now() % 100_000)}`
  const first = await crm.createLead({ name: `${token} Alpha` })
  const second = await crm.createLead({ name: `Beta ${setup.pipelineName}` })
  const seeds = [
    [first.id, 'Prospect', owners[0], 'monthly', 10_000, '2026-02-10'],
    [first.id, 'Proposal', owners[1], 'one_time', 50_000, '2026-05-01'],
    [second.id, 'Prospect', owners[1], 'monthly', 5_000, null],
    [second.id, 'Proposal', owners[0], 'annual', 120_000, '2026-03-15'],
    [second.id, 'Closed won', owners[0], 'monthly', 7_000, '2026-01-20'],
  ] as const
  for (const [leadId, label, owner, period, value, dateWon] of seeds)
    await crm.request('POST', 'opportunity/', {
      lead_id: leadId,
      status_id: statuses[label],
      user_id: owner.id,
      value_period: period,
      value,
      confidence: 40,
      date_won: dateWon,
    })
  await signInOnBoard(page, setup.admin, setup.pipelineId, setup.pipelineName)
  return { ...setup, token }
}

function query(params: Record<string, string>): string {
  return new URLSearchParams(params).toString()
}

/** Each column's count, annualized sum and expected value are the API's for the same filters. */
async function expectColumnsMatchApi(page: Page, board: FilterBoard, filters: Record<string, string>) {
  for (const label of LABELS) {
    const totals = await board.crm.request(
      'GET',
      `opportunity/?${query({ ...filters, status_id: board.statuses[label] ?? '', _limit: '1' })}`,
    )
    const count = Number(totals.total_results)
    const header = boardColumn(page, label).locator('header')
    await expect(header).toContainText(
      `${count.toLocaleString('en-US')} ${count === 1 ? 'opportunity' : 'opportunities'}`,
    )
    await expect(header).toContainText(
      `${formatMoney(Number(totals.total_value_annualized), board.currency)} annualized`,
    )
    await expect(header).toContainText(
      `${formatMoney(Number(totals.expected_value_annualized), board.currency)} expected`,
    )
    // These columns are short: every card is on screen.
    await expect(boardColumn(page, label).getByRole('article')).toHaveCount(count)
  }
}

test('owner, value period, close dates and a lead search filter the columns as the API does, and live in the URL', async ({
  page,
  demoStack,
}) => {
  const board = await openFilterBoard(page, demoStack.users, demoStack.apiUrl)
  const [owner, other] = board.owners
  await expectColumnsMatchApi(page, board, {})

  await page.getByRole('button', { name: 'Owner: Anyone' }).click()
  await page.getByRole('menuitemcheckbox', { name: owner.name }).click()
  await page.keyboard.press('Escape')
  await expect(page).toHaveURL(new RegExp(`owner=${owner.id}`))
  await expect(page.getByRole('button', { name: `Owner: ${owner.name}` })).toBeVisible()
  await expectColumnsMatchApi(page, board, { user_id__in: owner.id })

  await page.getByRole('combobox', { name: 'Value period' }).selectOption('Monthly')
  await expect(page).toHaveURL(/period=monthly/)
  await expectColumnsMatchApi(page, board, { user_id__in: owner.id, value_period: 'monthly' })

  // A reload keeps them: they are the page's URL.
  await page.reload()
  await expect(page.getByRole('combobox', { name: 'Value period' })).toHaveValue('monthly')
  await expect(page.getByRole('button', { name: `Owner: ${owner.name}` })).toBeVisible()
  await expectColumnsMatchApi(page, board, { user_id__in: owner.id, value_period: 'monthly' })

  // Several owners at once.
  await page.getByRole('button', { name: `Owner: ${owner.name}` }).click()
  await page.getByRole('menuitemcheckbox', { name: other.name }).click()
  await page.keyboard.press('Escape')
  await expect(page.getByRole('button', { name: 'Owner: 2 people' })).toBeVisible()
  await expectColumnsMatchApi(page, board, { user_id__in: `${owner.id},${other.id}`, value_period: 'monthly' })

  await page.getByRole('button', { name: 'Clear filters' }).click()
  await expect(page).not.toHaveURL(/owner=|period=/)
  await expect(page.getByRole('button', { name: 'Clear filters' })).toHaveCount(0)
  await expectColumnsMatchApi(page, board, {})

  await page.getByLabel('Closing from').fill('2026-02-01')
  await page.getByLabel('Closing until').fill('2026-04-30')
  await expect(page).toHaveURL(/won_from=2026-02-01/)
  await expect(page).toHaveURL(/won_to=2026-04-30/)
  await expectColumnsMatchApi(page, board, { date_won__gte: '2026-02-01', date_won__lte: '2026-04-30' })
  await page.getByRole('button', { name: 'Clear filters' }).click()

  // The lead search waits for a pause in typing, then filters.
  await page.getByRole('textbox', { name: 'Lead search' }).fill(board.token)
  await expect(page).toHaveURL(new RegExp(`lead_query=${board.token}`))
  await expectColumnsMatchApi(page, board, { lead_query: board.token })
  await expect(boardColumn(page, 'Prospect').getByRole('article', { name: `${board.token} Alpha` })).toBeVisible()
  await page.reload()
  await expect(page.getByRole('textbox', { name: 'Lead search' })).toHaveValue(board.token)
  await expectColumnsMatchApi(page, board, { lead_query: board.token })

  // A move under filters updates the filtered columns, which still match the API's for the same filters.
  const name = `${board.token} Alpha`
  const saved = page.waitForResponse((r) => r.request().method() === 'PUT' && r.url().includes('/api/v1/opportunity/'))
  await boardColumn(page, 'Prospect').getByRole('article', { name }).getByRole('button', { name: 'Move to…' }).click()
  await page.getByRole('menuitem', { name: 'Closed won' }).click()
  await expect(boardColumn(page, 'Closed won').getByRole('article', { name })).toBeVisible()
  expect((await saved).status()).toBe(200)
  await expect(boardColumn(page, 'Prospect').getByRole('article', { name })).toHaveCount(0)
  await expectColumnsMatchApi(page, board, { lead_query: board.token })
})

test('the list view shows the filtered set with the API totals and sorts by value on the server', async ({
  page,
  demoStack,
}) => {
  const board = await openFilterBoard(page, demoStack.users, demoStack.apiUrl)
  const [owner] = board.owners
  await page.getByRole('button', { name: 'Owner: Anyone' }).click()
  await page.getByRole('menuitemcheckbox', { name: owner.name }).click()
  await page.keyboard.press('Escape')
  await expect(page).toHaveURL(new RegExp(`owner=${owner.id}`))

  const views = page.getByRole('navigation', { name: 'View' })
  await expect(views.getByRole('link', { name: 'Board' })).toHaveAttribute('aria-current', 'page')
  await views.getByRole('link', { name: 'List' }).click()
  await expect(page).toHaveURL(/view=list/)
  await expect(views.getByRole('link', { name: 'List' })).toHaveAttribute('aria-current', 'page')
  await expect(page).toHaveURL(new RegExp(`owner=${owner.id}`))

  const filters = { pipeline_id: board.pipelineId, user_id__in: owner.id }
  const all = await board.crm.request('GET', `opportunity/?${query(filters)}`)
  const count = Number(all.total_results)
  const table = page.getByRole('table', { name: `Opportunities in ${board.pipelineName}` })
  await expect(table.locator('tbody tr')).toHaveCount(count)
  const totals = table.locator('tfoot tr')
  await expect(totals).toContainText(`Totals: ${String(count)} ${count === 1 ? 'opportunity' : 'opportunities'}`)
  await expect(totals).toContainText(formatMoney(Number(all.total_value_annualized), board.currency))
  await expect(totals).toContainText(`${formatMoney(Number(all.expected_value_annualized), board.currency)} expected`)
  for (const row of jsonList(all.data))
    await expect(table.getByRole('row').filter({ hasText: String(row.value_formatted) })).toHaveCount(1)

  await expectAccessible(page)

  const valueHeader = table.getByRole('columnheader', { name: 'Value' })
  await expect(valueHeader).toHaveAttribute('aria-sort', 'none')
  for (const [order, sort] of [
    ['value', 'ascending'],
    ['-value', 'descending'],
  ] as const) {
    const sorted = page.waitForResponse((r) => r.url().includes(`_order_by=${encodeURIComponent(order)}`))
    await valueHeader.getByRole('button').click()
    await sorted
    await expect(valueHeader).toHaveAttribute('aria-sort', sort)
    await expect(page).toHaveURL(new RegExp(`sort=${order}`))
    const expected = await board.crm.request('GET', `opportunity/?${query({ ...filters, _order_by: order })}`)
    // The Value column, row by row, is the API's order.
    await expect(table.locator('tbody tr td:nth-child(3)')).toHaveText(
      jsonList(expected.data).map((o) => String(o.value_formatted)),
    )
  }
  // The order is in the URL too.
  await page.reload()
  await expect(table.getByRole('columnheader', { name: 'Value' })).toHaveAttribute('aria-sort', 'descending')
})

test('a column of 5,000 opportunities renders a few dozen cards, loads more as it scrolls, and counts them all', async ({
  page,
  demoStack,
}) => {
  test.setTimeout(300_000)
  const setup = await newPipeline(page, demoStack.users, demoStack.apiUrl)
  const prospect = setup.statuses.Prospect ?? ''
  const lead = await setup.crm.createLead({ name: `Bulk ${setup.pipelineName}` })
  // Every demo user's key shares the writes: the API limits each key's requests per window.
  const writers = demoStack.users.map((u) => new CrmClient(demoStack.apiUrl, u.api_key))
  const total = 5_000
  for (let start = 0, batch = 0; start < total; start += 50, batch += 1) {
    const crm = writers[batch % writers.length] ?? setup.crm
    await Promise.all(
      Array.from({ length: Math.min(50, total - start) }, (_, i) =>
        crm.request('POST', 'opportunity/', {
          lead_id: lead.id,
          status_id: prospect,
          value: (start + i + 1) * 100,
          value_period: 'one_time',
          confidence: 50,
        }),
      ),
    )
  }
  const firstPage = page.waitForResponse(
    (r) => r.url().includes(`status_id=${prospect}`) && r.url().includes('_skip=0'),
  )
  await signInOnBoard(page, setup.admin, setup.pipelineId, setup.pipelineName)
  await firstPage

  const prospects = boardColumn(page, 'Prospect')
  // The header counts the whole column from the first page on.
  await expect(prospects.locator('header')).toContainText('5,000 opportunities')
  const cards = prospects.getByRole('article')
  await expect(cards.first()).toBeVisible()
  const rendered = await cards.count()
  expect(rendered).toBeGreaterThan(0)
  expect(rendered).toBeLessThan(40)

  // Scrolling to the end of what is loaded fetches the next page, again and again; the DOM stays small.
  const cardList = prospects.getByRole('list', { name: 'Cards in Prospect' })
  const items = cardList.locator(':scope > li')
  for (const skip of [20, 40, 60]) {
    const next = page.waitForResponse(
      (r) => r.url().includes(`status_id=${prospect}`) && r.url().includes(`_skip=${String(skip)}`),
    )
    await cardList.evaluate((list) => {
      const scroller = list.parentElement
      if (scroller !== null) scroller.scrollTop = scroller.scrollHeight
    })
    expect((await next).status()).toBe(200)
    await expect(items.last()).toHaveAttribute('aria-setsize', '5000')
    await expect.poll(async () => Number(await items.last().getAttribute('aria-posinset'))).toBeGreaterThanOrEqual(skip)
    expect(await cards.count()).toBeLessThan(40)
  }
  await expect(prospects.locator('header')).toContainText('5,000 opportunities')
  await expect(prospects.getByRole('button', { name: 'Load more in Prospect' })).toBeVisible()
})
