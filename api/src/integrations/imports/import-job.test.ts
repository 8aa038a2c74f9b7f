import { parse } from 'csv-parse/sync'
import type { LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  basicAuth,
  call,
  createTestContext,
  type TestContext,
  type TestOrg,
} from '../../tooling/test-support/test-app.js'
import { leadChangePosition, leadChangesSince } from '../../crm/leads/lead-changes.js'
import { refreshLeadSearchOf } from '../../crm/leads/lead-search-index.js'
import { createImportWorker, IMPORT_LEASE_MS, type ImportWorkerOptions } from './import-worker.js'
import { importRows } from './import-file.js'

// Import jobs over HTTP, on the database LEADLINE_TEST_DB names: dry runs, runs (grouping, each duplicate rule,
// events, failed rows), undo, and a run interrupted and resumed, with a worker driven here one drain at a time.

let ctx: TestContext

interface Import {
  id: string
  status: string
  mapping: Record<string, string>
  counts: { created: number; updated: number; contacts_created: number; skipped: number; failed: number }
  check: { rows_ok: number; rows_failed: number; problems: Record<string, number>; sample: unknown[] } | null
  progress: { rows_done: number; rows_total: number }
  failed_rows_url: string | null
  error: string | null
}
interface Lead {
  id: string
  display_name: string
  url: string | null
  description: string
  status_label: string
  contacts: { name: string; emails: { email: string }[]; phones: { phone: string }[] }[]
  addresses: { city: string | null }[]
  opportunities: { value: number | null; status_label: string; note: string }[]
  [key: string]: unknown
}

function worker(options: Partial<ImportWorkerOptions> = {}) {
  return createImportWorker({
    db: ctx.database.db,
    dialect: ctx.database.dialect,
    reader: ctx.database.reader,
    clock: ctx.clock,
    appUrl: ctx.config.appUrl,
    sink: ctx.app.eventSink,
    batchSize: 2,
    onError: (error) => {
      throw error
    },
    ...options,
  })
}

beforeAll(async () => {
  ctx = await createTestContext()
})
afterAll(async () => {
  await ctx.close()
})

async function upload(org: TestOrg, text: string): Promise<Import> {
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/api/v1/import/?filename=leads.csv',
    headers: { authorization: basicAuth(org.member.key), 'content-type': 'text/csv' },
    payload: text,
  })
  expect(res.statusCode, res.body).toBe(201)
  return res.json<Import>()
}

async function act(org: TestOrg, id: string, action: string): Promise<Import> {
  const res = await call(ctx.app, org.member.key, 'POST', `/import/${id}/${action}/`)
  expect(res.statusCode, res.body).toBe(200)
  await worker().drain()
  return (await call(ctx.app, org.member.key, 'GET', `/import/${id}/`)).json<Import>()
}

async function setUp(org: TestOrg, id: string, body: unknown) {
  const res = await call(ctx.app, org.member.key, 'PUT', `/import/${id}/`, { body })
  expect(res.statusCode, res.body).toBe(200)
}

async function leads(org: TestOrg): Promise<Lead[]> {
  const res = await call(ctx.app, org.admin.key, 'GET', '/lead/', { query: { _limit: '200' } })
  const listed = res.json<{ data: { id: string }[] }>().data
  const full = await Promise.all(listed.map((l) => call(ctx.app, org.admin.key, 'GET', `/lead/${l.id}/`)))
  return full.map((r) => r.json<Lead>()).sort((a, b) => a.display_name.localeCompare(b.display_name))
}

async function failedRows(org: TestOrg, url: string): Promise<string[][]> {
  const res: LightMyRequestResponse = await ctx.app.inject({
    method: 'GET',
    url,
    headers: { authorization: basicAuth(org.member.key) },
  })
  expect(res.statusCode).toBe(200)
  expect(res.headers['content-type']).toMatch(/^text\/csv/)
  expect(res.headers['content-disposition']).toMatch(/^attachment/)
  const rows: string[][] = parse(res.body, { relax_column_count: true })
  return rows
}

