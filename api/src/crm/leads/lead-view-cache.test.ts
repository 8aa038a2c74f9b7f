import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { InjectOptions } from 'fastify'
import { setImmediate as yieldToEventLoop } from 'node:timers/promises'
import { formatTimestamp } from '../../platform/data/time.js'
import { call, type TestOrg } from '../../tooling/test-support/test-app.js'
import { createTwoApps, type AppSide, type TwoApps } from '../../tooling/test-support/two-apps.js'

// Two apps on one database stand for two api processes: each has its own metadata and lead view caches. Every test
// warms B's caches with a lead, changes something through A, and expects B to serve the change on every path that
// shows a lead: GET /lead/{id}/, the lead list and a search.

let apps: TwoApps
beforeAll(async () => {
  apps = await createTwoApps()
})
afterAll(async () => {
  await apps.close()
})

async function send(
  side: AppSide,
  key: string,
  method: InjectOptions['method'],
  path: string,
  body?: Record<string, unknown>,
) {
  const res = await call(side.app, key, method, path, body === undefined ? {} : { body })
  expect(res.statusCode, `${String(method)} ${path}: ${res.body}`).toBe(200)
  return res.json()
}

/** A change made through A, by the organization's admin (statuses and custom fields need one). */
function throughA(org: TestOrg, method: InjectOptions['method'], path: string, body?: Record<string, unknown>) {
  return send(apps.a, org.admin.key, method, path, body)
}

async function createLead(org: TestOrg, body: Record<string, unknown>) {
  const res = await call(apps.a.app, org.member.key, 'POST', '/lead/', { body })
  expect(res.statusCode, res.body).toBe(200)
  const lead = res.json()
  expect(lead.id).toEqual(expect.any(String))
  return {
    id: String(lead.id),
    contacts: Array.isArray(lead.contacts) ? lead.contacts.map((c: { id: string }) => c.id) : [],
  }
}

/** The lead as B serves it: by id, in the organization's list, in a search for it. */
async function viewsThroughB(org: TestOrg, leadId: string, query = ''): Promise<unknown[]> {
  const key = org.member.key
  const one = await send(apps.b, key, 'GET', `/lead/${leadId}/${query === '' ? '' : `?${query}`}`)
  const list = await send(apps.b, key, 'GET', `/lead/${query === '' ? '' : `?${query}`}`)
  const searchQuery = new URLSearchParams({ query: `id:${leadId}` })
  if (query !== '') for (const [name, value] of new URLSearchParams(query)) searchQuery.set(name, value)
  const search = await send(apps.b, key, 'GET', `/lead/?${searchQuery.toString()}`)
  expect(search.total_results).toBe(1)
  const listed = list.data.find((l: { id: unknown }) => l.id === leadId)
  expect(listed, 'the lead is in the list').toBeDefined()
  return [one, listed, search.data[0]]
}

/**
 * Warms B with the lead (read twice, so the second read is served from B's caches), runs `change` through A, and
 * answers what B served before and after it.
 */
async function changeThroughA(org: TestOrg, leadId: string, change: () => Promise<unknown>) {
  await viewsThroughB(org, leadId)
  const before = await viewsThroughB(org, leadId)
  await change()
  const after = await viewsThroughB(org, leadId)
  return { before, after }
}

function expectEach(views: unknown[], expected: Record<string, unknown>) {
  expect(views).toHaveLength(3)
  for (const view of views) expect(view).toMatchObject(expected)
}

function expectNone(views: unknown[], key: string) {
  expect(views).toHaveLength(3)
  for (const view of views) expect(view).not.toHaveProperty([key])
}

