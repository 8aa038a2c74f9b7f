import { gunzipSync } from 'node:zlib'
import type { LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, createTestContext, type TestContext } from '../../tooling/test-support/test-app.js'
import { formatTimestamp } from '../../platform/data/time.js'
import { createMetaCache, type MetaCache } from '../../crm/organizations/organization-meta.js'
import { createExportWorker, EXPORT_LEASE_MS, type ExportWorker } from './export-worker.js'
import { CONTACT_COLUMNS, LEAD_COLUMNS, OPPORTUNITY_COLUMNS } from './export-rows.js'
import { purgeOldExports } from './export-repo.js'
import { EXPORTS_UNDER_WAY_MAX } from './export-routes.js'

// Exports over HTTP, on the database LEADLINE_TEST_DB names: asked for, made by a worker driven here one drain at a
// time, and downloaded, gunzipped and parsed as a client would.

interface Export {
  id: string
  status: string
  download_url: string | null
  n_rows: number | null
  size: number | null
  error: string | null
  [key: string]: unknown
}

let ctx: TestContext
let worker: ExportWorker
const rep = () => ctx.org.member.key
const admin = () => ctx.org.admin.key
let acme: Record<string, unknown>
let globex: Record<string, unknown>
let industryField = ''
let scoreField = ''
let wonOpportunityId = ''

/** A worker of this test's app, as each api process runs one; `meta` lets a test hold one up. */
function newWorker(options: { owner?: string; meta?: MetaCache; batchSize?: number; chunkBytes?: number } = {}) {
  return createExportWorker({
    db: ctx.database.db,
    dialect: ctx.database.dialect,
    reader: ctx.database.reader,
    clock: ctx.clock,
    appUrl: ctx.config.appUrl,
    onError: (error) => {
      throw error
    },
    ...options,
  })
}

beforeAll(async () => {
  ctx = await createTestContext()
  worker = newWorker({ batchSize: 1, chunkBytes: 256 })
  industryField = (
    await call(ctx.app, admin(), 'POST', '/custom_field/lead/', { body: { name: 'Industry', type: 'text' } })
  ).json().id
  scoreField = (
    await call(ctx.app, admin(), 'POST', '/custom_field/lead/', { body: { name: 'Score', type: 'number' } })
  ).json().id
  const made = await call(ctx.app, rep(), 'POST', '/lead/', {
    body: {
      name: '=HYPERLINK("http://evil.example")',
      description: '+1 call back',
      url: 'https://acme.example',
      [`custom.${industryField}`]: '@risk',
      [`custom.${scoreField}`]: -5,
      addresses: [{ label: 'business', address_1: '1 Main St', city: 'Springfield', country: 'US' }],
      contacts: [
        {
          name: 'Ann Acme',
          title: '-VP',
          emails: [{ email: 'ann@acme.example', type: 'office' }],
          phones: [{ phone: '+14155550101', type: 'office' }],
        },
        { name: 'Bob Acme', emails: [{ email: 'bob@acme.example', type: 'office' }] },
      ],
    },
  })
  expect(made.statusCode, made.body).toBe(200)
  const other = await call(ctx.app, rep(), 'POST', '/lead/', {
    body: { name: 'Globex', contacts: [{ name: 'Gil Globex' }] },
  })
  const statuses = (await call(ctx.app, rep(), 'GET', '/status/opportunity/')).json().data as {
    id: string
    type: string
  }[]
  const won = statuses.find((s) => s.type === 'won')?.id
  const active = statuses.find((s) => s.type === 'active')?.id
  const opp = await call(ctx.app, rep(), 'POST', '/opportunity/', {
    body: { lead_id: made.json().id, status_id: won, value: 125_000, note: '=SUM(A1:A9)', date_won: '2026-02-20' },
  })
  expect(opp.statusCode, opp.body).toBe(200)
  wonOpportunityId = opp.json().id
  await call(ctx.app, rep(), 'POST', '/opportunity/', {
    body: { lead_id: other.json().id, status_id: active, value: 5_000, note: 'Small' },
  })
  // Both leads as GET /lead/{id}/ answers them now, after their opportunities were added.
  acme = (await call(ctx.app, rep(), 'GET', `/lead/${made.json().id}/`)).json()
  globex = (await call(ctx.app, rep(), 'GET', `/lead/${other.json().id}/`)).json()
})
afterAll(async () => {
  await ctx.close()
})

