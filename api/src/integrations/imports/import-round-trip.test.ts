import { gunzipSync } from 'node:zlib'
import fc from 'fast-check'
import { afterAll, beforeAll, expect, it } from 'vitest'
import {
  basicAuth,
  call,
  createTestContext,
  type TestContext,
  type TestOrg,
} from '../../tooling/test-support/test-app.js'
import { createExportWorker } from '../exports/export-worker.js'
import { createImportWorker } from './import-worker.js'

// The round trip of issue 32, over generated data, on the database LEADLINE_TEST_DB names: an organization's leads
// exported as CSV (leads, contacts, opportunities: three files) and imported into an empty organization come back the
// same — names, statuses, descriptions, URLs, addresses, custom values, contacts with their title, email and phone,
// opportunities with value, status, confidence, note and date won. The empty organization is given the same custom
// fields first: their types and choices are settings a CSV does not carry. Both start with the same default statuses
// and pipeline. What one CSV row holds bounds what is generated: one address a lead, one email and one phone a contact,
// one-time values. Text begins with a formula's first character now and then: exports escape it, imports read it back.

let ctx: TestContext

beforeAll(async () => {
  ctx = await createTestContext()
})
afterAll(async () => {
  await ctx.close()
})

const FIELDS = [
  { name: 'Industry', type: 'text' },
  { name: 'Employees', type: 'number' },
  { name: 'Tier', type: 'choices', choices: ['Gold', 'Silver', 'Bronze'] },
] as const

const word = fc.stringMatching(/^[A-Za-zé]{1,8}$/)
/** One line of text as people type it, with what a CSV must quote or escape: commas, quotes, a formula's first character. */
const line = fc
  .tuple(
    fc.constantFrom('', '', '=', '+', '-', '@'),
    fc.array(fc.oneof(word, fc.constantFrom(', ', '"', ' ')), { minLength: 1, maxLength: 5 }),
  )
  .map(([first, parts]) => `${first}${parts.join('')}`.replace(/\s+/g, ' ').trim())
  .filter((t) => /[A-Za-zé]/.test(t) && !t.startsWith("'"))
/** Text over several lines (descriptions, notes). */
const lines = fc.array(line, { minLength: 1, maxLength: 3 }).map((ls) => ls.join('\n'))
const PHONES = ['+14155550101', '+442071838750', '+33142685300']

const contactArb = fc.record({
  title: fc.option(line, { nil: undefined }),
  email: fc.boolean(),
  phone: fc.boolean(),
})
const opportunityArb = fc.record({
  cents: fc.integer({ min: 0, max: 25_000_000 }),
  confidence: fc.integer({ min: 0, max: 100 }),
  note: fc.option(lines, { nil: undefined }),
  status: fc.constantFrom('Active', 'Won', 'Lost'),
})
const leadArb = fc.record({
  name: line,
  description: fc.option(lines, { nil: undefined }),
  url: fc.option(
    word.map((w) => `https://${w.toLowerCase().replace(/é/g, 'e')}.example/`),
    { nil: undefined },
  ),
  status: fc.constantFrom('Potential', 'Bad Fit', 'Qualified', 'Customer'),
  address: fc.option(
    fc.record({
      address_1: line,
      city: word,
      zipcode: fc.stringMatching(/^\d{5}$/),
      country: fc.constantFrom('US', 'DE', 'FR'),
    }),
    { nil: undefined },
  ),
  industry: fc.option(line, { nil: undefined }),
  employees: fc.option(fc.integer({ min: -5, max: 100_000 }), { nil: undefined }),
  tier: fc.option(fc.constantFrom('Gold', 'Silver', 'Bronze'), { nil: undefined }),
  contacts: fc.array(contactArb, { minLength: 1, maxLength: 3 }),
  opportunities: fc.array(opportunityArb, { maxLength: 2 }),
})

type Obj = Record<string, unknown>

