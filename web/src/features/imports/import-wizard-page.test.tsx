// @vitest-environment jsdom
import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import type { CustomField } from '@leadline/shared/custom-field-schema'
import type { ImportView } from '@leadline/shared/import-schema'
import { describe, expect, it, vi } from 'vitest'
import { adminSession, axeViolations, descriptionOf, fakeServer, renderScreen } from '../../lib/screen-fixture'
import { LeadsListPage } from '../leads/leads-list-page'
import { ImportWizardPage } from './import-wizard-page'

const STAMP = '2026-11-29T10:00:00.000000+00:00'

const industry: CustomField = {
  id: 'cf_industry',
  name: 'Industry',
  description: null,
  type: 'text',
  choices: null,
  accepts_multiple_values: false,
  position: 0,
  organization_id: 'orga_1',
  created_by: null,
  updated_by: null,
  date_created: STAMP,
  date_updated: STAMP,
}

const uploaded: ImportView = {
  id: 'imp_1',
  organization_id: 'orga_1',
  created_by: 'user_ann',
  filename: 'leads.csv',
  size: 120,
  encoding: 'utf-8',
  delimiter: ',',
  columns: ['Company', 'Email', 'Favourite colour', 'Industry'],
  preview: [
    ['Bluth Company', 'george@bluth.example', 'blue', 'Real estate'],
    ['Sitwell Enterprises', 'lucille@sitwell.example', 'green', 'Construction'],
  ],
  n_rows: 2,
  mapping: { Company: 'lead.name', Email: 'contact.email', Industry: 'custom.cf_industry' },
  duplicate_rule: { match: 'email', action: 'skip' },
  status: 'uploaded',
  progress: { rows_done: 0, rows_total: 0 },
  check: null,
  counts: { created: 0, updated: 0, contacts_created: 0, skipped: 0, failed: 0 },
  failed_rows_url: null,
  error: null,
  date_created: STAMP,
  date_updated: STAMP,
}

const FILE = 'Company,Email,Favourite colour,Industry\nBluth Company,george@bluth.example,blue,Real estate\n'

const list = <T,>(data: T[]) => ({ body: { has_more: false, data } })

/** An answer that gives each view in turn, one per request, then the last one for good. */
function inTurn(...views: ImportView[]) {
  let asked = 0
  return () => {
    const view = views[Math.min(asked, views.length - 1)]
    asked += 1
    return { body: view }
  }
}

function importServer(extra: Parameters<typeof fakeServer>[0] = {}) {
  return fakeServer({
    'GET /auth/session': { body: adminSession },
    'GET /api/v1/custom_field/lead/': list([industry]),
    'GET /api/v1/custom_field/contact/': list([]),
    'GET /api/v1/custom_field/opportunity/': list([]),
    'GET /api/v1/import/imp_1/': { body: uploaded },
    'PUT /api/v1/import/imp_1/': (body) => ({ body: { ...uploaded, ...(body as object) } }),
    ...extra,
  })
}

interface SentUpload {
  url: string
  headers: Record<string, string>
  body: Blob
}

/** XMLHttpRequest as the upload uses it: reports half the file sent, then answers `status` with `body`. */
function fakeUploads(status: number, answer: unknown) {
  const sent: SentUpload[] = []
  let finish: () => void = () => undefined
  class FakeXhr {
    upload: { onprogress: ((event: ProgressEvent) => void) | null } = { onprogress: null }
    onload: (() => void) | null = null
    onerror: (() => void) | null = null
    status = 0
    responseText = ''
    private url = ''
    private readonly headers: Record<string, string> = {}
    open(_method: string, url: string) {
      this.url = url
    }
    setRequestHeader(name: string, value: string) {
      this.headers[name] = value
    }
    send(body: Blob) {
      sent.push({ url: this.url, headers: this.headers, body })
      this.upload.onprogress?.(
        new ProgressEvent('progress', { loaded: body.size / 2, total: body.size, lengthComputable: true }),
      )
      // The test says when the rest arrives, so that the progress can be seen meanwhile.
      finish = () => {
        this.status = status
        this.responseText = JSON.stringify(answer)
        this.onload?.()
      }
    }
  }
  vi.stubGlobal('XMLHttpRequest', FakeXhr)
  return {
    sent,
    finish: () => {
      finish()
    },
  }
}

