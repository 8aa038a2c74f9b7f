// @vitest-environment jsdom
import { screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import type { ExportView } from '@leadline/shared/export-schema'
import type { Opportunity, OpportunityAggregates } from '@leadline/shared/opportunity-schema'
import type { Pipeline } from '@leadline/shared/pipeline-schema'
import { describe, expect, it } from 'vitest'
import { leadFixture } from '../../lib/lead-fixture'
import { adminSession, axeViolations, fakeServer, renderScreen } from '../../lib/screen-fixture'
import { LeadsListPage } from '../leads/leads-list-page'
import { OpportunityList } from '../opportunities/opportunity-list'
import { ReportDrill } from '../reports/report-drill'
import type { ReportPage } from '../reports/report-groups'
import type { ReportSearch } from '../reports/report-search'

const STAMP = '2026-11-01T10:00:00.000000+00:00'

const lead = leadFixture()

const opportunity: Opportunity = {
  id: 'oppo_1',
  organization_id: 'orga_1',
  lead_id: 'lead_1',
  lead_name: 'Acme',
  contact_id: null,
  contact_name: null,
  status_id: 'stat_won',
  status_label: 'Won',
  status_display_name: 'Won',
  status_type: 'won',
  pipeline_id: 'pipe_sales',
  pipeline_name: 'Sales',
  value: 150_000,
  value_period: 'one_time',
  value_currency: 'USD',
  value_formatted: '$1,500',
  annualized_value: 150_000,
  expected_value: 150_000,
  annualized_expected_value: 150_000,
  confidence: 100,
  date_won: '2026-03-10',
  date_lost: null,
  note: '',
  user_id: 'user_ann',
  user_name: 'Ann Admin',
  created_by: null,
  created_by_name: null,
  updated_by: null,
  updated_by_name: null,
  date_created: STAMP,
  date_updated: STAMP,
  integration_links: [],
  custom: {},
}

const sums: OpportunityAggregates = {
  total_results: 1,
  count_by_value_period: { one_time: 1, monthly: 0, annual: 0 },
  total_value_one_time: 150_000,
  total_value_monthly: 0,
  total_value_annual: 0,
  total_value_annualized: 150_000,
  expected_value_one_time: 150_000,
  expected_value_monthly: 0,
  expected_value_annual: 0,
  expected_value_annualized: 150_000,
}

const pipeline: Pipeline = {
  id: 'pipe_sales',
  name: 'Sales',
  organization_id: 'orga_1',
  statuses: [],
  created_by: null,
  created_by_name: null,
  updated_by: null,
  updated_by_name: null,
  date_created: STAMP,
  date_updated: STAMP,
}

function exportAt(status: ExportView['status'], object_type: ExportView['object_type']): ExportView {
  const done = status === 'done'
  return {
    id: 'expo_1',
    organization_id: 'orga_1',
    created_by: 'user_ann',
    object_type,
    format: 'csv',
    type: object_type === 'lead' ? 'leads' : 'opportunities',
    date_format: 'original',
    fields: null,
    query: null,
    params: null,
    status,
    n_rows: done ? 12 : null,
    size: done ? 345 : null,
    error: status === 'error' ? 'The search can no longer run.' : null,
    download_url: done ? '/api/v1/export/expo_1/download/' : null,
    date_created: STAMP,
    date_updated: STAMP,
  }
}

/** The API's export routes: the POST answers `created`; each GET moves it one state on, through `steps`. */
function exportRoutes(object_type: ExportView['object_type'], steps: ExportView['status'][]) {
  let polls = 0
  return {
    [`POST /api/v1/export/${object_type}/`]: { body: exportAt('created', object_type) },
    'GET /api/v1/export/expo_1/': () => {
      const status = steps[Math.min(polls, steps.length - 1)] ?? 'created'
      polls += 1
      return { body: exportAt(status, object_type) }
    },
  }
}

async function openExport(title: string) {
  const user = userEvent.setup()
  await user.click(await screen.findByRole('button', { name: 'Export' }))
  const dialog = await screen.findByRole('dialog', { name: title })
  return { user, dialog }
}

describe('Export on the leads list', () => {
  it('exports the current search with the format, kind of row and the list’s columns chosen, then links the file', async () => {
    const server = fakeServer({
      'GET /auth/session': { body: adminSession },
      'GET /api/v1/lead/': { body: { has_more: false, total_results: 1, data: [lead] } },
      ...exportRoutes('lead', ['in_progress', 'done']),
    })
    renderScreen(() => <LeadsListPage search={{ query: 'status:potential' }} />)
    await screen.findByRole('link', { name: 'Acme' })
    const { user, dialog } = await openExport('Export leads')
    expect(await axeViolations()).toEqual([])

    await user.click(within(dialog).getByRole('radio', { name: 'JSON' }))
    await user.selectOptions(within(dialog).getByRole('combobox', { name: 'Rows' }), 'contacts')
    await user.click(within(dialog).getByRole('checkbox', { name: 'All columns' }))
    // None chosen is refused before anything is asked.
    await user.click(within(dialog).getByRole('button', { name: 'Start export' }))
    expect(within(dialog).getByRole('alert').textContent).toContain('Choose at least one column')
    expect(server.bodiesOf('POST /api/v1/export/lead/')).toEqual([])

    await user.click(within(dialog).getByRole('checkbox', { name: 'Name' }))
    await user.click(within(dialog).getByRole('checkbox', { name: 'Contact' }))
    await user.click(within(dialog).getByRole('button', { name: 'Start export' }))

    expect(await screen.findByText('Export done: 12 rows.')).toBeTruthy()
    expect(server.bodiesOf('POST /api/v1/export/lead/')).toEqual([
      { format: 'json', type: 'contacts', fields: ['lead_display_name', 'name'], query: 'status:potential' },
    ])
    expect(screen.queryByRole('dialog')).toBeNull()
    expect(screen.getByRole('link', { name: 'Download export' }).getAttribute('href')).toBe(
      '/api/v1/export/expo_1/download/',
    )
    // Polled while it was made, and no more once done.
    const polls = server.bodiesOf('GET /api/v1/export/expo_1/').length
    expect(polls).toBeGreaterThanOrEqual(2)
    await new Promise((resolve) => setTimeout(resolve, 1500))
    expect(server.bodiesOf('GET /api/v1/export/expo_1/')).toHaveLength(polls)
  })

  it('asks for every lead and every column by default, and says so when the export fails', async () => {
    const server = fakeServer({
      'GET /auth/session': { body: adminSession },
      'GET /api/v1/lead/': { body: { has_more: false, total_results: 1, data: [lead] } },
      ...exportRoutes('lead', ['started', 'error']),
    })
    renderScreen(() => <LeadsListPage search={{}} />)
    await screen.findByRole('link', { name: 'Acme' })
    const { user, dialog } = await openExport('Export leads')
    await user.click(within(dialog).getByRole('button', { name: 'Start export' }))
    expect(await screen.findByText('Export in progress…')).toBeTruthy()
    expect(await screen.findByText('Export failed: The search can no longer run.')).toBeTruthy()
    expect(server.bodiesOf('POST /api/v1/export/lead/')).toEqual([{ format: 'csv', type: 'leads' }])
    expect(screen.queryByRole('link', { name: 'Download export' })).toBeNull()
  })

  it('shows the API’s refusal in the dialog, which stays open', async () => {
    fakeServer({
      'GET /auth/session': { body: adminSession },
      'GET /api/v1/lead/': { body: { has_more: false, total_results: 1, data: [lead] } },
      'POST /api/v1/export/lead/': {
        status: 400,
        body: { errors: [], 'field-errors': { query: 'sort: is not taken.' } },
      },
    })
    renderScreen(() => <LeadsListPage search={{ query: 'sort:name' }} />)
    await screen.findByRole('link', { name: 'Acme' })
    const { user, dialog } = await openExport('Export leads')
    await user.click(within(dialog).getByRole('button', { name: 'Start export' }))
    expect((await within(dialog).findByRole('alert')).textContent).toContain('query: sort: is not taken.')
    expect(screen.getByRole('dialog', { name: 'Export leads' })).toBeTruthy()
  })
})

describe('Export on the board’s list view', () => {
  it('exports the opportunities under the board’s filters, in the chosen format', async () => {
    const server = fakeServer({
      'GET /auth/session': { body: adminSession },
      'GET /api/v1/opportunity/': { body: { ...sums, has_more: false, data: [opportunity] } },
      ...exportRoutes('opportunity', ['in_progress', 'done']),
    })
    const filters = {
      user_id__in: 'user_ann,user_bo',
      value_period: undefined,
      date_won__gte: '2026-01-01',
      date_won__lte: undefined,
      lead_query: 'name:acme',
    }
    renderScreen(() => <OpportunityList pipeline={pipeline} filters={filters} sort={undefined} currency="USD" />)
    await screen.findByRole('link', { name: 'Acme' })
    const { user, dialog } = await openExport('Export opportunities')
    // The kind of row and the list's columns are the lead list's choices, not the opportunities'.
    expect(within(dialog).queryByRole('combobox', { name: 'Rows' })).toBeNull()
    await user.click(within(dialog).getByRole('radio', { name: 'JSON' }))
    await user.click(within(dialog).getByRole('button', { name: 'Start export' }))
    expect((await screen.findByRole('link', { name: 'Download export' })).getAttribute('href')).toBe(
      '/api/v1/export/expo_1/download/',
    )
    expect(server.bodiesOf('POST /api/v1/export/opportunity/')).toEqual([
      {
        format: 'json',
        params: {
          pipeline_id: 'pipe_sales',
          user_id__in: 'user_ann,user_bo',
          date_won__gte: '2026-01-01',
          lead_query: 'name:acme',
        },
      },
    ])
  })
})

describe('Export on a report’s drill-down', () => {
  it('exports the group’s opportunities: the report’s filters narrowed to the group', async () => {
    const server = fakeServer({
      'GET /auth/session': { body: adminSession },
      'GET /api/v1/opportunity/': { body: { ...sums, has_more: false, data: [opportunity] } },
      ...exportRoutes('opportunity', ['done']),
    })
    const search: ReportSearch = {
      by: 'owner',
      pipeline: 'pipe_sales',
      status: 'won',
      owners: undefined,
      from: '2026-01-01',
      to: '2026-12-31',
      dates: undefined,
      group: 'user_ann',
    }
    const page: ReportPage = { ...sums, has_more: false, data: [{ ...sums, key: 'user_ann', user_name: 'Ann Admin' }] }
    renderScreen(() => <ReportDrill search={search} group="user_ann" page={page} />)
    await screen.findByRole('link', { name: 'Acme' })
    const { user, dialog } = await openExport('Export opportunities')
    await user.click(within(dialog).getByRole('button', { name: 'Start export' }))
    expect(await screen.findByText('Export done: 12 rows.')).toBeTruthy()
    expect(screen.getByRole('link', { name: 'Download export' }).getAttribute('href')).toBe(
      '/api/v1/export/expo_1/download/',
    )
    expect(server.bodiesOf('POST /api/v1/export/opportunity/')).toEqual([
      {
        format: 'csv',
        params: {
          pipeline_id: 'pipe_sales',
          status_type: 'won',
          user_id: 'user_ann',
          date_won__gte: '2026-01-01',
          date_won__lte: '2026-12-31',
        },
      },
    ])
  })
})