const FILE = [
  'Company,First Name,Last Name,Email,Phone,City,Status,Owner,Deal Value,Deal Status,Segment',
  'Acme,Ann,Acme,ann@acme.example,+14155550101,Springfield,Qualified,rep,"$1,200.50",Active,Gold',
  ' acme ,Bob,Acme,bob@acme.example,,Springfield,,,,,',
  'Globex,Gil,Globex,gil@globex.example,,Cypress,,,,,',
  ',Solo,Person,solo@person.example,,,,,,,',
  'Initech,Ian,Initech,not-an-email,,,,,,,',
  'ACME,Cat,Acme,cat@acme.example,,Shelbyville,,,,,',
  'Hooli,,,,,,Nonsense,,,,',
  ',,,,,,,,,,',
].join('\n')

describe('an import run', () => {
  it('groups rows by company across batches, writes contacts, addresses, values, owner and opportunity, and events', async () => {
    const org = await ctx.createOrg('Grouping')
    const owner = (
      await call(ctx.app, org.admin.key, 'POST', '/custom_field/lead/', { body: { name: 'Owner', type: 'user' } })
    ).json<{ id: string }>().id
    const made = await upload(org, FILE.replace(',rep,', `,${await memberEmail(org)},`))
    expect(made.mapping.Owner).toBe(`custom.${owner}`)
    await setUp(org, made.id, {
      mapping: { ...made.mapping, Segment: 'new_custom_field', 'Deal Status': 'opportunity.status' },
      duplicate_rule: { match: 'none', action: 'create' },
    })
    const before = await leadChangePosition(ctx.database.db, ctx.database.dialect, org.id)
    const done = await act(org, made.id, 'run')
    expect(done.status, JSON.stringify(done)).toBe('done')
    expect(done.counts).toEqual({ created: 3, updated: 0, contacts_created: 5, skipped: 0, failed: 3 })
    expect(done.progress).toEqual({ rows_done: 8, rows_total: 8 })
    const all = await leads(org)
    // The leads written in bulk (their rows before them, on SQLite) are in the feed of changes all the same.
    const fed = await leadChangesSince(ctx.database.db, org.id, before)
    expect(new Set(fed.changed)).toEqual(new Set(all.map((l) => l.id)))
    expect(all.map((l) => l.display_name)).toEqual(['Acme', 'Globex', 'Solo Person'])
    const acme = all.find((l) => l.display_name === 'Acme')
    expect(acme?.contacts.map((c) => c.name)).toEqual(['Ann Acme', 'Bob Acme', 'Cat Acme'])
    expect(acme?.addresses.map((a) => a.city)).toEqual(['Springfield', 'Shelbyville'])
    expect(acme?.status_label).toBe('Qualified')
    expect(acme?.[`custom.${owner}`]).toBe(org.member.id)
    expect(acme?.opportunities).toMatchObject([{ value: 120050, status_label: 'Active' }])
    const segment = Object.keys(acme ?? {}).find((k) => k.startsWith('custom.') && acme?.[k] === 'Gold')
    expect(segment).toBeDefined()
    // The new field was made as POST /custom_field/lead/ makes one, with its event.
    const fieldEvents = await call(ctx.app, org.admin.key, 'GET', '/event/', {
      query: { object_type: 'custom_field.lead', action: 'created', _limit: '50' },
    })
    expect(
      fieldEvents
        .json<{ data: { object_id: string; meta: Record<string, string>; data: { name: string } }[] }>()
        .data.map((e) => [`custom.${e.object_id}`, e.data.name, e.meta.import_id]),
    ).toContainEqual([segment, 'Segment', made.id])
    expect(all.find((l) => l.display_name === 'Solo Person')?.contacts.map((c) => c.name)).toEqual(['Solo Person'])
    // Events: a `created` lead event per lead, saying the import.
    const events = await call(ctx.app, org.admin.key, 'GET', '/event/', {
      query: { object_type: 'lead', action: 'created', _limit: '50' },
    })
    const metas = events.json<{ data: { lead_id: string; meta: Record<string, string> }[] }>().data
    expect(
      metas
        .filter((e) => e.meta.import_id === made.id)
        .map((e) => e.lead_id)
        .sort(),
    ).toEqual(all.map((l) => l.id).sort())
    // Written in bulk, the leads' search rows are those a lead write builds, and the triggers counted the leads.
    const db = ctx.database.db
    const texts = await db
      .selectFrom('lead')
      .select(['id', 'name', 'description', 'url', 'status_id'])
      .where('organization_id', '=', org.id)
      .execute()
    expect(
      await db.selectFrom('lead_search').select('lead_id').where('organization_id', '=', org.id).execute(),
    ).toHaveLength(3)
    expect(await refreshLeadSearchOf(db, org.id, texts)).toBe(0)
    const counted = await db
      .selectFrom('organization_lead_count')
      .select('leads')
      .where('organization_id', '=', org.id)
      .executeTakeFirst()
    expect(Number(counted?.leads)).toBe(3)
    // The failed rows, each with its reason, escaped as exports escape.
    expect(done.failed_rows_url).toBe(`/api/v1/import/${made.id}/failed_rows/`)
    const rows = await failedRows(org, done.failed_rows_url ?? '')
    expect(rows[0]).toEqual([...(FILE.split('\n')[0] ?? '').split(','), 'reason'])
    expect(rows.slice(1).map((r) => [r[0], r.at(-1)])).toEqual([
      ['Initech', 'Email: not an email address'],
      ['Hooli', 'Status: unknown lead status'],
      ['', 'neither a company nor a contact'],
    ])
  })

  it("writes in each created event the lead's view as the API shows it", async () => {
    const org = await ctx.createOrg('Event views')
    const tier = (
      await call(ctx.app, org.admin.key, 'POST', '/custom_field/lead/', { body: { name: 'Tier', type: 'text' } })
    ).json<{ id: string }>().id
    const shoe = (
      await call(ctx.app, org.admin.key, 'POST', '/custom_field/contact/', { body: { name: 'Shoe', type: 'number' } })
    ).json<{ id: string }>().id
    const file = [
      'Company,Contact Name,Title,Email,Phone,Website,Address,City,Zip,Tier,Shoe,Deal Value,Deal Status,Deal Close Date',
      'Acme,Ann Acme,CEO,ann@acme.example,+1 415 555 0101,https://acme.example,1 Main St,Springfield,12345,Gold,42,100,Active,2031-05-06',
      'Acme,Bob Acme,,bob@acme.example,(613) 555-0102,,2 Side St,Springfield,,,,,,',
      'Globex,Gil Globex,CTO,,+44 20 7946 0000,,,,,Silver,40,,,',
    ].join('\n')
    const made = await upload(org, file)
    await setUp(org, made.id, {
      mapping: {
        ...made.mapping,
        Tier: `custom.${tier}`,
        Shoe: `custom.${shoe}`,
        'Deal Value': 'opportunity.value',
        'Deal Status': 'opportunity.status',
        'Deal Close Date': 'opportunity.date_won',
      },
      duplicate_rule: { match: 'none', action: 'create' },
    })
    const done = await act(org, made.id, 'run')
    expect(done.counts.created).toBe(2)
    const events = await call(ctx.app, org.admin.key, 'GET', '/event/', {
      query: { object_type: 'lead', action: 'created', _limit: '50' },
    })
    const created = events.json<{ data: { lead_id: string; data: Record<string, unknown> }[] }>().data
    expect(created).toHaveLength(2)
    for (const event of created) {
      const lead = (await call(ctx.app, org.admin.key, 'GET', `/lead/${event.lead_id}/`)).json<Lead>()
      expect(event.data).toEqual(lead)
    }
    const acme = created.find((e) => e.data.display_name === 'Acme')?.data as Lead | undefined
    expect(acme?.contacts.map((c) => c.phones.map((p) => p.phone))).toEqual([['+14155550101'], ['+16135550102']])
    expect(acme?.opportunities).toHaveLength(1)
  })

  it('escapes formulas in the failed rows CSV', async () => {
    const org = await ctx.createOrg('Formulas')
    const made = await upload(org, 'Company,Email\n=HYPERLINK("x"),bad\n')
    const done = await act(org, made.id, 'run')
    const rows = await failedRows(org, done.failed_rows_url ?? '')
    expect(rows[1]).toEqual(['\'=HYPERLINK("x")', 'bad', 'Email: not an email address'])
  })
})