async function ok(org: TestOrg, method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<Obj> {
  const res = await call(ctx.app, org.admin.key, method, path, body === undefined ? {} : { body })
  expect(res.statusCode, `${method} ${path}: ${res.body}`).toBeLessThan(300)
  return res.json<Obj>()
}

async function labelIds(org: TestOrg, path: string): Promise<Map<string, string>> {
  const listed = (await ok(org, 'GET', path)).data as { id: string; label: string }[]
  return new Map(listed.map((s) => [s.label, s.id]))
}

/** The organization's custom fields, made as FIELDS says: name → id. */
async function makeFields(org: TestOrg): Promise<Map<string, string>> {
  const ids = new Map<string, string>()
  for (const field of FIELDS) ids.set(field.name, String((await ok(org, 'POST', '/custom_field/lead/', field)).id))
  return ids
}

async function exported(org: TestOrg, path: string, body: Obj): Promise<string> {
  const asked = await ok(org, 'POST', path, { format: 'csv', ...body })
  const worker = createExportWorker({
    db: ctx.database.db,
    dialect: ctx.database.dialect,
    reader: ctx.database.reader,
    clock: ctx.clock,
    appUrl: ctx.config.appUrl,
  })
  await worker.drain()
  const done = await ok(org, 'GET', `/export/${String(asked.id)}/`)
  expect(done.status).toBe('done')
  const file = await ctx.app.inject({
    method: 'GET',
    url: String(done.download_url),
    headers: { authorization: basicAuth(org.admin.key) },
  })
  return gunzipSync(file.rawPayload).toString('utf8')
}

async function imported(org: TestOrg, csv: string, mapping: Record<string, string>, match: string, action: string) {
  const up = await ctx.app.inject({
    method: 'POST',
    url: '/api/v1/import/?filename=export.csv',
    headers: { authorization: basicAuth(org.admin.key), 'content-type': 'text/csv' },
    payload: csv,
  })
  expect(up.statusCode, up.body).toBe(201)
  const id = String(up.json<Obj>().id)
  await ok(org, 'PUT', `/import/${id}/`, { mapping, duplicate_rule: { match, action } })
  await ok(org, 'POST', `/import/${id}/run/`)
  await createImportWorker({
    db: ctx.database.db,
    dialect: ctx.database.dialect,
    reader: ctx.database.reader,
    clock: ctx.clock,
    appUrl: ctx.config.appUrl,
    sink: ctx.app.eventSink,
    onError: (error) => {
      throw error
    },
  }).drain()
  const done = await ok(org, 'GET', `/import/${id}/`)
  expect(done.status, JSON.stringify(done)).toBe('done')
  expect((done.counts as Obj).failed, JSON.stringify(done)).toBe(0)
}

/** Every lead of the organization, in a form two organizations can be compared in. */
async function comparable(org: TestOrg, fields: Map<string, string>) {
  const listed = (await ok(org, 'GET', '/lead/?_limit=100')).data as { id: string }[]
  const leads = await Promise.all(listed.map((l) => ok(org, 'GET', `/lead/${l.id}/`)))
  const text = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value ?? ''))
  return leads
    .map((lead) => ({
      name: lead.display_name,
      status: lead.status_label,
      description: text(lead.description),
      url: text(lead.url),
      addresses: (lead.addresses as Obj[]).map((a) =>
        ['address_1', 'address_2', 'city', 'state', 'zipcode', 'country'].map((k) => text(a[k])).join('|'),
      ),
      custom: FIELDS.map((f) => lead[`custom.${fields.get(f.name) ?? ''}`] ?? null),
      contacts: (lead.contacts as Obj[])
        .map((c) => ({
          name: text(c.name),
          title: text(c.title),
          emails: (c.emails as Obj[]).map((e) => text(e.email)),
          phones: (c.phones as Obj[]).map((p) => text(p.phone)),
        }))
        .sort((a, b) => a.name.localeCompare(b.name)),
      opportunities: (lead.opportunities as Obj[])
        .map((o) => ({
          value: o.value,
          confidence: o.confidence,
          status: o.status_label,
          note: text(o.note),
          date_won: o.date_won ?? null,
        }))
        .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    }))
    .sort((a, b) => String(a.name).localeCompare(String(b.name)))
}

