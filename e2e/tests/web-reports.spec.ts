import { readFileSync } from 'node:fs'
import type { Page } from '@playwright/test'
import { formatMoney } from '@leadline/shared/money'
import { CrmClient, demoTest as test, expect, type DemoUser } from '../fixtures.js'
import { demoUser, expectAccessible, signInAs } from '../journeys.js'

/*
 * The opportunity report over a pipeline of the journey's own, with known values in three months of 2025 and two
 * owners, checked against the API's grouped list for the same filters.
 */

interface Seed {
  crm: CrmClient
  pipelineId: string
  currency: string
  /** Owners' display names by id. */
  owners: Map<string, string>
}

interface Group {
  key: string | null
  user_name?: string
  total_results: number
  [sum: string]: unknown
}

const MONEY_FIELDS = [
  'total_value_one_time',
  'total_value_monthly',
  'total_value_annual',
  'total_value_annualized',
  'expected_value_annualized',
] as const

let pipelines = 0

async function seed(users: DemoUser[], apiUrl: string): Promise<Seed> {
  const byTitle = (title: string) => {
    const user = users.find((u) => u.title === title)
    if (user === undefined) throw new Error(`the demo seed has no ${title}`)
    return user
  }
  const crm = new CrmClient(apiUrl, byTitle('admin').api_key)
  const owners = new Map<string, string>()
  const ids: Record<string, string> = {}
  for (const title of ['admin', 'rep']) {
    const me = await new CrmClient(apiUrl, byTitle(title).api_key).request('GET', 'me/')
    ids[title] = String(me.id)
    owners.set(String(me.id), `${String(me.first_name)} ${String(me.last_name)}`)
  }
  pipelines += 1
  const name = `Report ${String(pipelines)} ${String(Date.now())}`
  const pipeline = await crm.request('POST', 'pipeline/', {
    name,
    statuses: [
      { label: 'Open', type: 'active' },
      { label: 'Signed', type: 'won' },
      { label: 'Gone', type: 'lost' },
    ],
  })
  const statuses = new Map(
    (Array.isArray(pipeline.statuses) ? pipeline.statuses : []).map((s: { label: string; id: string }) => [
      s.label,
      s.id,
    ]),
  )
  const organization = await crm.request('GET', `organization/${String(pipeline.organization_id)}/`)
  const rows = [
    ['Alder', 'Signed', 100_000, 'one_time', 'admin', '2025-01-15'],
    ['Birch', 'Open', 20_000, 'monthly', 'rep', '2025-01-20'],
    ['Cedar', 'Signed', 50_000, 'annual', 'rep', '2025-03-03'],
    ['Dogwood', 'Gone', 30_000, 'one_time', 'admin', '2025-03-30'],
    ['Elm', 'Open', 12_345, 'one_time', 'admin', '2025-05-05'],
  ] as const
  for (const [lead, status, value, period, owner, day] of rows) {
    const created = await crm.createLead({ name: `${lead} ${name}` })
    await crm.request('POST', 'opportunity/', {
      lead_id: created.id,
      status_id: statuses.get(status),
      value,
      value_period: period,
      confidence: 40,
      user_id: ids[owner],
      date_won: day,
    })
  }
  return { crm, pipelineId: String(pipeline.id), currency: String(organization.currency), owners }
}

/** The API's groups and totals for the report's filters. */
async function apiReport(s: Seed, groupBy: string): Promise<{ groups: Group[]; totals: Record<string, unknown> }> {
  const query = new URLSearchParams({
    pipeline_id: s.pipelineId,
    _group_by: groupBy,
    _limit: '0',
    date_won__gte: '2025-01-01',
    date_won__lte: '2025-12-31',
  })
  const page = await s.crm.request('GET', `opportunity/?${query.toString()}`)
  return { groups: Array.isArray(page.data) ? (page.data as Group[]) : [], totals: page }
}

function reportUrl(s: Seed, by: string): string {
  return `/reports?by=${by}&pipeline=${s.pipelineId}&from=2025-01-01&to=2025-12-31`
}