async function ask(path: string, body: unknown, key = rep()): Promise<Export> {
  const res = await call(ctx.app, key, 'POST', path, { body })
  expect(res.statusCode, res.body).toBe(200)
  return res.json<Export>()
}

async function get(id: string, key = rep(), path = '/export/'): Promise<LightMyRequestResponse> {
  return call(ctx.app, key, 'GET', `${path}${id}/`)
}

/** Fetches a download_url as a client: the gzip-compressed file, and its headers. */
async function download(url: string, key = rep()): Promise<LightMyRequestResponse> {
  return ctx.app.inject({
    method: 'GET',
    url,
    headers: { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` },
  })
}

/** Asks for an export, lets the worker make it, and answers the export and its file's text. */
async function made(path: string, body: unknown, key = rep()): Promise<{ done: Export; text: string }> {
  const asked = await ask(path, body, key)
  expect(await worker.drain()).toBe(1)
  const done = (await get(asked.id, key)).json<Export>()
  expect(done.status, String(done.error)).toBe('done')
  const res = await download(done.download_url ?? '', key)
  expect(res.statusCode, res.body).toBe(200)
  expect(res.headers['content-encoding']).toBe('gzip')
  const text = gunzipSync(res.rawPayload).toString('utf8')
  expect(res.rawPayload.length).toBe(done.size)
  return { done, text }
}

/** RFC 4180 CSV, as csv-stringify writes it. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = []
  let row: string[] = []
  let cell = ''
  let quoted = false
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charAt(i)
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"'
        i += 1
      } else if (c === '"') quoted = false
      else cell += c
    } else if (c === '"') quoted = true
    else if (c === ',') {
      row.push(cell)
      cell = ''
    } else if (c === '\n') {
      row.push(cell)
      rows.push(row)
      row = []
      cell = ''
    } else cell += c
  }
  if (cell !== '' || row.length > 0) rows.push([...row, cell])
  return rows
}

/** The CSV's rows as objects keyed by its header. */
function records(text: string): Record<string, string>[] {
  const [header, ...rows] = parseCsv(text)
  return rows.map((r) => Object.fromEntries((header ?? []).map((h, i) => [h, r[i] ?? ''])))
}

describe('from created to done', () => {
  it('answers a created export at once, makes it in the worker, and serves the file at its download_url', async () => {
    const asked = await ask('/export/lead/', { format: 'csv', type: 'leads' })
    expect(asked).toMatchObject({
      organization_id: ctx.org.id,
      created_by: ctx.org.member.id,
      object_type: 'lead',
      format: 'csv',
      type: 'leads',
      date_format: 'original',
      status: 'created',
      download_url: null,
      n_rows: null,
    })
    expect(asked.id).toMatch(/^expo_[0-9A-Za-z]{43}$/)
    expect((await get(asked.id, rep(), '/export/lead/')).json()).toEqual(asked)
    const noFile = await download(`/api/v1/export/${asked.id}/download/`)
    expect(noFile.statusCode).toBe(404)
    expect(noFile.json()).toEqual({ error: 'Export file not found.' })

    expect(await worker.drain()).toBe(1)
    const done = (await get(asked.id)).json<Export>()
    expect(done).toMatchObject({ status: 'done', n_rows: 2, error: null })
    expect(done.download_url).toBe(`/api/v1/export/${asked.id}/download/`)
    const res = await download(done.download_url ?? '')
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8')
    expect(res.headers['content-encoding']).toBe('gzip')
    // Chunks of 256 bytes here: the file was stored in several, and comes back whole.
    expect(done.size).toBeGreaterThan(256)
    const rows = records(gunzipSync(res.rawPayload).toString('utf8'))
    expect(rows.map((r) => r.id).sort()).toEqual([acme.id, globex.id].sort())
    expect(await worker.drain()).toBe(0)
  })

  it('records an export that cannot be made as error, with why, and serves no file', async () => {
    const asked = await ask('/export/lead/', { format: 'json', type: 'leads', query: 'url:acme' })
    // The search stops parsing after it was taken (as a grammar change could make it): the export fails.
    await ctx.database.db.updateTable('data_export').set({ query: 'name:(' }).where('id', '=', asked.id).execute()
    // A chunk an earlier claim left: a failed export keeps no file.
    await ctx.database.db
      .insertInto('data_export_chunk')
      .values({ export_id: asked.id, organization_id: ctx.org.id, seq: 0, content: 'AAAA' })
      .execute()
    expect(await worker.drain()).toBe(1)
    const failed = (await get(asked.id)).json<Export>()
    expect(failed.status).toBe('error')
    expect(failed.error).toMatch(/query/)
    expect(failed.download_url).toBeNull()
    expect((await download(`/api/v1/export/${asked.id}/download/`)).statusCode).toBe(404)
    const left = await ctx.database.db
      .selectFrom('data_export_chunk')
      .select('seq')
      .where('export_id', '=', asked.id)
      .execute()
    expect(left).toEqual([])
  })
})

describe('CSV files', () => {
  it('one row per lead, in Close’s columns with custom fields by name, formulas escaped, numbers kept', async () => {
    const { done, text } = await made('/export/lead/', { format: 'csv', type: 'leads' })
    expect(done.n_rows).toBe(2)
    const [header] = parseCsv(text)
    expect(header).toEqual([...LEAD_COLUMNS, 'custom.Industry', 'custom.Score'])
    const row = records(text).find((r) => r.id === acme.id)
    expect(row).toMatchObject({
      name: `'=HYPERLINK("http://evil.example")`,
      description: `'+1 call back`,
      url: 'https://acme.example',
      status_label: acme.status_label,
      address_1: '1 Main St',
      city: 'Springfield',
      primary_contact_name: 'Ann Acme',
      primary_contact_title: `'-VP`,
      primary_contact_primary_email: 'ann@acme.example',
      // A phone number in E.164 begins with `+`: text, so escaped like any other.
      primary_contact_primary_phone: `'+14155550101`,
      num_contacts: '2',
      num_opportunities: '1',
      'custom.Industry': `'@risk`,
      'custom.Score': '-5',
      created_by_name: 'Rey Rep',
    })
    // `original`: Close's timestamp with a space, microseconds and the offset.
    const created = String(acme.date_created)
    expect(row?.date_created).toBe(created.replace('T', ' '))
    expect(row?.date_created).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}\+00:00$/)
  })

  it('date_format iso8601 writes timestamps without microseconds; fields picks the columns, in their order', async () => {
    const { text } = await made('/export/lead/', {
      format: 'csv',
      type: 'leads',
      date_format: 'iso8601',
      fields: ['date_created', 'custom.Industry', 'id'],
      query: 'name:globex',
    })
    const rows = parseCsv(text)
    expect(rows).toEqual([
      ['date_created', 'custom.Industry', 'id'],
      [String(globex.date_created).replace(/\.\d{6}/, ''), '', String(globex.id)],
    ])
    expect(rows[1]?.[0]).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/)
  })

  it('one row per contact (type contacts), with its lead', async () => {
    const { done, text } = await made('/export/lead/', { format: 'csv', type: 'contacts' })
    expect(done.n_rows).toBe(3)
    expect(parseCsv(text)[0]).toEqual([...CONTACT_COLUMNS])
    const rows = records(text)
    const bob = rows.find((r) => r.primary_email === 'bob@acme.example')
    expect(bob).toMatchObject({ name: 'Bob Acme', lead_id: acme.id, lead_status_label: acme.status_label })
    expect(rows.find((r) => r.name === 'Ann Acme')).toMatchObject({
      title: `'-VP`,
      emails: 'ann@acme.example',
      phones: `'+14155550101`,
      lead_display_name: `'=HYPERLINK("http://evil.example")`,
    })
    expect(rows.filter((r) => r.lead_id === globex.id).map((r) => r.name)).toEqual(['Gil Globex'])
  })

  it('one row per opportunity (type lead_opps) of the leads the search finds', async () => {
    const { done, text } = await made('/export/lead/', { format: 'csv', type: 'lead_opps', query: 'has:opportunities' })
    expect(done.n_rows).toBe(2)
    expect(parseCsv(text)[0]).toEqual([...OPPORTUNITY_COLUMNS])
    const won = records(text).find((r) => r.id === wonOpportunityId)
    expect(won).toMatchObject({ value: '125000', note: `'=SUM(A1:A9)`, status_type: 'won', date_won: '2026-02-20' })
  })

  it('POST /export/opportunity/ takes the opportunity list’s filters', async () => {
    const { done, text } = await made('/export/opportunity/', { format: 'csv', params: { status_type: 'won' } })
    expect(done).toMatchObject({ object_type: 'opportunity', type: 'opportunities', params: { status_type: 'won' } })
    expect(records(text).map((r) => r.id)).toEqual([wonOpportunityId])
  })
})