async function memberEmail(org: TestOrg): Promise<string> {
  const me = await call(ctx.app, org.member.key, 'GET', '/me/')
  return me.json<{ email: string }>().email
}

describe("reading an import's stored text", () => {
  it('keeps a character past U+FFFF whole where the text is cut into slices for the parser (64 K units)', async () => {
    const org = await ctx.createOrg('Slices')
    // The emoji's first half is the 65,536th code unit of the text: the last of the first slice.
    const head = 'Company,Notes\nFiller,'
    const filler = 'x'.repeat(65_535 - head.length - '\nEmoji '.length)
    const made = await upload(org, `${head}${filler}\nEmoji 😀 Co,ok\n`)
    const rows: { row: number; cells: string[] }[] = []
    for await (const record of importRows(ctx.database.db, made.id, ',')) rows.push(record)
    expect(rows).toEqual([
      { row: 1, cells: ['Filler', filler] },
      { row: 2, cells: ['Emoji 😀 Co', 'ok'] },
    ])
  })
})

describe('the duplicate rule', () => {
  const existing = async (org: TestOrg) => {
    const res = await call(ctx.app, org.member.key, 'POST', '/lead/', {
      body: {
        name: 'Umbrella',
        url: 'https://www.umbrella.example/',
        description: 'Old description',
        contacts: [
          { name: 'Ada Old', emails: [{ email: 'ada@umbrella.example' }], phones: [{ phone: '+14155550199' }] },
        ],
      },
    })
    expect(res.statusCode, res.body).toBe(200)
    return res.json<Lead>()
  }
  const rows = (company: string) =>
    `Company,Website,Name,Email,Phone,Description\n${company},umbrella.example,Ned New,ADA@umbrella.example,(415) 555-0199,New description\n${company},umbrella.example,Zed New,zed@umbrella.example,,\n`

  for (const match of ['email', 'phone', 'url', 'name'] as const) {
    it(`matches on ${match}: skip, update, or create anyway`, async () => {
      for (const action of ['skip', 'update', 'create'] as const) {
        const org = await ctx.createOrg(`${match} ${action}`)
        const lead = await existing(org)
        // On `email` and `phone`, the second row has no match of its own but goes where its company went.
        const made = await upload(org, rows(match === 'name' ? 'UMBRELLA ' : 'Umbrella Corp'))
        await setUp(org, made.id, { duplicate_rule: { match, action } })
        const done = await act(org, made.id, 'run')
        expect(done.status).toBe('done')
        const all = await leads(org)
        if (action === 'skip') {
          expect(done.counts).toMatchObject({ created: 0, updated: 0, skipped: 2 })
          expect(all).toHaveLength(1)
          expect(all[0]?.description).toBe('Old description')
        } else if (action === 'update') {
          expect(done.counts).toMatchObject({ created: 0, updated: 1, skipped: 0, contacts_created: 1 })
          expect(all).toHaveLength(1)
          expect(all[0]?.id).toBe(lead.id)
          expect(all[0]?.description).toBe('New description')
          // Ada's email and phone were there: no second Ada; Zed is new.
          expect(all[0]?.contacts.map((c) => c.name)).toEqual(['Ada Old', 'Zed New'])
        } else {
          expect(done.counts).toMatchObject({ created: 1, updated: 0, skipped: 0 })
          expect(all).toHaveLength(2)
        }
      }
    })
  }

  it('updates a lead two companies of one batch match: each sees what the other added, and search finds both', async () => {
    const org = await ctx.createOrg('Two keys one lead')
    const lead = await call(ctx.app, org.member.key, 'POST', '/lead/', {
      body: {
        name: 'Acme',
        contacts: [{ name: 'Ann', emails: [{ email: 'ann@acme.example' }] }],
        addresses: [{ label: 'business', city: 'Springfield' }],
      },
    })
    expect(lead.statusCode, lead.body).toBe(200)
    const id = lead.json<Lead>().id
    const made = await upload(
      org,
      [
        'Company,Name,Email,City,Status',
        'Acme West,Ann,ann@acme.example,Springfield,Qualified',
        'Acme West,Dee,dee@acme.example,Shelbyville,',
        'Acme East,Ann,ann@acme.example,Shelbyville,',
        'Acme East,Dee,dee@acme.example,Shelbyville,',
      ].join('\n'),
    )
    await setUp(org, made.id, { duplicate_rule: { match: 'email', action: 'update' } })
    expect((await call(ctx.app, org.member.key, 'POST', `/import/${made.id}/run/`)).statusCode).toBe(200)
    // One batch for the four rows: both companies' keys match Ann's lead in it.
    await worker({ batchSize: 10 }).drain()
    const done = (await call(ctx.app, org.member.key, 'GET', `/import/${made.id}/`)).json<Import>()
    expect(done).toMatchObject({ status: 'done', counts: { created: 0, contacts_created: 1, failed: 0 } })
    const [after] = await leads(org)
    expect(after).toMatchObject({ id, display_name: 'Acme East', status_label: 'Qualified' })
    // Dee and Shelbyville, added for Acme West, are there when Acme East's rows come: neither twice.
    expect(after?.contacts.map((c) => c.name)).toEqual(['Ann', 'Dee'])
    expect(after?.addresses.map((a) => a.city)).toEqual(['Springfield', 'Shelbyville'])
    const changes = await ctx.database.db
      .selectFrom('activity')
      .select('type')
      .where('lead_id', '=', id)
      .where('type', '=', 'LeadStatusChange')
      .execute()
    expect(changes).toHaveLength(1)
    for (const query of ['Dee', 'Shelbyville', '"Acme East"']) {
      const found = await call(ctx.app, org.member.key, 'GET', '/lead/', { query: { query } })
      expect(
        found.json<{ data: { id: string }[] }>().data.map((l) => l.id),
        query,
      ).toEqual([id])
    }
  })

  it('matches a URL by its host, with or without scheme, www. and path', async () => {
    const org = await ctx.createOrg('URL hosts')
    const made = async (name: string, url: string) =>
      (await call(ctx.app, org.member.key, 'POST', '/lead/', { body: { name, url } })).json<Lead>().id
    const deep = await made('Deep', 'https://umbrella.example/about/team')
    await made('Longer host', 'https://umbrella.example.org/')
    await made('Other', 'https://notumbrella.example')
    const file = 'Company,Website\nNew Umbrella,http://www.UMBRELLA.example\nSomeone,https://elsewhere.example/x\n'
    const upload1 = await upload(org, file)
    await setUp(org, upload1.id, { duplicate_rule: { match: 'url', action: 'update' } })
    const done = await act(org, upload1.id, 'run')
    expect(done.counts).toMatchObject({ created: 1, updated: 1 })
    const all = await leads(org)
    expect(all.find((l) => l.id === deep)?.display_name).toBe('New Umbrella')
    expect(all.map((l) => l.display_name).sort()).toEqual(['Longer host', 'New Umbrella', 'Other', 'Someone'])
  })

  it('matches only leads that were there before: its own leads group by company instead', async () => {
    const org = await ctx.createOrg('Own leads')
    const made = await upload(org, 'Company,Email\nA,x@a.example\nB,x@a.example\n')
    await setUp(org, made.id, { duplicate_rule: { match: 'email', action: 'skip' } })
    const done = await act(org, made.id, 'run')
    expect(done.counts).toMatchObject({ created: 2, skipped: 0 })
  })
})

