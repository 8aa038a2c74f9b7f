import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { DatabaseHandle, Db } from '../../platform/data/database.js'
import { call, createTestContext, openSecondApi, type TestContext } from '../../tooling/test-support/test-app.js'
import { sql } from 'kysely'
import fc from 'fast-check'
import {
  OrganizationLeadIndex,
  RowidOrdinals,
  TEXT_SORTS,
  timeKey,
  timeText,
  type DocumentSink,
  type IndexSort,
  type TextTerms,
} from './lead-index.js'
import { searchLeads } from './lead-search.js'

// The in-memory lead index (decision 0061) through each kind of change a value it keeps can take, written through
// one api instance and searched through another on its own connection, as two processes: each search is answered
// by the index as by SQL, and sees the write at once.

let ctx: TestContext
let second: Awaited<ReturnType<typeof openSecondApi>>

beforeAll(async () => {
  ctx = await createTestContext()
  second = await openSecondApi(ctx)
})
afterAll(async () => {
  await second.close()
  await ctx.close()
})

async function totals(database: DatabaseHandle, organizationId: string, query: string, skip = 0) {
  const search = {
    dialect: database.dialect,
    organizationId,
    query,
    now: new Date('2026-03-02T00:00:00Z'),
    tzOffsetHours: 0,
    skip,
    limit: 10,
  }
  const byIndex = await searchLeads(database.db, { ...search, engine: 'index' })
  const bySql = await searchLeads(database.db, { ...search, engine: 'sql' })
  expect(
    byIndex.data.map((l) => l.id),
    query,
  ).toEqual(bySql.data.map((l) => l.id))
  expect(byIndex.total_results, query).toBe(bySql.total_results)
  return byIndex.total_results
}

/** A write through the first instance with `key`, which must succeed: its answer's id. */
function writer(key: string) {
  return async (method: 'POST' | 'PUT' | 'DELETE', path: string, body?: object) => {
    const res = await call(ctx.app, key, method, path, body === undefined ? {} : { body })
    expect(res.statusCode, res.body).toBe(200)
    return res.json<{ id: string }>()
  }
}

/**
 * A new organization with leads of these names, written through the first instance, and an index of it built on the
 * second (`make` may give a subclass).
 */
async function indexedOrganization(
  name: string,
  leadNames: string[],
  make = (organizationId: string) => new OrganizationLeadIndex(organizationId, ctx.database.dialect),
) {
  const org = await ctx.createOrg(name)
  const ok = writer(org.admin.key)
  const leads: string[] = []
  for (const leadName of leadNames) leads.push((await ok('POST', '/lead/', { name: leadName })).id)
  const index = make(org.id)
  const db = second.database.db
  await index.build(db)
  const ordinal = (id: string | undefined) => index.ids.get(id ?? '') ?? -1
  return { org, ok, leads, index, db, ordinal }
}

/** A search of the database standing in for the trigram index: it finds nothing and records what it was asked. */
function recordingFind() {
  const asked: TextTerms[] = []
  const find = async (text: TextTerms) => {
    asked.push(text)
    return { kind: 'ids' as const, values: [] }
  }
  return { asked, find }
}

describe('search rowids to ordinals', () => {
  it('answers as a map would, through any sets and deletes, in the range, past it and in another', () => {
    const base = 7 * 2 ** 32
    const rowid = fc.oneof(
      fc.integer({ min: 0, max: 5000 }).map((offset) => base + offset),
      fc.integer({ min: 0, max: 3 }).map((offset) => base + 2 ** 24 + offset),
      fc.integer({ min: 0, max: 3 }).map((offset) => 3 * 2 ** 32 + offset),
    )
    const step = fc.oneof(
      fc.record({ set: rowid, ordinal: fc.integer({ min: 0, max: 100_000 }) }),
      fc.record({ remove: rowid }),
    )
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), fc.array(rowid, { maxLength: 20 }), (steps, asked) => {
        const table = new RowidOrdinals()
        const expected = new Map<number, number>()
        for (const s of steps) {
          if ('set' in s) {
            table.set(s.set, s.ordinal)
            expected.set(s.set, s.ordinal)
          } else {
            table.delete(s.remove)
            expected.delete(s.remove)
          }
        }
        for (const r of [...asked, ...expected.keys()]) expect(table.get(r), String(r)).toBe(expected.get(r))
      }),
    )
  })
})