describe('JSON files', () => {
  it('a JSON array of each lead as GET /lead/{id}/ answers it, in id order', async () => {
    const { done, text } = await made('/export/lead/', { format: 'json', type: 'leads' })
    const res = await download(done.download_url ?? '')
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8')
    const leads = JSON.parse(text) as Record<string, unknown>[]
    expect(leads).toEqual([acme, globex].sort((a, b) => (String(a.id) < String(b.id) ? -1 : 1)))
  })

  it('contacts and opportunities as the lead shows them; fields keeps those keys', async () => {
    const contacts = JSON.parse(
      (await made('/export/lead/', { format: 'json', type: 'contacts', query: 'url:acme' })).text,
    ) as unknown[]
    expect(contacts).toEqual(acme.contacts)
    const opportunities = JSON.parse(
      (await made('/export/lead/', { format: 'json', type: 'lead_opps', fields: ['id', 'value', 'nope'] })).text,
    ) as unknown[]
    expect(opportunities).toHaveLength(2)
    expect(opportunities).toContainEqual({ id: wonOpportunityId, value: 125_000 })
    const opportunityFile = JSON.parse(
      (await made('/export/opportunity/', { format: 'json', params: { status_type: 'won' } })).text,
    ) as unknown[]
    expect(opportunityFile).toEqual((acme.opportunities as unknown[]).map((o) => ({ ...(o as object) })))
  })

  it('an export that finds nothing is an empty array', async () => {
    const { done, text } = await made('/export/lead/', { format: 'json', type: 'leads', query: 'name:nobody' })
    expect(done.n_rows).toBe(0)
    expect(JSON.parse(text)).toEqual([])
  })
})