describe('a dry run', () => {
  it('lists problems per row with counts, writes nothing, and serves the failed rows', async () => {
    const org = await ctx.createOrg('Dry run')
    await call(ctx.app, org.admin.key, 'POST', '/custom_field/lead/', {
      body: { name: 'Tier', type: 'choices', choices: ['Gold', 'Silver'] },
    })
    await call(ctx.app, org.admin.key, 'POST', '/custom_field/lead/', { body: { name: 'Employees', type: 'number' } })
    await call(ctx.app, org.admin.key, 'POST', '/custom_field/lead/', { body: { name: 'Founded', type: 'date' } })
    const made = await upload(
      org,
      [
        'Company,Email,Phone,Status,Tier,Employees,Founded,Deal Value,Opportunity Status,Close Date',
        'Good,a@good.example,+14155550101,Potential,Gold,"1,200",3/14/2001,"$5,000",Active,2026/01/31',
        'Bad,nope,abc,Bogus,Bronze,many,31/31/2001,lots,Unknown,someday',
        'Ragged,r@r.example',
        'Dated,d@d.example,,,,,2001-02-03T10:00:00Z,,,',
      ].join('\n'),
    )
    const checked = await act(org, made.id, 'dry_run')
    expect(checked.status).toBe('checked')
    expect(checked.check).toMatchObject({
      rows_ok: 2,
      rows_failed: 2,
      problems: {
        'not an email address': 1,
        'a phone number that cannot be read': 1,
        'unknown lead status': 1,
        'not one of the field’s choices': 1,
        'not a number': 1,
        'a date that cannot be read': 1,
        'unknown opportunity status': 1,
        'a ragged row: 2 cells where the header has 10': 1,
      },
    })
    expect(checked.check?.sample.length).toBe(10)
    expect(await leads(org)).toEqual([])
    const rows = await failedRows(org, checked.failed_rows_url ?? '')
    expect(rows.slice(1).map((r) => r[0])).toEqual(['Bad', 'Ragged'])
    // A changed mapping clears the check.
    await setUp(org, made.id, { duplicate_rule: { match: 'name', action: 'skip' } })
    const again = (await call(ctx.app, org.member.key, 'GET', `/import/${made.id}/`)).json<Import>()
    expect(again).toMatchObject({ status: 'uploaded', check: null, failed_rows_url: null })
  })
})