describe('Import leads: upload', () => {
  it('is reached from the leads list by its Import link', async () => {
    fakeServer({
      'GET /auth/session': { body: adminSession },
      'GET /api/v1/lead/': { body: { has_more: false, total_results: 0, data: [] } },
    })
    const { router } = renderScreen(() => <LeadsListPage search={{}} />)
    const user = userEvent.setup()
    await user.click(await screen.findByRole('link', { name: 'Import' }))
    await waitFor(() => {
      expect(router.state.location.pathname).toBe('/leads/import')
    })
  })

  it('previews the file picked, uploads it with its progress, and goes on to the mapping pre-filled from the answer', async () => {
    importServer()
    const uploads = fakeUploads(201, uploaded)
    const { router } = renderScreen(() => <ImportWizardPage id={undefined} />)
    expect(await screen.findByRole('heading', { name: 'Import leads', level: 1 })).toBeTruthy()
    const user = userEvent.setup()
    await user.upload(screen.getByLabelText('Choose a CSV file'), new File([FILE], 'leads.csv', { type: 'text/csv' }))

    const preview = await screen.findByRole('table', { name: 'Preview of the file' })
    expect(
      within(preview)
        .getAllByRole('columnheader')
        .map((th) => th.textContent),
    ).toEqual(['Company', 'Email', 'Favourite colour', 'Industry'])
    expect(within(preview).getByRole('cell', { name: 'george@bluth.example' })).toBeTruthy()
    const progress = await screen.findByRole('progressbar', { name: 'Upload progress' })
    expect(progress.getAttribute('aria-valuenow')).toBe('50')
    expect(await axeViolations()).toEqual([])

    expect(uploads.sent).toHaveLength(1)
    expect(uploads.sent[0]?.url).toBe('/api/v1/import/?filename=leads.csv')
    expect(uploads.sent[0]?.headers).toMatchObject({ 'X-Requested-With': 'leadline', 'Content-Type': 'text/csv' })
    // The file itself is the body, for the browser to stream; never read whole here.
    expect(uploads.sent[0]?.body).toBeInstanceOf(File)
    expect(await uploads.sent[0]?.body.text()).toBe(FILE)

    uploads.finish()
    await waitFor(() => {
      expect(router.state.location.search).toEqual({ id: 'imp_1' })
    })
  })

  it('shows the refusal of a file that is too large or not CSV', async () => {
    importServer()
    const uploads = fakeUploads(413, { error: 'The file is larger than 500 MiB.' })
    renderScreen(() => <ImportWizardPage id={undefined} />)
    const user = userEvent.setup()
    await user.upload(await screen.findByLabelText('Choose a CSV file'), new File([FILE], 'huge.csv'))
    uploads.finish()
    expect((await screen.findByRole('alert')).textContent).toBe('The file is larger than 500 MiB.')
    expect(uploads.sent[0]?.headers['Content-Type']).toBe('application/octet-stream')
  })
})