describe('what a request may ask', () => {
  it('refuses Close’s advanced filtering, a bad search, filter or field list with a field error', async () => {
    const cases: [string, unknown, string][] = [
      ['/export/lead/', { format: 'csv', type: 'leads', s_query: {} }, 's_query'],
      ['/export/lead/', { format: 'csv', type: 'leads', results_limit: 10 }, 'results_limit'],
      ['/export/lead/', { format: 'csv', type: 'leads', sort: [] }, 'sort'],
      ['/export/lead/', { format: 'csv', type: 'leads', query: 'name:(' }, 'query'],
      ['/export/lead/', { format: 'csv', type: 'leads', query: 'acme sort:name' }, 'query'],
      ['/export/lead/', { format: 'xlsx', type: 'leads' }, 'format'],
      ['/export/lead/', { format: 'csv' }, 'type'],
      ['/export/lead/', { format: 'csv', type: 'leads', date_format: 'excel' }, 'date_format'],
      [
        '/export/lead/',
        { format: 'csv', type: 'leads', fields: Array.from({ length: 201 }, (_, i) => `f${i}`) },
        'fields',
      ],
      ['/export/lead/', { format: 'csv', type: 'leads', fields: ['x'.repeat(201)] }, 'fields.0'],
      ['/export/opportunity/', { format: 'csv', params: { status_type: 'maybe' } }, 'params.status_type'],
      ['/export/opportunity/', { format: 'csv', params: { query: 'value>>1' } }, 'params.query'],
      [
        '/export/opportunity/',
        // Another last character than the id's own: a lead of nobody's.
        { format: 'csv', params: { lead_id: String(acme.id).replace(/.$/, (c) => (c === 'X' ? 'Y' : 'X')) } },
        'params.lead_id',
      ],
    ]
    for (const [path, body, field] of cases) {
      const res = await call(ctx.app, rep(), 'POST', path, { body })
      expect(res.statusCode, `${JSON.stringify(body)}: ${res.body}`).toBe(400)
      expect(Object.keys(res.json()['field-errors']), JSON.stringify(body)).toContain(field)
    }
    expect(
      (
        await call(ctx.app, rep(), 'POST', '/export/lead/', { body: { format: 'csv', type: 'leads', s_query: {} } })
      ).json(),
    ).toEqual({ errors: [], 'field-errors': { s_query: expect.stringMatching(/Not implemented/) } })
  })
})