describe('lead fields changed through another app', () => {
  it.each([
    { field: 'name', from: 'Initech', to: 'Initrode' },
    { field: 'description', from: 'Makes TPS reports', to: 'Makes staplers' },
    { field: 'url', from: 'https://initech.example.com', to: 'https://initrode.example.com' },
  ])('$field', async ({ field, from, to }) => {
    const org = await apps.createOrg(`Lead ${field}`)
    const lead = await createLead(org, { name: 'Initech', [field]: from })
    const { before, after } = await changeThroughA(org, lead.id, () =>
      throughA(org, 'PUT', `/lead/${lead.id}/`, { [field]: to }),
    )
    expectEach(before, { [field]: from })
    expectEach(after, { [field]: to })
  })

  it('status', async () => {
    const org = await apps.createOrg('Lead status')
    const lead = await createLead(org, { name: 'Initech', status: 'Potential' })
    const { before, after } = await changeThroughA(org, lead.id, () =>
      throughA(org, 'PUT', `/lead/${lead.id}/`, { status: 'Customer' }),
    )
    expectEach(before, { status_label: 'Potential' })
    expectEach(after, { status_label: 'Customer' })
    const statuses = await throughA(org, 'GET', '/status/lead/')
    const customer = statuses.data.find((s: { label: unknown }) => s.label === 'Customer')
    expectEach(after, { status_id: customer.id })
  })

  it('addresses', async () => {
    const org = await apps.createOrg('Lead addresses')
    const lead = await createLead(org, { name: 'Initech', addresses: [{ address_1: '1 Main St', city: 'Austin' }] })
    const { before, after } = await changeThroughA(org, lead.id, () =>
      throughA(org, 'PUT', `/lead/${lead.id}/`, {
        addresses: [
          { label: 'mailing', address_1: '2 Side St', city: 'Dallas', country: 'US' },
          { label: 'other', city: 'Houston' },
        ],
      }),
    )
    expectEach(before, { addresses: [{ address_1: '1 Main St', city: 'Austin' }] })
    expectEach(after, {
      addresses: [
        { label: 'mailing', address_1: '2 Side St', city: 'Dallas', country: 'US' },
        { label: 'other', address_1: null, city: 'Houston' },
      ],
    })
  })
})

describe('contacts changed through another app', () => {
  it('a contact added', async () => {
    const org = await apps.createOrg('Contact added')
    const lead = await createLead(org, { name: 'Initech' })
    const { before, after } = await changeThroughA(org, lead.id, () =>
      throughA(org, 'POST', '/contact/', { lead_id: lead.id, name: 'Peter Gibbons', title: 'Programmer' }),
    )
    expectEach(before, { contacts: [], display_name: 'Initech' })
    expectEach(after, { contacts: [{ name: 'Peter Gibbons', title: 'Programmer', lead_id: lead.id }] })
  })

  it('a contact renamed (and the display name that comes from it)', async () => {
    const org = await apps.createOrg('Contact renamed')
    const lead = await createLead(org, { contacts: [{ name: 'Peter Gibbons' }] })
    const [contactId] = lead.contacts
    const { before, after } = await changeThroughA(org, lead.id, () =>
      throughA(org, 'PUT', `/contact/${String(contactId)}/`, { name: 'Michael Bolton', title: 'Engineer' }),
    )
    expectEach(before, { display_name: 'Peter Gibbons', contacts: [{ name: 'Peter Gibbons', title: '' }] })
    expectEach(after, { display_name: 'Michael Bolton', contacts: [{ name: 'Michael Bolton', title: 'Engineer' }] })
  })

  it('a contact deleted', async () => {
    const org = await apps.createOrg('Contact deleted')
    // Contacts created in one request share a creation time; two requests keep their order certain.
    const lead = await createLead(org, { name: 'Initech', contacts: [{ name: 'Peter Gibbons' }] })
    const milton = await throughA(org, 'POST', '/contact/', { lead_id: lead.id, name: 'Milton' })
    const { before, after } = await changeThroughA(org, lead.id, () =>
      throughA(org, 'DELETE', `/contact/${String(milton.id)}/`),
    )
    expectEach(before, { contacts: [{ name: 'Peter Gibbons' }, { name: 'Milton' }] })
    expectEach(after, { contacts: [{ name: 'Peter Gibbons' }] })
  })

  it.each([
    {
      kind: 'emails',
      from: [{ type: 'office', email: 'peter@initech.example.com' }],
      to: [
        { type: 'home', email: 'peter@home.example.com' },
        { type: 'office', email: 'pgibbons@initech.example.com' },
      ],
    },
    {
      kind: 'phones',
      from: [{ type: 'office', phone: '+14155550100' }],
      to: [{ type: 'mobile', phone: '+14155550199' }],
    },
    {
      kind: 'urls',
      from: [{ type: 'url', url: 'https://peter.example.com' }],
      to: [{ type: 'url', url: 'https://gibbons.example.com' }],
    },
  ])('contact $kind replaced', async ({ kind, from, to }) => {
    const org = await apps.createOrg(`Contact ${kind}`)
    const lead = await createLead(org, { name: 'Initech', contacts: [{ name: 'Peter Gibbons', [kind]: from }] })
    const [contactId] = lead.contacts
    const { before, after } = await changeThroughA(org, lead.id, () =>
      throughA(org, 'PUT', `/contact/${String(contactId)}/`, { [kind]: to }),
    )
    expectEach(before, { contacts: [{ [kind]: from }] })
    expectEach(after, { contacts: [{ [kind]: to }] })
  })
})