describe('Import leads: mapping, duplicates and the dry run', () => {
  it('maps each column with its samples, pre-filled; saves the mapping and the rule, then shows what the check found', async () => {
    const checked: ImportView = {
      ...uploaded,
      status: 'checked',
      check: {
        rows_ok: 1,
        rows_failed: 1,
        problems: { 'not an email address': 1 },
        sample: [{ row: 2, column: 'Email', value: 'lucille at sitwell', problem: 'not an email address' }],
      },
      failed_rows_url: '/api/v1/import/imp_1/failed_rows/',
    }
    const server = importServer({
      'POST /api/v1/import/imp_1/dry_run/': { body: { ...uploaded, status: 'checking' } },
    })
    renderScreen(() => <ImportWizardPage id="imp_1" />)
    const company = await screen.findByRole<HTMLSelectElement>('combobox', { name: 'Company' })
    expect(company.value).toBe('lead.name')
    expect(screen.getByRole<HTMLSelectElement>('combobox', { name: 'Email' }).value).toBe('contact.email')
    expect(screen.getByRole<HTMLSelectElement>('combobox', { name: 'Industry' }).value).toBe('custom.cf_industry')
    const colour = screen.getByRole<HTMLSelectElement>('combobox', { name: 'Favourite colour' })
    expect(colour.value).toBe('')
    expect(within(colour).getByRole('option', { name: 'New custom field' })).toBeTruthy()
    expect(within(colour).getByRole('option', { name: 'Lead field: Industry' })).toBeTruthy()
    expect(screen.getByRole('rowheader', { name: 'Favourite colour' }).closest('tr')?.textContent).toContain(
      'blue, green',
    )
    expect(await axeViolations()).toEqual([])

    const user = userEvent.setup()
    await user.selectOptions(colour, 'New custom field')
    await user.selectOptions(screen.getByRole('combobox', { name: 'Industry' }), 'Don’t import')
    await user.selectOptions(screen.getByRole('combobox', { name: 'Match rows to existing leads on' }), 'Company name')
    await user.selectOptions(screen.getByRole('combobox', { name: 'When a row matches a lead' }), 'Update the lead')
    server.answers['GET /api/v1/import/imp_1/'] = inTurn({ ...uploaded, status: 'checking' }, checked)
    await user.click(screen.getByRole('button', { name: 'Check file' }))

    expect(server.bodiesOf('PUT /api/v1/import/imp_1/')).toEqual([
      {
        mapping: { Company: 'lead.name', Email: 'contact.email', 'Favourite colour': 'new_custom_field' },
        duplicate_rule: { match: 'name', action: 'update' },
      },
    ])
    expect(await screen.findByText('1 row ready to import, 1 row with problems.')).toBeTruthy()
    const problems = screen.getByRole('table', { name: 'Problems' })
    expect(within(problems).getByRole('row', { name: 'not an email address 1' })).toBeTruthy()
    const sample = screen.getByRole('table', { name: 'Problem rows' })
    expect(within(sample).getByRole('row', { name: '2 Email lucille at sitwell not an email address' })).toBeTruthy()
    expect(screen.getByRole('link', { name: 'Download problem rows' }).getAttribute('href')).toBe(
      '/api/v1/import/imp_1/failed_rows/',
    )
    // The PUT came before the dry run.
    const order = server.sent.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path}`)
    expect(order).toEqual(['PUT /api/v1/import/imp_1/', 'POST /api/v1/import/imp_1/dry_run/'])
  })

  it('shows the API’s error on a column under its select, and nothing is checked', async () => {
    const server = importServer({
      'PUT /api/v1/import/imp_1/': {
        status: 400,
        body: {
          error: 'The mapping names Company twice.',
          'field-errors': { 'mapping.Email': 'Company is mapped already.' },
        },
      },
    })
    renderScreen(() => <ImportWizardPage id="imp_1" />)
    const user = userEvent.setup()
    await user.selectOptions(await screen.findByRole('combobox', { name: 'Email' }), 'Company')
    await user.click(screen.getByRole('button', { name: 'Check file' }))
    const email = screen.getByRole('combobox', { name: 'Email' })
    await waitFor(() => {
      expect(descriptionOf(email)).toBe('Company is mapped already.')
    })
    expect(screen.getByRole('alert').textContent).toBe('The mapping names Company twice.')
    expect(server.bodiesOf('POST /api/v1/import/imp_1/dry_run/')).toEqual([])
  })
})

describe('Import leads: the run', () => {
  const running = (rows_done: number): ImportView => ({
    ...uploaded,
    status: 'running',
    progress: { rows_done, rows_total: 2000 },
  })
  const done: ImportView = {
    ...uploaded,
    status: 'done',
    progress: { rows_done: 2000, rows_total: 2000 },
    counts: { created: 1500, updated: 300, contacts_created: 1700, skipped: 150, failed: 50 },
    failed_rows_url: '/api/v1/import/imp_1/failed_rows/',
  }

  it('starts it, shows a live progress bar, then the counts, the failed rows and Undo import, asked first', async () => {
    const server = importServer({
      'POST /api/v1/import/imp_1/run/': { body: { ...uploaded, status: 'queued' } },
      'POST /api/v1/import/imp_1/undo/': { body: { ...done, status: 'undoing' } },
    })
    renderScreen(() => <ImportWizardPage id="imp_1" />)
    const user = userEvent.setup()
    await screen.findByRole('combobox', { name: 'Company' })
    server.answers['GET /api/v1/import/imp_1/'] = inTurn(running(500), running(1200), done)
    await user.click(screen.getByRole('button', { name: 'Start import' }))

    const bar = await screen.findByRole('progressbar', { name: 'Import progress' })
    await waitFor(() => {
      expect(bar.getAttribute('aria-valuenow')).toBe('1200')
    })
    expect(bar.getAttribute('aria-valuemax')).toBe('2000')
    expect(await screen.findByText('The import is done.', {}, { timeout: 5000 })).toBeTruthy()
    const counts = screen.getAllByRole('definition')[0]?.parentElement
    expect(counts?.textContent).toBe('Created1,500Updated300Skipped150Failed50')
    expect(screen.getByRole('link', { name: 'Download failed rows' }).getAttribute('href')).toBe(
      '/api/v1/import/imp_1/failed_rows/',
    )
    expect(server.bodiesOf('POST /api/v1/import/imp_1/run/')).toHaveLength(1)
    expect(server.bodiesOf('PUT /api/v1/import/imp_1/')).toHaveLength(1)
    expect(await axeViolations()).toEqual([])

    await user.click(screen.getByRole('button', { name: 'Undo import' }))
    const confirm = await screen.findByRole('dialog', { name: 'Undo this import?' })
    expect(server.bodiesOf('POST /api/v1/import/imp_1/undo/')).toEqual([])
    server.answers['GET /api/v1/import/imp_1/'] = inTurn({ ...done, status: 'undoing' }, { ...done, status: 'undone' })
    await user.click(within(confirm).getByRole('button', { name: 'Undo import' }))
    expect(await screen.findByText(/The import was undone/)).toBeTruthy()
    expect(server.bodiesOf('POST /api/v1/import/imp_1/undo/')).toHaveLength(1)
    expect(screen.queryByRole('button', { name: 'Undo import' })).toBeNull()
  })

  it('says why an import failed', async () => {
    importServer({
      'GET /api/v1/import/imp_1/': { body: { ...running(10), status: 'error', error: 'The file changed.' } },
    })
    renderScreen(() => <ImportWizardPage id="imp_1" />)
    expect(await screen.findByText('The import failed: The file changed.')).toBeTruthy()
    expect(screen.queryByRole('button', { name: 'Undo import' })).toBeNull()
  })
})