describe('how many may be under way', () => {
  it('an organization has at most EXPORTS_UNDER_WAY_MAX exports under way; more is a 429 until one is done', async () => {
    await worker.drain()
    for (let i = 0; i < EXPORTS_UNDER_WAY_MAX; i++) await ask('/export/lead/', { format: 'csv', type: 'leads' })
    const refused = await call(ctx.app, admin(), 'POST', '/export/opportunity/', { body: { format: 'csv' } })
    expect(refused.statusCode).toBe(429)
    expect(refused.headers['retry-after']).toBe('10')
    expect(refused.json()).toEqual({ error: expect.stringMatching(/^At most 10 exports/) })
    // Another organization's exports are its own count.
    await ask('/export/lead/', { format: 'csv', type: 'leads' }, ctx.other.member.key)
    expect(await worker.drain()).toBe(EXPORTS_UNDER_WAY_MAX + 1)
    await ask('/export/lead/', { format: 'csv', type: 'leads' })
    expect(await worker.drain()).toBe(1)
  })
})

describe('who sees an export', () => {
  it('another organization’s export, list and file are 404s and unlisted', async () => {
    const { done } = await made('/export/lead/', { format: 'csv', type: 'leads' })
    for (const key of [ctx.other.admin.key, ctx.other.member.key]) {
      for (const path of ['/export/', '/export/lead/']) {
        const res = await get(done.id, key, path)
        expect(res.statusCode).toBe(404)
        expect(res.json()).toEqual({ error: 'Export not found.' })
      }
      expect((await download(done.download_url ?? '', key)).statusCode).toBe(404)
      const listed = (await call(ctx.app, key, 'GET', '/export/')).json()
      expect(listed.data.map((e: Export) => e.id)).not.toContain(done.id)
    }
  })

  it('a member sees their own exports only; an admin every one of the organization’s', async () => {
    const admins = await made('/export/lead/', { format: 'json', type: 'leads' }, admin())
    expect((await get(admins.done.id, rep())).statusCode).toBe(404)
    expect((await download(admins.done.download_url ?? '', rep())).statusCode).toBe(404)
    const mine = (await call(ctx.app, rep(), 'GET', '/export/?_limit=100')).json().data as Export[]
    expect(mine.map((e) => e.id)).not.toContain(admins.done.id)
    expect(mine.every((e) => e.created_by === ctx.org.member.id)).toBe(true)
    const all = (await call(ctx.app, admin(), 'GET', '/export/?_limit=100')).json().data as Export[]
    expect(all.map((e) => e.id)).toContain(admins.done.id)
    expect(all.map((e) => e.id)).toContain(mine[0]?.id)
    expect((await get(String(mine[0]?.id), admin())).statusCode).toBe(200)
  })

  it('lists newest first, pages with _skip and _limit, and by kind', async () => {
    const opportunityExport = await ask('/export/opportunity/', { format: 'csv' })
    const leadExport = await ask('/export/lead/', { format: 'csv', type: 'leads' })
    const first = (await call(ctx.app, rep(), 'GET', '/export/?_limit=1')).json()
    expect(first).toMatchObject({ has_more: true, data: [{ id: leadExport.id }] })
    const second = (await call(ctx.app, rep(), 'GET', '/export/?_limit=1&_skip=1')).json()
    expect(second.data[0].id).toBe(opportunityExport.id)
    const opportunities = (await call(ctx.app, rep(), 'GET', '/export/opportunity/')).json().data as Export[]
    expect(opportunities.every((e) => e.object_type === 'opportunity')).toBe(true)
    expect(opportunities[0]?.id).toBe(opportunityExport.id)
    const leads = (await call(ctx.app, rep(), 'GET', '/export/lead/')).json().data as Export[]
    expect(leads.map((e) => e.id)).not.toContain(opportunityExport.id)
    // A lead export is not an opportunity export.
    expect((await get(leadExport.id, rep(), '/export/opportunity/')).statusCode).toBe(404)
    expect((await call(ctx.app, rep(), 'GET', '/export/?_limit=101')).statusCode).toBe(400)
    await worker.drain()
  })
})