describe('undo', () => {
  it('deletes the leads the import made and puts back those it updated', async () => {
    const org = await ctx.createOrg('Undo')
    const tier = (
      await call(ctx.app, org.admin.key, 'POST', '/custom_field/lead/', { body: { name: 'Tier', type: 'text' } })
    ).json<{ id: string }>().id
    const before = await call(ctx.app, org.member.key, 'POST', '/lead/', {
      body: {
        name: 'Keep',
        description: 'As it was',
        [`custom.${tier}`]: 'Silver',
        addresses: [{ city: 'Old Town' }],
        contacts: [{ name: 'Kim Keep', emails: [{ email: 'kim@keep.example' }] }],
      },
    })
    const kept = (await call(ctx.app, org.admin.key, 'GET', `/lead/${before.json<Lead>().id}/`)).json<Lead>()
    const made = await upload(
      org,
      'Company,Name,Email,Description,Tier,City,Deal Value\nKeep,Kim Keep,kim@keep.example,Changed,Gold,New Town,10\nKeep,Lou,lou@keep.example,,,,\nNew Co,Nia,nia@new.example,,,,\nOther Co,Oz,oz@other.example,,,,\n',
    )
    await setUp(org, made.id, { duplicate_rule: { match: 'name', action: 'update' } })
    const done = await act(org, made.id, 'run')
    expect(done.counts).toMatchObject({ created: 2, updated: 1, contacts_created: 3 })
    const changed = (await call(ctx.app, org.admin.key, 'GET', `/lead/${kept.id}/`)).json<Lead>()
    expect(changed).toMatchObject({ description: 'Changed', [`custom.${tier}`]: 'Gold' })
    expect(changed.contacts.map((c) => c.name)).toEqual(['Kim Keep', 'Lou'])
    expect(changed.addresses.map((a) => a.city)).toEqual(['Old Town', 'New Town'])
    expect(changed.opportunities).toHaveLength(1)
    expect((await call(ctx.app, org.member.key, 'POST', `/import/${made.id}/undo/`)).statusCode).toBe(200)
    expect((await call(ctx.app, org.member.key, 'POST', `/import/${made.id}/undo/`)).statusCode).toBe(400)
    // Its job under way, it can be neither changed nor deleted.
    const busy = await call(ctx.app, org.member.key, 'DELETE', `/import/${made.id}/`)
    expect(busy.statusCode).toBe(400)
    expect(busy.json<{ error: string }>().error).toMatch(/undoing/)
    expect((await call(ctx.app, org.member.key, 'PUT', `/import/${made.id}/`, { body: {} })).statusCode).toBe(400)
    await worker().drain()
    const undone = (await call(ctx.app, org.member.key, 'GET', `/import/${made.id}/`)).json<Import>()
    expect(undone.status).toBe('undone')
    const all = await leads(org)
    expect(all.map((l) => l.id)).toEqual([kept.id])
    const restored = all[0]
    expect(restored).toMatchObject({
      description: 'As it was',
      [`custom.${tier}`]: 'Silver',
      contacts: kept.contacts,
      addresses: kept.addresses,
      opportunities: [],
    })
    // The search finds the lead as it was again: not by what the import added, nor by what it changed.
    const found = async (query: string) =>
      (await call(ctx.app, org.member.key, 'GET', '/lead/', { query: { query } }))
        .json<{ data: Lead[] }>()
        .data.map((l) => l.id)
    expect(await found('"Old Town"')).toEqual([kept.id])
    expect(await found('"New Town"')).toEqual([])
    expect(await found('lou@keep.example')).toEqual([])
    expect(await found('nia@new.example')).toEqual([])
    const deleted = await call(ctx.app, org.admin.key, 'GET', '/event/', {
      query: { action: 'deleted', object_type: 'lead', _limit: '50' },
    })
    const events = deleted.json<{ data: { meta: Record<string, string>; previous_data: { name?: string } }[] }>().data
    expect(events.map((e) => e.previous_data.name).sort()).toEqual(['New Co', 'Other Co'])
    for (const event of events) expect(event.meta.import_id).toBe(made.id)
  })

  it('leaves a lead the rule skipped as it is, and ends', async () => {
    const org = await ctx.createOrg('Undo skipped')
    const lead = await call(ctx.app, org.member.key, 'POST', '/lead/', {
      body: { name: 'Acme', description: 'Mine', contacts: [{ name: 'Ann', emails: [{ email: 'ann@acme.example' }] }] },
    })
    const id = lead.json<Lead>().id
    const made = await upload(org, 'Company,Name,Email\nAcme,Ann,ann@acme.example\nNew Co,Nia,nia@new.example\n')
    await setUp(org, made.id, { duplicate_rule: { match: 'email', action: 'skip' } })
    expect((await act(org, made.id, 'run')).counts).toMatchObject({ created: 1, skipped: 1 })
    expect((await act(org, made.id, 'undo')).status).toBe('undone')
    const all = await leads(org)
    expect(all.map((l) => [l.id, l.description])).toEqual([[id, 'Mine']])
  })

  // Two companies of the file matched one lead: two keys of the import name it. An undo of one key a batch splits
  // them; one of ten holds both.
  for (const undoBatch of [1, 10]) {
    it(`puts back a lead two companies matched once, with one event (${String(undoBatch)} keys an undo batch)`, async () => {
      const org = await ctx.createOrg(`Undo two keys ${String(undoBatch)}`)
      const lead = await call(ctx.app, org.member.key, 'POST', '/lead/', {
        body: { name: 'Acme', contacts: [{ name: 'Ann', emails: [{ email: 'ann@acme.example' }] }] },
      })
      expect(lead.statusCode, lead.body).toBe(200)
      const id = lead.json<Lead>().id
      const made = await upload(
        org,
        'Company,Name,Email\nAcme West,Ann,ann@acme.example\nAcme West,Dee,dee@acme.example\nAcme East,Ann,ann@acme.example\n',
      )
      await setUp(org, made.id, { duplicate_rule: { match: 'email', action: 'update' } })
      expect((await call(ctx.app, org.member.key, 'POST', `/import/${made.id}/run/`)).statusCode).toBe(200)
      await worker({ batchSize: 10 }).drain()
      expect((await call(ctx.app, org.member.key, 'POST', `/import/${made.id}/undo/`)).statusCode).toBe(200)
      await worker({ batchSize: undoBatch }).drain()
      const undone = (await call(ctx.app, org.member.key, 'GET', `/import/${made.id}/`)).json<Import>()
      expect(undone.status).toBe('undone')
      const [restored] = await leads(org)
      expect(restored).toMatchObject({ id, display_name: 'Acme' })
      expect(restored?.contacts.map((c) => c.name)).toEqual(['Ann'])
      const updated = await call(ctx.app, org.admin.key, 'GET', '/event/', {
        query: { action: 'updated', object_type: 'lead', _limit: '50' },
      })
      const puttingBack = updated
        .json<{ data: { object_id: string; meta: Record<string, string>; data: { name?: string } }[] }>()
        .data.filter((e) => e.object_id === id && e.meta.import_id === made.id && e.data.name === 'Acme')
      expect(puttingBack).toHaveLength(1)
      const left = await ctx.database.db
        .selectFrom('data_import_lead')
        .select('key')
        .where('import_id', '=', made.id)
        .execute()
      expect(left).toEqual([])
    })
  }
})