it('exported leads, contacts and opportunities imported into an empty organization come back the same', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(leadArb, { minLength: 1, maxLength: 5 }), async (generated) => {
      const source = await ctx.createOrg('Source')
      const target = await ctx.createOrg('Target')
      const sourceFields = await makeFields(source)
      const targetFields = await makeFields(target)
      const leadStatuses = await labelIds(source, '/status/lead/')
      const opportunityStatuses = await labelIds(source, '/status/opportunity/')
      for (const [n, lead] of generated.entries()) {
        // Names are unique (case ignored): rows of one company name make one lead.
        const name = `${lead.name} ${String(n)}`
        const custom: Obj = {}
        if (lead.industry !== undefined) custom[`custom.${sourceFields.get('Industry') ?? ''}`] = lead.industry
        if (lead.employees !== undefined) custom[`custom.${sourceFields.get('Employees') ?? ''}`] = lead.employees
        if (lead.tier !== undefined) custom[`custom.${sourceFields.get('Tier') ?? ''}`] = lead.tier
        const made = await ok(source, 'POST', '/lead/', {
          name,
          status_id: leadStatuses.get(lead.status),
          ...(lead.description === undefined ? {} : { description: lead.description }),
          ...(lead.url === undefined ? {} : { url: lead.url }),
          addresses: lead.address === undefined ? [] : [{ label: 'business', ...lead.address }],
          contacts: lead.contacts.map((c, i) => ({
            name: `${lead.name} C${String(i)}`,
            ...(c.title === undefined ? {} : { title: c.title }),
            emails: c.email ? [{ type: 'office', email: `c${String(n)}x${String(i)}@example.com` }] : [],
            // Contacts of a lead have different numbers: a number names one person.
            phones: c.phone ? [{ type: 'office', phone: PHONES[i] }] : [],
          })),
          ...custom,
        })
        for (const o of lead.opportunities) {
          await ok(source, 'POST', '/opportunity/', {
            lead_id: made.id,
            value: o.cents,
            value_period: 'one_time',
            confidence: o.confidence,
            status_id: opportunityStatuses.get(o.status),
            ...(o.note === undefined ? {} : { note: o.note }),
            ...(o.status === 'Won' ? { date_won: '2026-01-15' } : {}),
          })
        }
      }

      const custom = Object.fromEntries(
        FIELDS.map((f) => [`custom.${f.name}`, `custom.${targetFields.get(f.name) ?? ''}`]),
      )
      await imported(
        target,
        await exported(source, '/export/lead/', { type: 'leads' }),
        {
          name: 'lead.name',
          status_label: 'lead.status',
          description: 'lead.description',
          url: 'lead.url',
          address_1: 'address.address_1',
          address_2: 'address.address_2',
          city: 'address.city',
          state: 'address.state',
          zipcode: 'address.zipcode',
          country: 'address.country',
          primary_contact_name: 'contact.name',
          primary_contact_title: 'contact.title',
          primary_contact_primary_email: 'contact.email',
          primary_contact_primary_phone: 'contact.phone',
          ...custom,
        },
        'none',
        'create',
      )
      await imported(
        target,
        await exported(source, '/export/lead/', { type: 'contacts' }),
        {
          lead_display_name: 'lead.name',
          name: 'contact.name',
          title: 'contact.title',
          primary_email: 'contact.email',
          primary_phone: 'contact.phone',
        },
        'name',
        'update',
      )
      // A file of no opportunities is a header alone, which an import refuses.
      if (generated.some((lead) => lead.opportunities.length > 0)) {
        await imported(
          target,
          await exported(source, '/export/opportunity/', {}),
          {
            lead_name: 'lead.name',
            value_formatted: 'opportunity.value',
            value_period: 'opportunity.value_period',
            confidence: 'opportunity.confidence',
            status_label: 'opportunity.status',
            note: 'opportunity.note',
            date_won: 'opportunity.date_won',
          },
          'name',
          'update',
        )
      }
      expect(await comparable(target, targetFields)).toEqual(await comparable(source, sourceFields))
    }),
    { numRuns: 10 },
  )
}, 120_000)