describe('retention', () => {
  it('deletes exports and their files made over the retention ago, and keeps newer ones', async () => {
    const { done } = await made('/export/lead/', { format: 'csv', type: 'leads', fields: ['id', 'constructor'] })
    const chunks = () =>
      ctx.database.db.selectFrom('data_export_chunk').select('seq').where('export_id', '=', done.id).execute()
    expect((await chunks()).length).toBeGreaterThan(0)
    expect(await purgeOldExports(ctx.database.db, ctx.clock, 30)).toBe(0)
    const fresh = await ask('/export/lead/', { format: 'csv', type: 'leads' })
    ctx.clock.advance(30 * 86_400_000 + 60_000)
    const later = await ask('/export/lead/', { format: 'csv', type: 'leads' })
    expect(await purgeOldExports(ctx.database.db, ctx.clock, 30)).toBeGreaterThanOrEqual(2)
    expect((await get(done.id)).statusCode).toBe(404)
    expect((await get(fresh.id)).statusCode).toBe(404)
    expect(await chunks()).toEqual([])
    expect((await get(later.id)).statusCode).toBe(200)
    await worker.drain()
  })
})

describe('several api processes', () => {
  it('share the exports: each is claimed and made once', async () => {
    const asked = await Promise.all(
      Array.from({ length: 4 }, () => ask('/export/lead/', { format: 'csv', type: 'contacts' })),
    )
    const workers = [newWorker({ owner: 'process-a' }), newWorker({ owner: 'process-b' })]
    const settled = await Promise.all(workers.map((w) => w.drain()))
    expect(settled.reduce((a, b) => a + b, 0)).toBe(4)
    const rows = await ctx.database.db
      .selectFrom('data_export')
      .select(['status', 'attempts', 'n_rows'])
      .where(
        'id',
        'in',
        asked.map((e) => e.id),
      )
      .execute()
    expect(rows).toEqual(asked.map(() => ({ status: 'done', attempts: 1, n_rows: 3 })))
  })
})