describe('restart and resume', () => {
  const many = (n: number) =>
    `Company,Name,Email\n${Array.from({ length: n }, (_, i) => `Co ${String(i % 5)},P ${String(i)},p${String(i)}@x.example`).join('\n')}\n`

  it('a worker stopped after a batch gives the import back; the next resumes it without doubling a row', async () => {
    const org = await ctx.createOrg('Resume stop')
    const made = await upload(org, many(12))
    expect((await call(ctx.app, org.member.key, 'POST', `/import/${made.id}/run/`)).statusCode).toBe(200)
    let halted: Promise<void> | undefined
    let stopped = () => {}
    const done = new Promise<void>((resolve) => {
      stopped = resolve
    })
    const first = worker({
      afterBatch: (_id, rowsDone) => {
        // The process is asked to stop after its second batch, as a SIGTERM would.
        if (rowsDone >= 4 && halted === undefined) halted = first.stop().then(stopped)
      },
    })
    first.start()
    await done
    const halfway = (await call(ctx.app, org.member.key, 'GET', `/import/${made.id}/`)).json<Import>()
    expect(halfway.status).toBe('running')
    expect(halfway.progress.rows_done).toBeGreaterThan(0)
    expect(halfway.progress.rows_done).toBeLessThan(12)
    await worker().drain()
    await expectWhole(org, made.id)
  })

  it('a run whose lease ran out is taken over; the first worker then writes nothing more', async () => {
    const org = await ctx.createOrg('Resume lease')
    const made = await upload(org, many(12))
    expect((await call(ctx.app, org.member.key, 'POST', `/import/${made.id}/run/`)).statusCode).toBe(200)
    let tookOver = false
    const stuck = worker({
      owner: 'stuck-process',
      afterBatch: async () => {
        if (tookOver) return
        tookOver = true
        // The first process hangs here; its lease runs out and another process claims the import and finishes it.
        ctx.clock.advance(IMPORT_LEASE_MS + 1000)
        expect(await worker({ owner: 'second-process' }).drain()).toBe(1)
      },
    })
    expect(await stuck.drain()).toBe(0)
    await expectWhole(org, made.id)
  })

  it('a stored chunk that cannot be read fails the run with its error rather than leaving it hanging', async () => {
    const org = await ctx.createOrg('Unreadable chunk')
    const made = await upload(org, many(12))
    // Not gzip: the run's reading of its text throws inside the CSV parser's feed.
    await ctx.database.db
      .updateTable('data_import_chunk')
      .set({ content: Buffer.from('not gzip').toString('base64') })
      .where('import_id', '=', made.id)
      .execute()
    expect((await call(ctx.app, org.member.key, 'POST', `/import/${made.id}/run/`)).statusCode).toBe(200)
    const reported: string[] = []
    const settled = await worker({
      onError: (error, what) => {
        reported.push(`${what}: ${error instanceof Error ? error.message : String(error)}`)
      },
    }).drain()
    expect(settled).toBe(1)
    expect(reported).toEqual([expect.stringMatching(/^working on import impo_\w+: incorrect header check$/)])
    const failed = (await call(ctx.app, org.member.key, 'GET', `/import/${made.id}/`)).json<Import>()
    expect(failed).toMatchObject({ status: 'error', counts: { created: 0, failed: 0 } })
    expect(failed.error).toMatch(/^The import failed/)
    expect(await leads(org)).toEqual([])
  })

  async function expectWhole(org: TestOrg, id: string) {
    const done = (await call(ctx.app, org.member.key, 'GET', `/import/${id}/`)).json<Import>()
    expect(done.status).toBe('done')
    expect(done.counts).toEqual({ created: 5, updated: 0, contacts_created: 12, skipped: 0, failed: 0 })
    const all = await leads(org)
    expect(all.map((l) => l.display_name)).toEqual(['Co 0', 'Co 1', 'Co 2', 'Co 3', 'Co 4'])
    const names = all.flatMap((l) => l.contacts.map((c) => c.name)).sort()
    expect(names).toEqual(Array.from({ length: 12 }, (_, i) => `P ${String(i)}`).sort())
  }
})