describe('custom fields changed through another app', () => {
  async function field(org: TestOrg, objectType: 'lead' | 'contact', name: string): Promise<string> {
    const created = await throughA(org, 'POST', `/custom_field/${objectType}/`, { name, type: 'text' })
    return String(created.id)
  }

  it('a lead custom value set, then unset', async () => {
    const org = await apps.createOrg('Lead custom value')
    const fieldId = await field(org, 'lead', 'Referrer')
    const lead = await createLead(org, { name: 'Initech' })
    const set = await changeThroughA(org, lead.id, () =>
      throughA(org, 'PUT', `/lead/${lead.id}/`, { [`custom.${fieldId}`]: 'Bob Slydell' }),
    )
    expectNone(set.before, `custom.${fieldId}`)
    expectEach(set.before, { custom: {} })
    expectEach(set.after, { [`custom.${fieldId}`]: 'Bob Slydell', custom: { Referrer: 'Bob Slydell' } })
    const unset = await changeThroughA(org, lead.id, () =>
      throughA(org, 'PUT', `/lead/${lead.id}/`, { [`custom.${fieldId}`]: null }),
    )
    expectEach(unset.before, { [`custom.${fieldId}`]: 'Bob Slydell' })
    expectNone(unset.after, `custom.${fieldId}`)
    expectEach(unset.after, { custom: {} })
  })

  it('a contact custom value set, then unset', async () => {
    const org = await apps.createOrg('Contact custom value')
    const fieldId = await field(org, 'contact', 'Nickname')
    const lead = await createLead(org, { name: 'Initech', contacts: [{ name: 'Peter Gibbons' }] })
    const [contactId] = lead.contacts
    const set = await changeThroughA(org, lead.id, () =>
      throughA(org, 'PUT', `/contact/${String(contactId)}/`, { [`custom.${fieldId}`]: 'Pete' }),
    )
    expectEach(set.before, { contacts: [{ custom: {} }] })
    expectEach(set.after, { contacts: [{ [`custom.${fieldId}`]: 'Pete', custom: { Nickname: 'Pete' } }] })
    const unset = await changeThroughA(org, lead.id, () =>
      throughA(org, 'PUT', `/contact/${String(contactId)}/`, { [`custom.${fieldId}`]: null }),
    )
    expectEach(unset.before, { contacts: [{ custom: { Nickname: 'Pete' } }] })
    expectEach(unset.after, { contacts: [{ custom: {} }] })
  })

  it('a lead custom field renamed: the name-keyed dictionary follows', async () => {
    const org = await apps.createOrg('Lead field renamed')
    const fieldId = await field(org, 'lead', 'Referrer')
    const lead = await createLead(org, { name: 'Initech', [`custom.${fieldId}`]: 'Bob' })
    const { before, after } = await changeThroughA(org, lead.id, () =>
      throughA(org, 'PUT', `/custom_field/lead/${fieldId}/`, { name: 'Referred by' }),
    )
    expectEach(before, { custom: { Referrer: 'Bob' } })
    expectEach(after, { [`custom.${fieldId}`]: 'Bob', custom: { 'Referred by': 'Bob' } })
    for (const view of after) expect(view).not.toHaveProperty(['custom', 'Referrer'])
  })

  it('a contact custom field renamed', async () => {
    const org = await apps.createOrg('Contact field renamed')
    const fieldId = await field(org, 'contact', 'Nickname')
    const lead = await createLead(org, {
      name: 'Initech',
      contacts: [{ name: 'Peter', [`custom.${fieldId}`]: 'Pete' }],
    })
    const { before, after } = await changeThroughA(org, lead.id, () =>
      throughA(org, 'PUT', `/custom_field/contact/${fieldId}/`, { name: 'Called' }),
    )
    expectEach(before, { contacts: [{ custom: { Nickname: 'Pete' } }] })
    expectEach(after, { contacts: [{ custom: { Called: 'Pete' } }] })
  })

  it('a lead custom field deleted: its values go from the lead', async () => {
    const org = await apps.createOrg('Lead field deleted')
    const fieldId = await field(org, 'lead', 'Referrer')
    const lead = await createLead(org, { name: 'Initech', [`custom.${fieldId}`]: 'Bob' })
    const { before, after } = await changeThroughA(org, lead.id, () =>
      throughA(org, 'DELETE', `/custom_field/lead/${fieldId}/`),
    )
    expectEach(before, { [`custom.${fieldId}`]: 'Bob', custom: { Referrer: 'Bob' } })
    expectNone(after, `custom.${fieldId}`)
    expectEach(after, { custom: {} })
  })
})