describe('a restart', () => {
  it('an export whose worker stopped holding its lease is made anew by another, without duplicate rows', async () => {
    const asked = await ask('/export/lead/', { format: 'csv', type: 'contacts' })
    // The first worker claims it and is held up, as a process that hangs or dies mid-export.
    let resume: () => void = () => undefined
    const held = new Promise<void>((resolve) => {
      resume = resolve
    })
    const real = createMetaCache(ctx.database.db, ctx.database.reader)
    const stuck = newWorker({
      owner: 'stuck-process',
      batchSize: 1,
      meta: { ...real, require: async (id, version) => held.then(() => real.require(id, version)) },
    })
    const first = stuck.drain()
    await expect.poll(async () => (await get(asked.id)).json<Export>().status).toBe('started')
    // What the first had written before it stopped.
    await ctx.database.db
      .insertInto('data_export_chunk')
      .values({ export_id: asked.id, organization_id: ctx.org.id, seq: 0, content: 'bm90IGd6aXA=' })
      .execute()
    const row = await ctx.database.db
      .selectFrom('data_export')
      .selectAll()
      .where('id', '=', asked.id)
      .executeTakeFirst()
    expect(row).toMatchObject({ lease_owner: 'stuck-process', attempts: 1 })

    // While the lease holds, nobody else takes it.
    expect(await worker.drain()).toBe(0)
    ctx.clock.advance(EXPORT_LEASE_MS + 1000)
    expect(await worker.drain()).toBe(1)
    const done = (await get(asked.id)).json<Export>()
    expect(done).toMatchObject({ status: 'done', n_rows: 3 })
    // The first worker wakes up, finds its lease gone, and writes nothing more.
    resume()
    expect(await first).toBe(0)
    const after = (await get(asked.id)).json<Export>()
    expect(after).toEqual(done)
    const text = gunzipSync((await download(done.download_url ?? '')).rawPayload).toString('utf8')
    const ids = records(text).map((r) => r.id)
    expect(ids).toHaveLength(3)
    expect(new Set(ids).size).toBe(3)
  })

  it('an export left in_progress by a process that died is claimed once its lease ran out', async () => {
    const asked = await ask('/export/opportunity/', { format: 'json' })
    const at = formatTimestamp(new Date(ctx.clock.now().getTime() + 30_000))
    await ctx.database.db
      .updateTable('data_export')
      .set({ status: 'in_progress', lease_owner: 'dead-process', lease_until: at, attempts: 1 })
      .where('id', '=', asked.id)
      .execute()
    await ctx.database.db
      .insertInto('data_export_chunk')
      .values([
        { export_id: asked.id, organization_id: ctx.org.id, seq: 0, content: 'AAAA' },
        { export_id: asked.id, organization_id: ctx.org.id, seq: 1, content: 'AAAA' },
      ])
      .execute()
    const waiting = (await get(asked.id)).json<Export>()
    expect(waiting).toMatchObject({ status: 'in_progress', download_url: null })
    expect(await worker.drain()).toBe(0)
    ctx.clock.advance(31_000)
    expect(await worker.drain()).toBe(1)
    const done = (await get(asked.id)).json<Export>()
    expect(done.status).toBe('done')
    const items = JSON.parse(gunzipSync((await download(done.download_url ?? '')).rawPayload).toString('utf8'))
    expect((items as { id: string }[]).map((o) => o.id).sort()).toHaveLength(2)
  })

  it('an export interrupted too often is given up as error', async () => {
    const asked = await ask('/export/lead/', { format: 'csv', type: 'leads' })
    await ctx.database.db
      .updateTable('data_export')
      .set({ status: 'in_progress', lease_owner: 'dead-process', lease_until: null, attempts: 3 })
      .where('id', '=', asked.id)
      .execute()
    expect(await worker.drain()).toBe(1)
    expect((await get(asked.id)).json()).toMatchObject({ status: 'error', error: expect.stringMatching(/interrupted/) })
  })

  it('a stopped worker gives its export back, and the next one makes it at once', async () => {
    const asked = await ask('/export/lead/', { format: 'csv', type: 'leads' })
    let resume: () => void = () => undefined
    const held = new Promise<void>((resolve) => {
      resume = resolve
    })
    const real = createMetaCache(ctx.database.db, ctx.database.reader)
    const background = newWorker({
      owner: 'stopping-process',
      meta: { ...real, require: async (id, version) => held.then(() => real.require(id, version)) },
    })
    background.start()
    await expect.poll(async () => (await get(asked.id)).json<Export>().status).toBe('started')
    const stopped = background.stop()
    resume()
    await stopped
    const row = await ctx.database.db
      .selectFrom('data_export')
      .select(['status', 'lease_until'])
      .where('id', '=', asked.id)
      .executeTakeFirst()
    expect(row).toEqual({ status: 'started', lease_until: null })
    // No wait for a lease to run out: the next worker takes it now.
    expect(await worker.drain()).toBe(1)
    expect((await get(asked.id)).json<Export>().status).toBe('done')
  })
})