describe('the in-memory lead index', () => {
  it('counts past 16 bits: a lead with more than 65,535 addresses, beside one with two', async () => {
    const org = await ctx.createOrg('Many Addresses Co')
    const ok = writer(org.admin.key)
    const wide = (await ok('POST', '/lead/', { name: 'Wide' })).id
    const narrow = (await ok('POST', '/lead/', { name: 'Narrow' })).id
    // A statement of 1,000 at a time: each row's trigger moves the lead's revision, and on Postgres one statement's
    // updates of one row walk past each other's versions (quadratic in the rows of a statement).
    const addresses = async (leadId: string, count: number) => {
      for (let from = 0; from < count; from += 1000) {
        const to = Math.min(count, from + 1000) - 1
        await sql`with recursive seq(n) as (select cast(${from} as integer)
            union all select n + 1 from seq where n < ${to})
          insert into lead_address (lead_id, position, organization_id, label, city)
          select ${leadId}, n, ${org.id}, 'business', 'Springfield' from seq`.execute(ctx.database.db)
      }
    }
    await addresses(narrow, 2)
    const seen = (query: string) => totals(second.database, org.id, query)
    expect(await seen('addresses>1')).toBe(1)
    // Counted after the index holds the organization's counts in 16 bits: the array widens, the narrow lead's kept.
    await addresses(wide, 65_601)
    expect(await seen('addresses>1')).toBe(2)
    expect(await seen('addresses>2')).toBe(1)
    expect(await seen('addresses>65600')).toBe(1)
    expect(await seen('addresses>65601')).toBe(0)
  }, 60_000)

  it("follows a lead's number field, status, tasks and contacts as they change, through another process", async () => {
    const org = await ctx.createOrg('Following Co')
    const key = org.admin.key
    const ok = writer(key)
    const seen = (query: string) => totals(second.database, org.id, query)
    const field = (await ok('POST', '/custom_field/lead/', { name: 'Employees', type: 'number' })).id
    const lead = (await ok('POST', '/lead/', { name: 'Acme', [`custom.${field}`]: 80 })).id
    expect(await seen('custom.Employees>50')).toBe(1)
    await ok('PUT', `/lead/${lead}/`, { [`custom.${field}`]: 30 })
    expect(await seen('custom.Employees>50')).toBe(0)
    expect(await seen('custom.Employees:30')).toBe(1)
    await ok('PUT', `/lead/${lead}/`, { [`custom.${field}`]: null })
    expect(await seen('custom.Employees<=50')).toBe(0)

    expect(await seen('status:potential')).toBe(1)
    await ok('PUT', `/lead/${lead}/`, { status: 'Qualified' })
    expect(await seen('status:potential')).toBe(0)
    expect(await seen('status:qualified')).toBe(1)

    const task = (await ok('POST', '/task/', { lead_id: lead, text: 'Call' })).id
    expect(await seen('has:tasks')).toBe(1)
    await ok('PUT', `/task/${task}/`, { is_complete: true })
    expect(await seen('has:tasks')).toBe(0)
    expect(await seen('tasks:0')).toBe(1)

    const contact = (await ok('POST', '/contact/', { lead_id: lead, emails: [{ email: 'a@acme.example' }] })).id
    expect(await seen('has:email contacts:1')).toBe(1)
    await ok('DELETE', `/contact/${contact}/`)
    expect(await seen('has:email')).toBe(0)
    expect(await seen('not has:contacts')).toBe(1)

    await ok('DELETE', `/lead/${lead}/`)
    expect(await seen('*')).toBe(0)
    expect(await seen('not has:contacts')).toBe(0)
  })

  it('is built anew, not caught up lead by lead, when many leads changed since it last looked', async () => {
    const org = await ctx.createOrg('Many Changes Co')
    const create = (name: string) => call(ctx.app, org.admin.key, 'POST', '/lead/', { body: { name } })
    await create('First')
    const index = new OrganizationLeadIndex(org.id, ctx.database.dialect, 2)
    await index.build(second.database.db)
    expect(index.size).toBe(1)
    await create('Second')
    await create('Third')
    expect(await index.catchUp(second.database.db)).toBe(true)
    expect(index.size).toBe(3)
    for (const name of ['Fourth', 'Fifth', 'Sixth']) await create(name)
    expect(await index.catchUp(second.database.db)).toBe(false)
  })

  it("keeps a text term's matches once found, up to date through another process, and only the latest terms", async () => {
    const { org, ok, leads, index, db, ordinal } = await indexedOrganization('Kept Terms Co', [
      'Acme Robotics',
      'Globex',
    ])
    const [acme = ''] = leads
    const text: TextTerms = { op: 'and', terms: [{ column: 'name', forms: ['robot'] }] }
    let finds = 0
    const find = async () => {
      finds += 1
      const { rows } = await sql<{ lead_id: string }>`select lead_id from lead_search
        where organization_id = ${org.id} and name like '%robot%'`.execute(db)
      return { kind: 'ids' as const, values: rows.map((r) => r.lead_id) }
    }
    expect((await index.textMatchesOf(db, text, find)).toArray()).toEqual([ordinal(acme)])
    // Two renames, written through the first instance, caught up by the index on the second.
    const other = await ok('POST', '/lead/', { name: 'Initech' })
    await ok('PUT', `/lead/${other.id}/`, { name: 'Robotnik' })
    await ok('PUT', `/lead/${acme}/`, { name: 'Acme' })
    expect(await index.catchUp(db)).toBe(true)
    expect((await index.textMatchesOf(db, text, find)).toArray()).toEqual([ordinal(other.id)])
    await ok('DELETE', `/lead/${other.id}/`)
    expect(await index.catchUp(db)).toBe(true)
    expect((await index.textMatchesOf(db, text, find)).toArray()).toEqual([])
    expect(finds).toBe(1)
    // Past the terms an index keeps, the least recently searched is found again when next asked for.
    for (let i = 0; i < 64; i++) {
      await index.textMatchesOf(
        db,
        { op: 'or', terms: [{ column: 'name', forms: [`term ${String(i)}`] }] },
        async () => ({
          kind: 'ids',
          values: [],
        }),
      )
    }
    await index.textMatchesOf(db, text, find)
    expect(finds).toBe(2)
  })

  it('answers terms of letters and digits from the words in memory once read, up to date through another process', async () => {
    const { ok, leads, index, db, ordinal } = await indexedOrganization('Words Co', ['Acme Robotics', 'Globex'])
    const [acme = ''] = leads
    const { asked, find } = recordingFind()
    const search = async (op: 'and' | 'or', ...forms: string[][]) =>
      (
        await index.textMatchesOf(db, { op, terms: forms.map((f) => ({ column: 'body' as const, forms: f })) }, find)
      ).toArray()
    // The first search the words could answer goes to the database while they are read beside it.
    expect(await search('and', ['robot'])).toEqual([])
    expect(asked).toEqual([{ op: 'and', terms: [{ column: 'body', forms: ['robot'] }] }])
    await index.wordsBuilt()
    asked.length = 0
    expect(await search('and', ['robo'])).toEqual([ordinal(acme)])
    const other = await ok('POST', '/lead/', { name: 'Initech' })
    await ok('POST', '/contact/', { lead_id: other.id, name: 'Robotnik', emails: [{ email: 'r@initech.example' }] })
    await ok('PUT', `/lead/${acme}/`, { name: 'Acme' })
    expect(await index.catchUp(db)).toBe(true)
    expect(await search('and', ['obot'])).toEqual([ordinal(other.id)])
    expect(await search('or', ['acme'], ['initech'])).toEqual([acme, other.id].map(ordinal).sort((a, b) => a - b))
    expect(await search('and', ['initech'], ['ob'])).toEqual([ordinal(other.id)])
    expect(asked).toEqual([])
    // A term with punctuation goes to the database; the others of its group are still answered here.
    expect(await search('and', ['robotnik'], ['r@initech'])).toEqual([])
    expect(asked).toEqual([{ op: 'and', terms: [{ column: 'body', forms: ['r@initech'] }] }])
    await ok('DELETE', `/lead/${other.id}/`)
    expect(await index.catchUp(db)).toBe(true)
    expect(await search('and', ['tech'])).toEqual([])
  })

  it('lets the event loop turn between the reads of a walk, so that a long one holds no other request', async () => {
    // Two leads a read: the eight leads' documents take four reads.
    const { index, db } = await indexedOrganization(
      'Turns Co',
      ['One', 'Two', 'Three', 'Four', 'Five', 'Six', 'Seven', 'Eight'],
      (organizationId) => new OrganizationLeadIndex(organizationId, ctx.database.dialect, undefined, 2),
    )
    // What another request would get: a turn of the event loop, counted until the words are built.
    let turns = 0
    let counting = true
    const count = () => {
      if (!counting) return
      turns += 1
      setImmediate(count)
    }
    setImmediate(count)
    const { find } = recordingFind()
    await index.textMatchesOf(db, { op: 'and', terms: [{ column: 'body', forms: ['three'] }] }, find)
    await index.wordsBuilt()
    counting = false
    expect(turns).toBeGreaterThanOrEqual(3)
  })

  it('keeps what the catch-ups read while the words were being read, over what was read before', async () => {
    let release = () => {}
    const gate = new Promise<void>((resolve) => (release = resolve))
    // Every document read, then held at the gate until the test has changed two of them and caught up.
    class HeldIndex extends OrganizationLeadIndex {
      protected override async readDocuments(db: Db, to: DocumentSink): Promise<void> {
        await super.readDocuments(db, to)
        await gate
      }
    }
    const { ok, leads, index, db, ordinal } = await indexedOrganization(
      'Words Read Late Co',
      ['Alpha One', 'Alpha Two', 'Alpha Three'],
      (organizationId) => new HeldIndex(organizationId, ctx.database.dialect),
    )
    const [renamed, deleted, kept] = leads
    const { asked, find } = recordingFind()
    const search = async (form: string) =>
      (await index.textMatchesOf(db, { op: 'and', terms: [{ column: 'body', forms: [form] }] }, find)).toArray()
    expect(await search('alpha')).toEqual([])
    await ok('PUT', `/lead/${renamed ?? ''}/`, { name: 'Beta One' })
    await ok('DELETE', `/lead/${deleted ?? ''}/`)
    expect(await index.catchUp(db)).toBe(true)
    release()
    await index.wordsBuilt()
    asked.length = 0
    expect(await search('beta')).toEqual([ordinal(renamed)])
    expect(await search('alph')).toEqual([ordinal(kept)])
    expect(await search('one')).toEqual([ordinal(renamed)])
    expect(asked).toEqual([])
  })

  it('reads an organization a few leads at a time into the same index as in one read', async () => {
    const org = await ctx.createOrg('Read In Parts Co')
    const key = org.admin.key
    const ok = writer(key)
    const field = (
      await ok('POST', '/custom_field/lead/', { name: 'Seats', type: 'number', accepts_multiple_values: true })
    ).id
    const ids: string[] = []
    for (let i = 0; i < 11; i++) {
      const lead = await ok('POST', '/lead/', {
        name: i % 3 === 0 ? '' : `Lead ${String(i)}`,
        url: i % 2 === 0 ? 'https://example.com' : null,
        description: i % 4 === 0 ? 'notes' : '',
        status: i % 2 === 0 ? 'Qualified' : 'Potential',
        [`custom.${field}`]: i % 5 === 0 ? [] : [i, i * 10],
        contacts: Array.from({ length: i % 3 }, (_, n) => ({
          name: `C${String(n)}`,
          emails: [{ email: `c${String(n)}@x.example` }],
        })),
      })
      ids.push(lead.id)
      if (i % 2 === 1) await ok('POST', '/task/', { lead_id: lead.id, text: 'Call' })
      if (i % 3 !== 2) await ok('POST', '/opportunity/', { lead_id: lead.id, value: (i * 7) % 5 })
    }
    // One of another date form, kept as its text.
    await sql`update lead set date_created = ${'2026-03-01T00:00:00Z'} where id = ${ids[4] ?? ''}`.execute(
      ctx.database.db,
    )
    const built = async (perRead: number) => {
      const index = new OrganizationLeadIndex(org.id, ctx.database.dialect, undefined, perRead)
      await index.build(second.database.db)
      const numbers = await index.numberColumn(second.database.db, field)
      for (const which of TEXT_SORTS) await index.textColumn(second.database.db, which)
      await index.opportunityValueColumn(second.database.db)
      const ordinals = index.live.toArray()
      const sorts: IndexSort[] = [
        ...TEXT_SORTS.map((which) => ({ field: 'text' as const, which, direction: 'asc' as const })),
        { field: 'opportunity_value', direction: 'desc' },
      ]
      return {
        ids: ordinals.map((o) => index.ids.idOf(o)),
        statuses: [...index.statuses].map(([id, bits]) => [id, bits.toArray()]),
        filled: [index.named, index.withUrl, index.described].map((bits) => bits.toArray()),
        counts: [...index.counts].map(([which, counts]) => [which, ordinals.map((o) => counts[o])]),
        dates: ordinals.map((o) => [index.dateText('date_created', o), index.dateText('date_updated', o)]),
        numbers: ordinals.map((o) => [numbers.first[o], numbers.more.get(o)] as const),
        sorted: sorts.map((sort) => [...ordinals].sort(index.comparator([sort])).map((o) => index.ids.idOf(o))),
      }
    }
    const whole = await built(1000)
    expect(whole.ids).toHaveLength(11)
    expect(whole.counts.find(([which]) => which === 'tasks')?.[1]).toContain(1)
    expect(whole.numbers.some(([first, more]) => first === 1 && more?.[0] === 10)).toBe(true)
    expect(whole.dates.map(([created]) => created)).toContain('2026-03-01T00:00:00Z')
    for (const perRead of [1, 3, 10]) expect(await built(perRead), String(perRead)).toEqual(whole)
  })

  it('keeps each date order across updates and deletions, and sorts by the dates as text when one is of another form', async () => {
    const org = await ctx.createOrg('Kept Order Co')
    const key = org.admin.key
    const ids: string[] = []
    for (let i = 0; i < 40; i++) {
      const res = await call(ctx.app, key, 'POST', '/lead/', { body: { name: `Lead ${String(i)}` } })
      ids.push(res.json<{ id: string }>().id)
    }
    const sorts = [
      '*',
      'sort:updated',
      'sort:created',
      'sort:-created',
      'name:lead sort:-updated',
      'updated>2026-02-01',
    ]
    const pages = async () => {
      for (const query of sorts) for (const skip of [0, 10, 30]) await totals(second.database, org.id, query, skip)
    }
    // The first searches make the kept orders; the writes after move leads in them, and take some out.
    await pages()
    for (const id of [ids[3], ids[17], ids[25], ids[39]]) {
      await call(ctx.app, key, 'PUT', `/lead/${id ?? ''}/`, { body: { description: 'moved' } })
    }
    for (const id of [ids[0], ids[20]]) await call(ctx.app, key, 'DELETE', `/lead/${id ?? ''}/`)
    await pages()
    expect(await totals(second.database, org.id, '*')).toBe(38)
    // A date of another form than the stored wire form (written by hand): its number would not sort as its text.
    await sql`update lead set date_updated = ${'2026-03-01T00:00:00Z'}, revision = revision + 1
      where id = ${ids[5] ?? ''}`.execute(ctx.database.db)
    await pages()
  })

  it('keeps the status order across deletions, new leads and renamed statuses', async () => {
    const org = await ctx.createOrg('Status Order Co')
    const write = writer(org.admin.key)
    const statuses = (await call(ctx.app, org.admin.key, 'GET', '/status/lead/')).json<{
      data: { id: string; label: string }[]
    }>().data
    const [first, second_, third] = statuses
    if (first === undefined || second_ === undefined || third === undefined) throw new Error('three statuses')
    const ids: string[] = []
    for (let i = 0; i < 12; i++) {
      const status = i % 3 === 0 ? first : second_
      ids.push((await write('POST', '/lead/', { name: `Lead ${String(i)}`, status_id: status.id })).id)
    }
    const pages = async () => {
      for (const query of ['sort:status', 'sort:-status', 'name:lead sort:status']) {
        for (const skip of [0, 3, 8]) await totals(second.database, org.id, query, skip)
      }
    }
    // The first pages make the kept order; a deleted lead leaves it (cleared, it has no rank to hold its place by),
    // and a new lead is merged in among the others by its status.
    await pages()
    await write('DELETE', `/lead/${ids[4] ?? ''}/`)
    await write('POST', '/lead/', { name: 'Lead new', status_id: third.id })
    await write('PUT', `/lead/${ids[6] ?? ''}/`, { status_id: third.id })
    await pages()
    // A renamed status moves its leads in the order without changing any of them.
    await write('PUT', `/status/lead/${third.id}/`, { label: 'Aaa first' })
    await pages()
  })

  it("sorts by the first contact's name, email and phone, the URL and the active opportunities' value as SQL does", async () => {
    const org = await ctx.createOrg('Sorted Columns Co')
    const key = org.admin.key
    const ok = writer(key)
    // Names past U+FFFF (a surrogate pair, after U+FFFD by code point but before it by code unit), case apart only,
    // accented, and none; a lead's second contact and a contact's second email must not count.
    const names = ['\u{1D49C}lice', '\uFFFDbe', 'ann', 'ANN', 'Émile', 'zoë', undefined]
    const leads: string[] = []
    for (const [i, name] of names.entries()) {
      const host = ['b', 'A', 'c', 'B', 'a', 'C', 'd'][i] ?? 'e'
      const lead = (await ok('POST', '/lead/', { name: `Lead ${String(i)}`, url: `https://${host}.example` })).id
      leads.push(lead)
      await ok('POST', '/contact/', {
        lead_id: lead,
        ...(name === undefined ? {} : { name }),
        emails: [{ email: `${name ?? 'none'}@b.example` }, { email: `aaa${String(i)}@a.example` }],
        phones: [{ phone: `+1415555${String(1100 - i)}` }],
      })
      await ok('POST', '/contact/', { lead_id: lead, name: 'Aaron', emails: [{ email: 'aaron@a.example' }] })
    }
    const { data: statuses } = (await call(ctx.app, key, 'GET', '/status/opportunity/')).json<{
      data: { id: string; type: string }[]
    }>()
    const active = statuses.find((s) => s.type === 'active')?.id ?? ''
    const won = statuses.find((s) => s.type === 'won')?.id ?? ''
    for (const [i, lead] of leads.entries()) {
      await ok('POST', '/opportunity/', { lead_id: lead, status_id: active, value: 10_000 * ((i * 3) % 7) })
      await ok('POST', '/opportunity/', { lead_id: lead, status_id: won, value: 1000 * i })
    }
    const sorts = ['contact_name', 'email', 'phone', 'url', 'opportunity_value']
    const pages = async () => {
      for (const sort of sorts) {
        for (const query of [`sort:${sort}`, `sort:-${sort}`]) {
          for (const skip of [0, 3]) await totals(second.database, org.id, query, skip)
        }
      }
    }
    await pages()
    // The surrogate pair comes after U+FFFD in the order SQL gives.
    const first = await searchLeads(second.database.db, {
      dialect: second.database.dialect,
      organizationId: org.id,
      query: 'sort:-contact_name',
      now: new Date(),
      tzOffsetHours: 0,
      skip: 0,
      limit: 2,
      engine: 'index',
    })
    expect(first.data.map((l) => l.id)).toEqual([leads[0], leads[1]])
    // A won status made active moves every lead's sum (and reopens the won opportunities' due tasks, a change of
    // each lead); the active status made lost moves them again, and no lead: its opportunities have no due day.
    await ok('PUT', `/status/opportunity/${won}/`, { type: 'active' })
    await pages()
    await ok('PUT', `/status/opportunity/${active}/`, { type: 'lost' })
    await pages()
    await ok('PUT', `/lead/${leads[2] ?? ''}/`, { url: 'https://AAA.example' })
    await pages()
  })

  it("sorts by next task as SQL does in every zone, and leaves it to SQL when a task's date is of another form", async () => {
    const org = await ctx.createOrg('Next Task Co')
    const key = org.admin.key
    // All-day tasks and timed ones either side of a day's midnight in zones west and east of UTC; a completed task,
    // a dateless one, and a lead without tasks.
    const tasks = [
      [{ date: '2026-03-02' }],
      [{ date: '2026-03-01T23:30:00+00:00' }],
      [{ date: '2026-03-02T04:00:00+00:00' }, { date: '2026-03-03' }],
      [{ date: '2026-03-01' }, { date: '2026-03-02T12:00:00+00:00' }],
      [{ date: '2026-03-02', is_complete: true }],
      [{}],
      [],
    ]
    const leads: string[] = []
    for (const [i, list] of tasks.entries()) {
      const lead = (await call(ctx.app, key, 'POST', '/lead/', { body: { name: `Lead ${String(i)}` } })).json<{
        id: string
      }>().id
      leads.push(lead)
      for (const task of list) {
        const res = await call(ctx.app, key, 'POST', '/task/', { body: { lead_id: lead, text: 'Call', ...task } })
        expect(res.statusCode, res.body).toBe(200)
      }
    }
    const page = async (query: string, tzOffsetHours: number, engine: 'index' | 'sql') => {
      const found = await searchLeads(second.database.db, {
        dialect: second.database.dialect,
        organizationId: org.id,
        query,
        now: new Date('2026-03-02T00:00:00Z'),
        tzOffsetHours,
        skip: 0,
        limit: 10,
        engine,
      })
      return found.data.map((l) => l.id)
    }
    const orders = async () => {
      for (const offset of [-8, 0, 5.5, 14]) {
        for (const query of ['sort:next_task', 'sort:-next_task']) {
          expect(await page(query, offset, 'index'), `${query} at ${String(offset)}`).toEqual(
            await page(query, offset, 'sql'),
          )
        }
      }
    }
    await orders()
    // West of UTC the all-day task of 2 March comes after the 04:00 UTC task; east of it, before.
    const west = await page('sort:next_task', -8, 'index')
    const east = await page('sort:next_task', 5.5, 'index')
    expect(west.indexOf(leads[0] ?? '')).toBeGreaterThan(west.indexOf(leads[2] ?? ''))
    expect(east.indexOf(leads[0] ?? '')).toBeLessThan(east.indexOf(leads[2] ?? ''))
    // A date of another form, written by hand: SQL orders it.
    await sql`update task set date = ${'2026-03-02 09:00'} where lead_id = ${leads[1] ?? ''}`.execute(ctx.database.db)
    await orders()
  })

  it("finds a page among many matches by the first sort's keys, ties broken by the rest of the order", async () => {
    const org = await ctx.createOrg('Many Matches Co')
    const key = org.admin.key
    const statuses = ['Potential', 'Qualified', 'Customer', 'Bad Fit']
    // Enough leads that a page of 10 is picked from the matches rather than all of them sorted (8 pages' worth).
    for (let i = 0; i < 130; i++) {
      const res = await call(ctx.app, key, 'POST', '/lead/', {
        body: {
          name: `Lead ${String(i)}`,
          status: statuses[i % 4],
          ...(i % 5 === 0 ? {} : { contacts: [{ name: `C${String(i % 7)}` }] }),
        },
      })
      expect(res.statusCode, res.body).toBe(200)
    }
    for (const query of ['sort:status', 'sort:-status', 'sort:contacts sort:-status', 'sort:-contact_name', '*']) {
      for (const skip of [0, 5, 40]) await totals(second.database, org.id, query, skip)
    }
  })

  it('gives a stored time a number that sorts as its text and gives the text back, and none to another form', () => {
    const times = [
      '1969-12-31T23:59:59.999999+00:00',
      '2026-03-01T00:00:00.000000+00:00',
      '2026-03-01T00:00:00.000001+00:00',
      '2026-03-01T00:00:00.001000+00:00',
      '2026-11-30T18:00:00.123456+00:00',
    ]
    const keys = times.map(timeKey)
    expect(keys.every((k) => Number.isSafeInteger(k))).toBe(true)
    expect([...keys].sort((a, b) => a - b)).toEqual(keys)
    expect(new Set(keys).size).toBe(times.length)
    expect(keys.map(timeText)).toEqual(times)
    fc.assert(
      fc.property(
        fc.date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }),
        fc.integer({ min: 0, max: 999 }),
        (date, micros) => {
          const text = `${date.toISOString().slice(0, 23)}${String(micros).padStart(3, '0')}+00:00`
          const key = timeKey(text)
          // Past what a double holds to the microsecond (late 1684 to mid 2255), no number: the text is kept instead.
          const micro = BigInt(date.getTime()) * 1000n + BigInt(micros)
          const exact = micro <= BigInt(Number.MAX_SAFE_INTEGER) && micro >= BigInt(Number.MIN_SAFE_INTEGER)
          if (exact) expect(timeText(key)).toBe(text)
          else expect(key).toBeNaN()
        },
      ),
    )
    for (const other of ['2026-03-01', '2026-03-01T00:00:00Z', '2026-03-01T00:00:00.00000x+00:00', '']) {
      expect(timeKey(other), other).toBeNaN()
    }
  })
})