/** The table's body and totals rows as text, cell by cell. */
async function tableRows(page: Page): Promise<{ body: string[][]; total: string[] }> {
  const table = page.getByRole('table', { name: /^Opportunities by/ })
  const cells = (row: ReturnType<Page['locator']>) =>
    row.locator('th, td').evaluateAll((els) => els.map((e) => e.textContent.trim()))
  const body: string[][] = []
  for (const row of await table.locator('tbody tr').all()) body.push(await cells(row))
  return { body, total: await cells(table.locator('tfoot tr')) }
}

function expectedCells(label: string, sums: Record<string, unknown>, currency: string): string[] {
  return [label, String(sums.total_results), ...MONEY_FIELDS.map((f) => formatMoney(Number(sums[f]), currency))]
}

/** The lines of a downloaded CSV, split into cells (the journey's names hold no commas or quotes). */
async function downloadCsv(page: Page, button: ReturnType<Page['getByRole']>): Promise<string[][]> {
  const download = page.waitForEvent('download')
  await button.click()
  const path = await (await download).path()
  return readFileSync(path, 'utf8')
    .trim()
    .split(/\r?\n/)
    .map((line) => line.split(','))
}

test('a report by month matches the API, drills into a group by its bar and its row, and exports both as CSV', async ({
  page,
  demoStack,
}) => {
  const s = await seed(demoStack.users, demoStack.apiUrl)
  await signInAs(page, demoUser(demoStack.users, 'admin'))
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Reports' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'Reports' })).toBeFocused()
  await expect(page).toHaveTitle('Reports · Leadline')

  await page.goto(reportUrl(s, 'month'))
  const api = await apiReport(s, 'date_won__month')
  expect(api.groups.map((g) => g.key)).toEqual(['2025-01', '2025-03', '2025-05'])
  const months = ['January 2025', 'March 2025', 'May 2025']
  await expect(page.getByRole('table', { name: /^Opportunities by/ }).locator('tbody tr')).toHaveCount(3)
  const rows = await tableRows(page)
  expect(rows.body).toEqual(api.groups.map((g, i) => expectedCells(months[i] ?? '', g, s.currency)))
  expect(rows.total).toEqual(expectedCells('Total', api.totals, s.currency))
  await expectAccessible(page)

  // The table's CSV: the same rows, money as numbers in dollars, the currency in its own column.
  const csv = await downloadCsv(page, page.getByRole('button', { name: 'Download CSV' }))
  expect(csv[0]).toEqual([
    'Month',
    'Count',
    'Total one-time',
    'Total monthly',
    'Total annual',
    'Total annualized',
    'Expected annualized',
    'Currency',
  ])
  const csvRow = (label: string, sums: Record<string, unknown>) => [
    label,
    String(sums.total_results),
    ...MONEY_FIELDS.map((f) => String(Number(sums[f]) / 100)),
    s.currency,
  ]
  expect(csv.slice(1)).toEqual([...api.groups.map((g, i) => csvRow(months[i] ?? '', g)), csvRow('Total', api.totals)])

  // A bar opens its group (newest first, as the list is), in a URL of its own that survives a reload.
  await page.getByRole('link', { name: /^March 2025: .* won$/ }).click()
  await expect(page).toHaveURL(/group=2025-03/)
  const drill = page.getByRole('table', { name: 'March 2025: opportunities' })
  await expect(drill.getByRole('link')).toHaveText([/^Dogwood /, /^Cedar /])
  await page.reload()
  await expect(drill.getByRole('link')).toHaveText([/^Dogwood /, /^Cedar /])
  await expectAccessible(page)
  const drillCsv = await downloadCsv(page, page.getByRole('button', { name: 'Download CSV' }))
  expect(drillCsv.slice(1).map((row) => [row[0]?.split(' ')[0], row[2], row[5], row[8]])).toEqual([
    ['Dogwood', '300', s.currency, '2025-03-30'],
    ['Cedar', '500', s.currency, '2025-03-03'],
  ])

  await page.getByRole('link', { name: 'Back to the report' }).click()
  await expect(page).not.toHaveURL(/group=/)
  // A row's name opens its group too; so does Enter on a focused bar.
  await page
    .getByRole('table', { name: /^Opportunities by/ })
    .getByRole('link', { name: 'January 2025' })
    .click()
  await expect(page.getByRole('table', { name: 'January 2025: opportunities' }).getByRole('link')).toHaveText([
    /^Birch /,
    /^Alder /,
  ])
  await page.getByRole('link', { name: 'Back to the report' }).click()
  const mayBar = page.getByRole('link', { name: /^May 2025: .* expected$/ })
  await mayBar.focus()
  await page.keyboard.press('Enter')
  await expect(page).toHaveURL(/group=2025-05/)
  await expect(page.getByRole('table', { name: 'May 2025: opportunities' }).getByRole('link')).toHaveText([/^Elm /])
})