describe('organization metadata changed through another app', () => {
  it('the lead’s status renamed: status_label follows', async () => {
    const org = await apps.createOrg('Status renamed')
    const lead = await createLead(org, { name: 'Initech', status: 'Qualified' })
    const statuses = await throughA(org, 'GET', '/status/lead/')
    const qualified = statuses.data.find((s: { label: unknown }) => s.label === 'Qualified')
    const { before, after } = await changeThroughA(org, lead.id, () =>
      throughA(org, 'PUT', `/status/lead/${String(qualified.id)}/`, { label: 'Sales qualified' }),
    )
    expectEach(before, { status_id: qualified.id, status_label: 'Qualified' })
    expectEach(after, { status_id: qualified.id, status_label: 'Sales qualified' })
  })

  it('the author’s name changed (no API changes it: as an operator would, in the database)', async () => {
    const org = await apps.createOrg('Author renamed')
    const lead = await createLead(org, { name: 'Initech' })
    const { before, after } = await changeThroughA(org, lead.id, () =>
      apps.a.database.db
        .updateTable('user')
        .set({ first_name: 'Rosa', date_updated: formatTimestamp(apps.clock.now()) })
        .where('id', '=', org.member.id)
        .execute(),
    )
    expectEach(before, { created_by: org.member.id, created_by_name: 'Rey Rep', updated_by_name: 'Rey Rep' })
    expectEach(after, { created_by: org.member.id, created_by_name: 'Rosa Rep', updated_by_name: 'Rosa Rep' })
  })
})

describe('lead merge through another app', () => {
  it('the destination shows the source’s contacts and addresses; the source is gone from every path', async () => {
    const org = await apps.createOrg('Merge')
    const destination = await createLead(org, { name: 'Initech', contacts: [{ name: 'Peter Gibbons' }] })
    const source = await createLead(org, {
      name: 'Initech (old)',
      contacts: [{ name: 'Milton Waddams', emails: [{ email: 'milton@initech.example.com' }] }],
      addresses: [{ address_1: '1 Basement', city: 'Austin' }],
    })
    await viewsThroughB(org, source.id)
    const { before, after } = await changeThroughA(org, destination.id, () =>
      throughA(org, 'POST', '/lead/merge/', { source: source.id, destination: destination.id }),
    )
    expectEach(before, { contacts: [{ name: 'Peter Gibbons' }], addresses: [] })
    expectEach(after, {
      name: 'Initech',
      contacts: [
        { name: 'Peter Gibbons', lead_id: destination.id },
        { name: 'Milton Waddams', lead_id: destination.id, emails: [{ email: 'milton@initech.example.com' }] },
      ],
      addresses: [{ address_1: '1 Basement', city: 'Austin' }],
    })
    const gone = await call(apps.b.app, org.member.key, 'GET', `/lead/${source.id}/`)
    expect(gone.statusCode).toBe(404)
    const list = await send(apps.b, org.member.key, 'GET', '/lead/')
    expect(list.data.map((l: { id: unknown }) => l.id)).toEqual([destination.id])
    const search = await send(apps.b, org.member.key, 'GET', `/lead/?query=${encodeURIComponent(`id:${source.id}`)}`)
    expect(search).toMatchObject({ total_results: 0, data: [] })
  })
})