test('a report by owner matches the API, and a preset sets its dates in the URL', async ({ page, demoStack }) => {
  const s = await seed(demoStack.users, demoStack.apiUrl)
  await signInAs(page, demoUser(demoStack.users, 'admin'))
  await page.goto(reportUrl(s, 'month'))
  await expect(page.getByRole('table', { name: /^Opportunities by/ }).locator('tbody tr')).toHaveCount(3)
  await page.getByRole('combobox', { name: 'Group by' }).selectOption({ label: 'Owner' })
  await expect(page).toHaveURL(/by=owner/)

  const api = await apiReport(s, 'user_id')
  expect(api.groups).toHaveLength(2)
  await expect(page.getByRole('table', { name: /^Opportunities by/ }).locator('tbody tr')).toHaveCount(2)
  const rows = await tableRows(page)
  expect(rows.body).toEqual(
    api.groups.map((g) => expectedCells(s.owners.get(String(g.key)) ?? String(g.user_name), g, s.currency)),
  )
  expect(rows.total).toEqual(expectedCells('Total', api.totals, s.currency))

  // An owner's group lists that owner's opportunities only.
  const rep = api.groups.find((g) => (g.user_name ?? '').length > 0 && g.total_results === 2)
  const repName = s.owners.get(String(rep?.key)) ?? ''
  await page
    .getByRole('table', { name: /^Opportunities by/ })
    .getByRole('link', { name: repName })
    .click()
  await expect(page.getByRole('table', { name: `${repName}: opportunities` }).getByRole('link')).toHaveText([
    /^(Birch|Cedar) /,
    /^(Birch|Cedar) /,
  ])
  await page.getByRole('link', { name: 'Back to the report' }).click()

  // "This year" is this year in the browser's zone; the table follows, and says so when nothing matches.
  const year = await page.evaluate(() => new Date().getFullYear())
  await page.getByRole('button', { name: 'This year' }).click()
  await expect(page).toHaveURL(new RegExp(`from=${String(year)}-01-01.*to=${String(year)}-12-31`))
  await expect(page.getByRole('button', { name: 'This year' })).toHaveAttribute('aria-pressed', 'true')
  await expect(page.getByText('No opportunities match')).toBeVisible()
})

test('the report screen, its chart and a drill-down run under the Content Security Policy without a violation', async ({
  page,
  demoStack,
}) => {
  const violations: string[] = []
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text())
  })
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      console.error(`Content Security Policy violation: ${event.violatedDirective} ${event.sample}`)
    })
  })
  const s = await seed(demoStack.users, demoStack.apiUrl)
  await signInAs(page, demoUser(demoStack.users, 'admin'))
  await page.goto(reportUrl(s, 'month'))
  // The chart loads after the table; on a busy machine, well after.
  const chart = page.getByRole('figure')
  await expect(chart.getByRole('link', { name: /^March 2025: .* won$/ })).toBeVisible({ timeout: 20_000 })
  // The legend's swatches carry their colour as SVG attributes, not as style attributes a policy could refuse.
  await expect(chart.getByText('Won (annualized)')).toBeVisible()
  await expect(chart.locator('figcaption [style]')).toHaveCount(0)
  await page.getByRole('combobox', { name: 'Group by' }).selectOption({ label: 'Owner' })
  await expect(page.getByRole('table', { name: /^Opportunities by/ }).locator('tbody tr')).toHaveCount(2)
  await page
    .getByRole('link', { name: /: .* expected$/ })
    .first()
    .click()
  await expect(page.getByRole('link', { name: 'Back to the report' })).toBeVisible()
  await page.getByRole('link', { name: 'Back to the report' }).click()
  await page.getByRole('button', { name: 'All dates' }).click()
  await expect(chart.getByRole('link').first()).toBeVisible()

  expect(violations).toEqual([])
})