describe('lead deleted through another app', () => {
  it('is a 404 by id and gone from the list and searches', async () => {
    const org = await apps.createOrg('Deleted')
    const kept = await createLead(org, { name: 'Initech' })
    const deleted = await createLead(org, { name: 'Initrode', contacts: [{ name: 'Bill Lumbergh' }] })
    await viewsThroughB(org, deleted.id)
    await viewsThroughB(org, deleted.id)
    await throughA(org, 'DELETE', `/lead/${deleted.id}/`)
    const gone = await call(apps.b.app, org.member.key, 'GET', `/lead/${deleted.id}/`)
    expect(gone.statusCode).toBe(404)
    const list = await send(apps.b, org.member.key, 'GET', '/lead/')
    expect(list).toMatchObject({ total_results: 1, data: [{ id: kept.id }] })
    const search = await send(apps.b, org.member.key, 'GET', `/lead/?query=${encodeURIComponent(`id:${deleted.id}`)}`)
    expect(search).toMatchObject({ total_results: 0, data: [] })
  })
})

describe('concurrent readers in another app', () => {
  it('see each change once A acknowledged it, and never go back to an older one', async () => {
    const org = await apps.createOrg('Rounds')
    const lead = await createLead(org, { name: 'Round 0', status: 'Potential' })
    const statuses = await throughA(org, 'GET', '/status/lead/')
    const potential = statuses.data.find((s: { label: unknown }) => s.label === 'Potential')
    await throughA(org, 'PUT', `/status/lead/${String(potential.id)}/`, { label: 'Stage 0' })
    const roundOf = (text: unknown) => Number(/ (\d+)$/.exec(String(text))?.[1] ?? -1)
    const rounds = (view: { name?: unknown; status_label?: unknown }) => [
      roundOf(view.name),
      roundOf(view.status_label),
    ]
    // The rounds of the name and of the status label that A has acknowledged.
    const acknowledged = [0, 0]
    let done = false
    const problems: string[] = []
    const reader = async (path: string, pick: (body: { data?: unknown[] }) => unknown) => {
      let last = [0, 0]
      let reads = 0
      while (!done && problems.length === 0) {
        // In-process requests on SQLite can finish without leaving the microtask queue; yield so A's writes run.
        await yieldToEventLoop()
        const floors = [...acknowledged]
        const res = await call(apps.b.app, org.member.key, 'GET', path)
        const seen = rounds(Object(pick(res.json())))
        reads++
        for (const [i, round] of seen.entries()) {
          const least = Math.max(last[i] ?? 0, floors[i] ?? 0)
          if (round < least) problems.push(`${path}: round ${String(round)} after ${String(least)}`)
        }
        last = seen
      }
      return reads
    }
    const byId = `/lead/${lead.id}/`
    const search = `/lead/?query=${encodeURIComponent(`id:${lead.id}`)}`
    const readers = [
      reader(byId, (body) => body),
      reader(byId, (body) => body),
      reader(search, (body) => body.data?.[0]),
      reader('/lead/', (body) => body.data?.[0]),
    ]
    for (let round = 1; round <= 15; round++) {
      await throughA(org, 'PUT', `/status/lead/${String(potential.id)}/`, { label: `Stage ${String(round)}` })
      acknowledged[1] = round
      expect(rounds(await send(apps.b, org.member.key, 'GET', byId))).toEqual([round - 1, round])
      await throughA(org, 'PUT', `/lead/${lead.id}/`, { name: `Round ${String(round)}` })
      acknowledged[0] = round
      expect(rounds(await send(apps.b, org.member.key, 'GET', byId))).toEqual([round, round])
    }
    done = true
    for (const reads of await Promise.all(readers)) expect(reads).toBeGreaterThan(1)
    expect(problems).toEqual([])
  })
})

describe('_fields on a cached lead', () => {
  it('projects the cached view, before and after a change through another app', async () => {
    const org = await apps.createOrg('Fields')
    const lead = await createLead(org, { name: 'Initech', description: 'Makes TPS reports', status: 'Potential' })
    await viewsThroughB(org, lead.id)
    const projected = await viewsThroughB(org, lead.id, '_fields=id,name,status_label')
    for (const view of projected) expect(view).toEqual({ id: lead.id, name: 'Initech', status_label: 'Potential' })
    await throughA(org, 'PUT', `/lead/${lead.id}/`, { name: 'Initrode' })
    const changed = await viewsThroughB(org, lead.id, '_fields=id,name,status_label')
    for (const view of changed) expect(view).toEqual({ id: lead.id, name: 'Initrode', status_label: 'Potential' })
  })
})
