import fc from 'fast-check'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, createTestContext, type TestContext } from '../../tooling/test-support/test-app.js'
import { searchLeads } from './lead-search.js'
import { refreshLeadSearch } from './lead-search-index.js'

let ctx: TestContext
const ids: Record<string, string> = {}
let initialsField = ''
let employeesField = ''
let renewalField = ''

async function lead(key: string, body: Record<string, unknown>) {
  const res = await call(ctx.app, ctx.org.admin.key, 'POST', '/lead/', { body })
  expect(res.statusCode, res.body).toBe(200)
  ids[key] = res.json().id
  ctx.clock.advance(60_000)
}

async function field(name: string, type: string, extra: Record<string, unknown> = {}) {
  const res = await call(ctx.app, ctx.org.admin.key, 'POST', '/custom_field/lead/', { body: { name, type, ...extra } })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().id as string
}

beforeAll(async () => {
  ctx = await createTestContext()
  initialsField = await field('Lead initials', 'text')
  employeesField = await field('Employees', 'number')
  renewalField = await field('Renewal', 'date')
  await field('my_field', 'text')
  ctx.clock.set(new Date('2017-09-28T12:00:00.000Z'))
  await lead('wehr', {
    name: 'John Wehr',
    status: 'Qualified',
    'custom.Lead initials': 'JW',
    [`custom.${employeesField}`]: 40,
    contacts: [
      { name: 'John Wehr', emails: [{ email: 'john@wehr.example.com' }], phones: [{ phone: '+1 415 555 0101' }] },
    ],
    addresses: [{ city: 'Portland', state: 'OR', zipcode: '97201', country: 'US' }],
  })
  ctx.clock.set(new Date('2017-09-29T12:00:00.000Z'))
  await lead('wayne', {
    name: 'Wayne Enterprises',
    status: 'Customer',
    description: 'Gotham based conglomerate',
    url: 'https://www.wayne-corp.example.com',
    [`custom.${employeesField}`]: 5000,
    [`custom.${renewalField}`]: '2018-01-15',
    contacts: [
      {
        name: 'Bruce Wayne',
        emails: [{ email: 'bruce@wayneenterprises.com' }],
        phones: [{ phone: '+44 20 7946 0958' }],
      },
    ],
  })
  ctx.clock.set(new Date('2017-09-30T12:00:00.000Z'))
  await lead('potential', { name: 'Acme Anvils', status: 'Potential', custom: { my_field: 'some value' } })
  await lead('bare', { name: 'Bare Lead' })
  await call(ctx.app, ctx.other.admin.key, 'POST', '/lead/', { body: { name: 'John Wehr of Globex' } })
})
afterAll(async () => {
  await ctx.close()
})

async function search(query: string, headers: Record<string, string> = {}) {
  const res = await call(ctx.app, ctx.org.member.key, 'GET', '/lead/', { query: { query }, headers })
  return res
}

/** The fixture names of the leads found, in the order the API answered them. */
async function inOrder(query: string, headers: Record<string, string> = {}): Promise<string[]> {
  const res = await search(query, headers)
  expect(res.statusCode, res.body).toBe(200)
  const body = res.json()
  expect(body.total_results).toBe(body.data.length)
  const byId = new Map(Object.entries(ids).map(([k, v]) => [v, k]))
  return body.data.map((l: { id: string }) => byId.get(l.id) ?? l.id)
}

/** The same, sorted: for queries whose order is not the point. */
async function found(query: string, headers: Record<string, string> = {}): Promise<string[]> {
  return (await inOrder(query, headers)).sort()
}

describe('queries real clients send', () => {
  it.each([
    ['name:"John Wehr"', ['wehr']],
    ['name:John Wehr ', ['wehr']],
    ['"custom.Lead initials":JW ', ['wehr']],
    ['status:qualified or status:customer', ['wayne', 'wehr']],
    ['email_address:bruce@wayneenterprises.com', ['wayne']],
    ['custom.my_field:"some value" status:"Potential" sort:updated', ['potential']],
    ['date_updated>="2017-09-29T10:40" sort:date_updated', ['wayne', 'potential', 'bare']],
    ['sort:created', ['wehr', 'wayne', 'potential', 'bare']],
    ['sort:-date_updated', ['bare', 'potential', 'wayne', 'wehr']],
    ['has:contacts sort:-created', ['wayne', 'wehr']],
  ])('%s (in this order)', async (query, expected) => {
    expect(await inOrder(query)).toEqual(expected)
  })
})

describe('free text', () => {
  it('matches name, description, contacts, emails, phones and addresses by substring, ignoring case', async () => {
    expect(await found('GOTHAM')).toEqual(['wayne'])
    expect(await found('wayneenterprises')).toEqual(['wayne'])
    expect(await found('portland')).toEqual(['wehr'])
    expect(await found('555 0101')).toEqual(['wehr'])
    expect(await found('"bruce wayne"')).toEqual(['wayne'])
    expect(await found('anv')).toEqual(['potential'])
    expect(await found('zz')).toEqual([])
  })

  it('matches a url', async () => {
    expect(await found('wayne-corp.example')).toEqual(['wayne'])
  })

  it.each(['415-555-0101', '(415) 555-0101', '4155550101', '+1 415-555-0101', '14155550101', '555-0101'])(
    'finds a phone typed as %j',
    async (typed) => {
      expect(await found(`"${typed}"`)).toEqual(['wehr'])
    },
  )

  it.each(['020 7946 0958', '020-7946-0958', '(020) 7946 0958', '+44 20 7946 0958', '442079460958'])(
    'finds a number with a trunk prefix typed as %j',
    async (typed) => {
      expect(await found(`"${typed}"`)).toEqual(['wayne'])
    },
  )

  it('finds custom values by field id as well as by name', async () => {
    expect(await found(`custom.${initialsField}:jw`)).toEqual(['wehr'])
  })

  it('never finds another organization’s leads', async () => {
    expect(await found('globex')).toEqual([])
  })
})

describe('fields, operators and logic', () => {
  it.each([
    ['custom.Employees>100', ['wayne']],
    ['custom.Employees<=40', ['wehr']],
    ['contacts:0', ['bare', 'potential']],
    ['contacts>=1', ['wayne', 'wehr']],
    ['has:email', ['wayne', 'wehr']],
    ['has:address', ['wehr']],
    ['-has:contacts', ['bare', 'potential']],
    ['NOT status:potential', ['wayne', 'wehr']],
    ['(status:customer OR status:qualified) -name:wayne', ['wehr']],
    ['city:portland', ['wehr']],
    ['phone:4155550101', ['wehr']],
    ['contact_name:bruce', ['wayne']],
    ['created:2017-09-28', ['wehr']],
    ['created<2017-09-29', ['wehr']],
    ['created>2017-09-29', ['bare', 'potential']],
    ['custom.Renewal>=2018-01-01', ['wayne']],
    ['description:"based conglomerate"', ['wayne']],
    ['url:wayne-corp', ['wayne']],
    ['state:or', ['wehr']],
    ['country:us', ['wehr']],
    ['zipcode:972', ['wehr']],
    ['email:john@wehr.example.com', ['wehr']],
    ['email:wehr.example', ['wehr']],
    ['updated:2017-09-29', ['wayne']],
    ['updated<2017-09-29', ['wehr']],
    ['has:phone', ['wayne', 'wehr']],
    ['-has:address', ['bare', 'potential', 'wayne']],
  ])('%s', async (query, expected) => {
    expect(await found(query)).toEqual(expected)
  })

  it('resolves relative dates in the caller’s time zone', async () => {
    ctx.clock.set(new Date('2017-09-30T02:00:00.000Z'))
    // At 02:00 UTC it is still 29 September in New York (-4): "today" there is the 29th.
    const res = await search('created:today', { 'x-tz-offset': '-4' })
    expect(res.json().data.map((l: { id: string }) => l.id)).toEqual([ids.wayne])
    // In UTC it is already the 30th.
    expect(await found('created:today')).toEqual(['bare', 'potential'])
  })

  it('takes status_id', async () => {
    const wayne = (await call(ctx.app, ctx.org.member.key, 'GET', `/lead/${ids.wayne}/`)).json()
    expect(await found(`status_id:${wayne.status_id}`)).toEqual(['wayne'])
    const theirs = (await call(ctx.app, ctx.other.admin.key, 'GET', '/status/lead/')).json().data[0].id
    expect(await found(`status_id:${theirs}`)).toEqual([])
  })

  it('sorts by name, ascending or descending', async () => {
    const asc = (await search('sort:name')).json().data.map((l: { name: string }) => l.name)
    expect(asc).toEqual(['Acme Anvils', 'Bare Lead', 'John Wehr', 'Wayne Enterprises'])
    const desc = (await search('sort:-name')).json().data.map((l: { name: string }) => l.name)
    expect(desc).toEqual([...asc].reverse())
  })

  it('pages with total_results over the whole match', async () => {
    const res = await call(ctx.app, ctx.org.member.key, 'GET', '/lead/', {
      query: { query: 'sort:name', _limit: '1', _skip: '1' },
    })
    expect(res.json()).toMatchObject({ has_more: true, total_results: 4 })
    expect(res.json().data.map((l: { name: string }) => l.name)).toEqual(['Bare Lead'])
  })

  it.each([
    ['0', { has_more: true, total_results: 2 }, ['wayne']],
    ['1', { has_more: false, total_results: 2 }, ['wehr']],
    ['5', { has_more: false, total_results: 2 }, []],
  ])('counts a search’s matches on every page, also past the last (skip %s)', async (skip, envelope, keys) => {
    const res = await call(ctx.app, ctx.org.member.key, 'GET', '/lead/', {
      query: { query: 'has:contacts sort:-name', _limit: '1', _skip: skip },
    })
    expect(res.json()).toMatchObject(envelope)
    expect(res.json().data.map((l: { id: string }) => l.id)).toEqual(keys.map((k) => ids[k]))
    expect(Object.keys(res.json().data[0] ?? {})).not.toContain('total_results')
  })

  it('counts a date range’s matches', async () => {
    const res = await call(ctx.app, ctx.org.member.key, 'GET', '/lead/', {
      query: { query: 'created>2000-01-01 sort:name', _limit: '1' },
    })
    expect(res.json()).toMatchObject({ has_more: true, total_results: 4 })
    expect(res.json().data.map((l: { name: string }) => l.name)).toEqual(['Acme Anvils'])
  })

  it('counts no matches as 0', async () => {
    const res = await call(ctx.app, ctx.org.member.key, 'GET', '/lead/', { query: { query: 'zzzzqqq' } })
    expect(res.json()).toEqual({ has_more: false, total_results: 0, data: [] })
  })
})

describe('bad queries', () => {
  it.each([
    'name:',
    '(status:customer',
    'foo:bar',
    'sort:color',
    'name>x',
    'custom.Nope:1',
    'custom.Employees>abc',
    'created:someday',
  ])('%j is a 400 field error on query that says where', async (query) => {
    const res = await search(query)
    expect(res.statusCode).toBe(400)
    expect(res.json()['field-errors'].query).toMatch(/column \d+/)
  })

  it('refuses _limit above 200', async () => {
    const res = await call(ctx.app, ctx.org.member.key, 'GET', '/lead/', { query: { _limit: '201' } })
    expect(res.statusCode).toBe(400)
    expect(res.json()['field-errors']).toHaveProperty('_limit')
  })
})

describe('relative dates over HTTP, in the caller’s zone', () => {
  // The app reads the test clock: "now" is fixed, whatever the wall clock says.
  it.each([
    // 2017-10-02T02:00Z is Sunday 1 October 22:00 at -4 and Monday 2 October in UTC.
    ['2017-10-02T02:00:00Z', 'created:yesterday', '-4', ['bare', 'potential']],
    ['2017-10-02T02:00:00Z', 'created:yesterday', '0', []],
    ['2017-10-02T02:00:00Z', 'created:"3 days ago"', '-4', ['wehr']],
    ['2017-10-02T02:00:00Z', 'created:"3 days ago"', '0', ['wayne']],
    ['2017-10-02T02:00:00Z', 'created:"last week"', '-4', []],
    ['2017-10-02T02:00:00Z', 'created:"last week"', '0', ['bare', 'potential', 'wayne', 'wehr']],
    ['2017-10-02T02:00:00Z', 'created:"this week"', '-4', ['bare', 'potential', 'wayne', 'wehr']],
    // 2017-10-01T02:00Z is still September at -4.
    ['2017-10-01T02:00:00Z', 'created:"this month"', '-4', ['bare', 'potential', 'wayne', 'wehr']],
    ['2017-10-01T02:00:00Z', 'created:"this month"', '0', []],
    ['2017-10-01T02:00:00Z', 'updated>"3 days ago"', '5.5', ['bare', 'potential', 'wayne']],
  ])('at %s, %s with X-TZ-Offset %s', async (now, query, offset, expected) => {
    ctx.clock.set(new Date(now))
    expect(await found(query, { 'x-tz-offset': offset })).toEqual(expected)
  })
})

describe('case folding beyond ASCII, the same on SQLite and Postgres', () => {
  it('matches names, status labels and custom values whatever their case', async () => {
    const org = await ctx.createOrg('Unicode GmbH')
    const post = async (path: string, body: Record<string, unknown>) => {
      const res = await call(ctx.app, org.admin.key, 'POST', path, { body })
      expect(res.statusCode, res.body).toBe(200)
      return res.json()
    }
    await post('/status/lead/', { label: 'Über Qualified' })
    await post('/custom_field/lead/', { name: 'Remark', type: 'text' })
    await post('/custom_field/lead/', { name: 'Kind', type: 'choices', choices: ['ÖL', 'Gas'] })
    const ecole = await post('/lead/', {
      name: 'ÉCOLE Co',
      status: 'über qualified',
      'custom.Remark': 'GROẞER ÄRGER',
      'custom.Kind': 'ÖL',
      contacts: [{ name: 'ÅSA ÖBERG' }],
      addresses: [{ label: 'business', city: 'ZÜRICH' }],
    })
    await post('/lead/', { name: 'Plain Co' })
    const find = async (query: string) => {
      const res = await call(ctx.app, org.member.key, 'GET', '/lead/', { query: { query } })
      expect(res.statusCode, res.body).toBe(200)
      return res.json().data.map((l: { id: string }) => l.id)
    }
    for (const query of [
      'name:école',
      'name:"école co"',
      'status:"über qualified"',
      'custom.Remark:ärger',
      'custom.Kind:öl',
      'contact_name:åsa',
      'city:zürich',
      'école',
    ]) {
      expect(await find(query), query).toEqual([ecole.id])
    }
    // An all-ASCII value still finds the two letters that fold into ASCII (İ → i, the Kelvin sign → k).
    const istanbul = await post('/lead/', { name: 'İSTANBUL \u212Aİ', contacts: [{ name: 'Ayşe YILDIZ' }] })
    for (const query of ['name:istanbul', 'name:"istanbul ki"', 'contact_name:yildiz', 'istanbul']) {
      expect(await find(query), query).toEqual([istanbul.id])
    }
    expect(await find('name:PLAIN')).toHaveLength(1)
  })

  it('sorts by name case-insensitively, by code point, nameless leads last, the same on both databases', async () => {
    const org = await ctx.createOrg('Sorting Ltd')
    const names: (string | null)[] = ['beta', 'alpha', 'Émile', null, 'Alpha', 'Zed']
    for (const name of names) {
      const body = name === null ? { contacts: [{ name: 'Nameless' }] } : { name }
      const res = await call(ctx.app, org.admin.key, 'POST', '/lead/', { body })
      expect(res.statusCode, res.body).toBe(200)
    }
    const sorted = async (query: string) =>
      (await call(ctx.app, org.member.key, 'GET', '/lead/', { query: { query } }))
        .json()
        .data.map((l: { name: string | null }) => l.name)
    expect(await sorted('sort:name')).toEqual(['Alpha', 'alpha', 'beta', 'Zed', 'Émile', null])
    expect(await sorted('sort:-name')).toEqual(['Émile', 'Zed', 'beta', 'alpha', 'Alpha', null])
  })

  it('puts an empty name with the nameless, by index or SQL, walking the names or sorting the matches', async () => {
    const org = await ctx.createOrg('Empty Names Ltd')
    for (const name of ['beta', 'empty', null, 'Alpha', 'empty', null]) {
      const res = await call(ctx.app, org.admin.key, 'POST', '/lead/', { body: { name } })
      expect(res.statusCode, res.body).toBe(200)
    }
    // The api stores an empty name as none; a row written otherwise (an older import, a hand edit) may hold one.
    const { rows } = await sql<{ id: string }>`update lead set name = '' where organization_id = ${org.id}
      and name = 'empty' returning id`.execute(ctx.database.db)
    for (const { id } of rows) await refreshLeadSearch(ctx.database.db, org.id, id)
    const ids = async (query: string, engine: 'index' | 'sql') => {
      const search = { dialect: ctx.database.dialect, organizationId: org.id, query, now: new Date(), skip: 0 }
      const found = await searchLeads(ctx.database.db, { ...search, tzOffsetHours: 0, limit: 100, engine })
      return found.data.map((l) => [l.id, l.name])
    }
    for (const direction of ['', '-']) {
      // All leads match both: SQL walks the names for the first (no condition), and reads and sorts the six matches
      // for the second (too few for a walk).
      const walked = await ids(`sort:${direction}name`, 'sql')
      expect(walked.slice(0, 2).map(([, name]) => name)).toEqual(
        direction === '' ? ['Alpha', 'beta'] : ['beta', 'Alpha'],
      )
      expect(
        walked
          .slice(2)
          .map(([, name]) => name ?? null)
          .sort(),
      ).toEqual(['', '', null, null])
      for (const engine of ['index', 'sql'] as const) {
        expect(await ids(`sort:${direction}name`, engine), engine).toEqual(walked)
        expect(await ids(`created>2000-01-01 sort:${direction}name`, engine), engine).toEqual(walked)
      }
    }
  })
})

/** A fresh organization with its own leads, for searches whose fixtures would disturb the shared ones. */
async function separateOrg(name: string) {
  const org = await ctx.createOrg(name)
  const keys = new Map<string, string>()
  return {
    org,
    async post(path: string, body: Record<string, unknown>) {
      const res = await call(ctx.app, org.admin.key, 'POST', path, { body })
      expect(res.statusCode, res.body).toBe(200)
      return res.json()
    },
    async lead(key: string, body: Record<string, unknown>) {
      const res = await call(ctx.app, org.admin.key, 'POST', '/lead/', { body })
      expect(res.statusCode, res.body).toBe(200)
      keys.set(res.json().id, key)
      return res.json<{ id: string; contacts: { id: string }[] }>()
    },
    /** The fixture names of the leads found, in the order the API answered them, with their total. */
    async inOrder(query: string, headers: Record<string, string> = {}): Promise<{ total: number; keys: string[] }> {
      const res = await call(ctx.app, org.member.key, 'GET', '/lead/', { query: { query }, headers })
      expect(res.statusCode, `${query}: ${res.body}`).toBe(200)
      const body = res.json()
      return { total: body.total_results, keys: body.data.map((l: { id: string }) => keys.get(l.id) ?? l.id) }
    },
    async found(query: string, headers: Record<string, string> = {}): Promise<string[]> {
      const res = await call(ctx.app, org.member.key, 'GET', '/lead/', { query: { query }, headers })
      expect(res.statusCode, `${query}: ${res.body}`).toBe(200)
      return res
        .json()
        .data.map((l: { id: string }) => keys.get(l.id) ?? l.id)
        .sort()
    },
  }
}

describe('email searches', () => {
  it('find a domain or a partial address, ignoring case; a complete address matches exactly', async () => {
    const acme = await separateOrg('Email Domains Ltd')
    const contact = (email: string) => ({ contacts: [{ name: 'Someone', emails: [{ email }] }] })
    await acme.lead('bruce', { name: 'Bruce', ...contact('bruce@acme.com') })
    await acme.lead('alice', { name: 'Alice', ...contact('Alice@ACME.com') })
    await acme.lead('australia', { name: 'Carol', ...contact('carol@acme.com.au') })
    await acme.lead('elsewhere', { name: 'Dan', ...contact('dan@notacme.com') })
    await acme.lead('bruce2', { name: 'Other Bruce', ...contact('bruce@initech.com') })
    for (const [query, expected] of [
      ['email:@acme.com', ['alice', 'australia', 'bruce']],
      ['email:@ACME.COM', ['alice', 'australia', 'bruce']],
      ['email:acme.com', ['alice', 'australia', 'bruce', 'elsewhere']],
      ['email_address:@acme.com.au', ['australia']],
      ['email:bruce@', ['bruce', 'bruce2']],
      ['email:Bruce@Acme', ['bruce']],
      ['email:"alice@"', ['alice']],
      ['email:BRUCE@ACME.COM', ['bruce']],
      ['email:alice@acme.com', ['alice']],
      ['email:ruce@acme.com', []],
      ['email:@', ['alice', 'australia', 'bruce', 'bruce2', 'elsewhere']],
    ] as const) {
      expect(await acme.found(query), query).toEqual(expected)
    }
  })
})

describe('spaces around comparators', () => {
  it.each([
    ['created > "2017-09-28"', 'created>"2017-09-28"'],
    ['custom.Employees >= 100', 'custom.Employees>=100'],
    ['contacts >= 1', 'contacts>=1'],
    ['created< 2017-09-29', 'created<2017-09-29'],
    ['created <=2017-09-29', 'created<=2017-09-29'],
    ['status : customer', 'status:customer'],
    ['"custom.Lead initials" : JW', '"custom.Lead initials":JW'],
    ['name: "John Wehr"', 'name:"John Wehr"'],
    ['contacts >= 1 sort : -created', 'contacts>=1 sort:-created'],
  ])('%s finds what %s finds', async (spaced, tight) => {
    const expected = await inOrder(tight)
    expect(expected.length).toBeGreaterThan(0)
    expect(await inOrder(spaced)).toEqual(expected)
  })

  it('reads created > "last week" as a comparison', async () => {
    ctx.clock.set(new Date('2017-10-04T12:00:00.000Z'))
    expect(await found('created > "last week"')).toEqual([])
    expect(await found('created >= "last week"')).toEqual(['bare', 'potential', 'wayne', 'wehr'])
    ctx.clock.set(new Date('2017-09-28T12:00:00.000Z'))
    expect(await found('created > "last week"')).toEqual(['bare', 'potential', 'wayne', 'wehr'])
  })

  it('keeps a word followed by a quoted phrase two free-text terms', async () => {
    expect(await found('gotham "based conglomerate"')).toEqual(['wayne'])
    expect(await found('"bruce wayne" gotham')).toEqual(['wayne'])
    expect(await found('portland "based conglomerate"')).toEqual([])
  })
})

describe('date and datetime custom fields', () => {
  it('compare calendar dates as dates', async () => {
    const dates = await separateOrg('Renewals Ltd')
    await dates.post('/custom_field/lead/', { name: 'Renewal', type: 'date' })
    await dates.lead('14th', { name: 'A', 'custom.Renewal': '2018-01-14' })
    await dates.lead('15th', { name: 'B', 'custom.Renewal': '2018-01-15' })
    await dates.lead('16th', { name: 'C', 'custom.Renewal': '2018-01-16' })
    await dates.lead('none', { name: 'D' })
    for (const [query, expected] of [
      ['custom.Renewal:2018-01-15', ['15th']],
      ['custom.Renewal>2018-01-15', ['16th']],
      ['custom.Renewal>=2018-01-15', ['15th', '16th']],
      ['custom.Renewal<2018-01-15', ['14th']],
      ['custom.Renewal<=2018-01-15', ['14th', '15th']],
      ['custom.Renewal>2018-01-16', []],
      ['-custom.Renewal:2018-01-15', ['14th', '16th', 'none']],
    ] as const) {
      expect(await dates.found(query), query).toEqual(expected)
    }
    ctx.clock.set(new Date('2018-01-16T02:00:00.000Z'))
    for (const [query, offset, expected] of [
      ['custom.Renewal:today', '0', ['16th']],
      // 02:00 UTC on the 16th is still the 15th at -4.
      ['custom.Renewal:today', '-4', ['15th']],
      ['custom.Renewal:yesterday', '0', ['15th']],
      ['custom.Renewal:"2 days ago"', '0', ['14th']],
      ['custom.Renewal>"2 days ago"', '0', ['15th', '16th']],
      ['custom.Renewal<"1 day ago"', '0', ['14th']],
      ['custom.Renewal<"1 day ago"', '-4', []],
      ['custom.Renewal:"this month"', '0', ['14th', '15th', '16th']],
      ['custom.Renewal:"last month"', '0', []],
      ['custom.Renewal:"this week"', '0', ['15th', '16th']],
    ] as const) {
      expect(await dates.found(query, { 'x-tz-offset': offset }), `${query} at ${offset}`).toEqual(expected)
    }
  })

  it('refuses a time of day for a date field', async () => {
    const dates = await separateOrg('Renewal Times Ltd')
    await dates.post('/custom_field/lead/', { name: 'Renewal', type: 'date' })
    const res = await call(ctx.app, dates.org.member.key, 'GET', '/lead/', {
      query: { query: 'custom.Renewal>2018-01-15T10:00' },
    })
    expect(res.statusCode).toBe(400)
    expect(res.json()['field-errors'].query).toMatch(
      /^Unexpected time of day .*: a date field holds whole days.*column 1/,
    )
  })

  it('compare datetimes as instants, days in the caller’s zone', async () => {
    const times = await separateOrg('Kickoffs Ltd')
    await times.post('/custom_field/lead/', { name: 'Kickoff', type: 'datetime' })
    await times.lead('late', { name: 'A', 'custom.Kickoff': '2018-01-15T23:30:00Z' })
    await times.lead('next', { name: 'B', 'custom.Kickoff': '2018-01-16T01:00:00+00:00' })
    for (const [query, offset, expected] of [
      ['custom.Kickoff:2018-01-15', '0', ['late']],
      ['custom.Kickoff:2018-01-15', '-4', ['late', 'next']],
      ['custom.Kickoff>2018-01-15', '0', ['next']],
      ['custom.Kickoff>=2018-01-16', '0', ['next']],
      ['custom.Kickoff<2018-01-16', '0', ['late']],
      ['custom.Kickoff<=2018-01-15', '-4', ['late', 'next']],
      ['custom.Kickoff:"2018-01-15T23:30"', '0', ['late']],
      ['custom.Kickoff>"2018-01-15T23:30"', '0', ['next']],
      ['custom.Kickoff>="2018-01-15T19:30"', '-4', ['late', 'next']],
    ] as const) {
      expect(await times.found(query, { 'x-tz-offset': offset }), `${query} at ${offset}`).toEqual(expected)
    }
  })
})

describe('phone field searches', () => {
  it.each([
    ['phone:"020 7946 0958"', ['wayne']],
    ['phone:020-7946-0958', ['wayne']],
    ['phone:"(020) 7946 0958"', ['wayne']],
    ['phone:"+44 20 7946 0958"', ['wayne']],
    ['phone:"7946 0958"', ['wayne']],
    ['phone:"(415) 555-0101"', ['wehr']],
    ['phone:"+1 415-555-0101"', ['wehr']],
    ['phone:"555 0101"', ['wehr']],
  ])('%s', async (query, expected) => {
    expect(await found(query)).toEqual(expected)
  })

  it('finds a number typed as it is dialled in the organization’s country', async () => {
    const london = await separateOrg('London Ltd')
    const put = await call(ctx.app, london.org.admin.key, 'PUT', `/organization/${london.org.id}/`, {
      body: { country: 'GB' },
    })
    expect(put.statusCode, put.body).toBe(200)
    await london.lead('office', {
      name: 'Office',
      contacts: [{ name: 'Reception', phones: [{ phone: '020 7946 0958' }] }],
    })
    const stored = await call(ctx.app, london.org.member.key, 'GET', '/lead/', { query: { query: 'office' } })
    expect(stored.json().data[0].contacts[0].phones[0].phone).toBe('+442079460958')
    expect(await london.found('phone:"020 7946 0958"')).toEqual(['office'])
    expect(await london.found('"020 7946 0958"')).toEqual(['office'])
  })
})

describe('large and deep searches', () => {
  const twoLetterWords = (count: number) =>
    Array.from({ length: count }, (_, i) => String.fromCharCode(97 + (Math.floor(i / 26) % 26), 97 + (i % 26)))

  async function refusedFor(query: string) {
    const res = await search(query)
    expect(res.statusCode, res.body).toBe(400)
    return String(res.json()['field-errors'].query)
  }

  it('refuses more than 200 terms with a field error that states the limit', async () => {
    const words = twoLetterWords(1200).join(' ')
    expect(words).toHaveLength(3599)
    expect(await refusedFor(words)).toBe('Too many search terms at column 601: use at most 200')
    expect(await refusedFor(twoLetterWords(201).join(' '))).toMatch(/use at most 200/)
    const fields = Array.from({ length: 201 }, (_, i) => `name:x${String(i)}`).join(' OR ')
    expect(await refusedFor(fields)).toMatch(/use at most 200/)
  })

  it("answers 200 terms, free text or OR'ed fields", async () => {
    const words = Array.from({ length: 200 }, (_, i) => ['wayne', 'gotham', 'bruce', 'wa', 'go'][i % 5]).join(' ')
    expect(await found(words)).toEqual(['wayne'])
    const names = Array.from({ length: 199 }, (_, i) => `name:nobody${String(i)}`)
    expect(await found([...names, 'name:wehr'].join(' OR '))).toEqual(['wehr'])
    const cities = Array.from({ length: 199 }, (_, i) => `city:nowhere${String(i)}`)
    expect(await found([...cities, 'city:portland'].join(' or '))).toEqual(['wehr'])
    const mixed = Array.from({ length: 100 }, (_, i) => `(name:nobody${String(i)} OR -has:contacts)`).join(' ')
    expect(await found(mixed)).toEqual(['bare', 'potential'])
  })

  it('answers parentheses and negations 32 deep and refuses deeper ones', async () => {
    expect(await found(`${'('.repeat(32)}gotham${')'.repeat(32)}`)).toEqual(['wayne'])
    expect(await found(`${'-'.repeat(32)}gotham`)).toEqual(['wayne'])
    const alternation = `${'(nobody OR '.repeat(32)}portland${')'.repeat(32)}`
    expect(await found(alternation)).toEqual(['wehr'])
    expect(await refusedFor(`${'('.repeat(33)}a${')'.repeat(33)}`)).toMatch(/nested too deeply/)
    expect(await refusedFor(`${'('.repeat(1999)}a${')'.repeat(1999)}`)).toMatch(/nested too deeply/)
    expect(await refusedFor(`${'-'.repeat(3999)}a`)).toMatch(/nested too deeply/)
  })

  it('never answers a search with a 500', async () => {
    const piece = fc.oneof(
      fc.constantFrom(
        ' ',
        '(',
        ')',
        '"',
        '-',
        ':',
        '>',
        '<',
        '>=',
        '<=',
        ' OR ',
        ' and ',
        'NOT ',
        '\\',
        '@',
        '%',
        '_',
        '*',
      ),
      fc.constantFrom('name', 'email', 'phone', 'created', 'updated', 'contacts', 'custom.Employees', 'custom.Renewal'),
      fc.constantFrom(
        'has',
        'sort',
        'status',
        'city',
        'address',
        'country',
        'tasks',
        'addresses',
        'activities',
        'company',
        'url',
        'id',
        '"custom.Lead initials"',
      ),
      fc.constantFrom('today', '"3 days ago"', '2017-09-29', '2017-09-29T10:40', '9999-12-31', '0001-01-01', '-name'),
      fc.constantFrom('99999999999999999999', '1e400', '-0', '0x10', 'NaN', '+44 20', '\u0000', '\u200b', 'İ', '😀'),
      fc.string({ maxLength: 6 }),
      fc.string({ unit: 'binary', maxLength: 4 }),
    )
    await fc.assert(
      fc.asyncProperty(fc.array(piece, { maxLength: 16 }), async (pieces) => {
        const query = pieces.join('')
        const res = await search(query)
        expect([200, 400], `${JSON.stringify(query)}: ${res.body}`).toContain(res.statusCode)
        if (res.statusCode === 400) expect(typeof res.json()['field-errors'].query).toBe('string')
      }),
      { numRuns: 300 },
    )
  })

  it.each([
    'contacts>99999999999999999999',
    'contacts:1e400',
    'custom.Employees>99999999999999999999999',
    'custom.Employees<1e300',
    'name:\u0000',
    '\u0000',
    'ab\u0000c',
    'created:"999999999 days ago"',
    'sort:name '.repeat(399),
  ])('answers %j without an error', async (query) => {
    const res = await search(query)
    expect([200, 400], res.body).toContain(res.statusCode)
  })
})

describe('text field searches through the trigram index', () => {
  it('match within one value: across contacts or addresses they do not join, and a line break compares values', async () => {
    const fields = await separateOrg('Exact Fields Ltd')
    await fields.post('/custom_field/lead/', { name: 'Notes', type: 'text' })
    await fields.post('/custom_field/lead/', { name: 'Other', type: 'textarea' })
    await fields.lead('two', {
      name: 'Two Contacts Co',
      description: 'Line one\nline two',
      'custom.Notes': 'alpha beta',
      'custom.Other': 'gamma',
      contacts: [{ name: 'Ann Lee' }, { name: 'Bob Ray' }],
      addresses: [
        { label: 'business', city: 'Springfield', state: 'IL' },
        { label: 'mailing', city: 'Shelbyville', state: 'KY' },
      ],
    })
    await fields.lead('none', { name: 'Nothing Inc' })
    for (const [query, expected] of [
      ['contact_name:"ann lee"', ['two']],
      ['contact_name:"BOB RAY"', ['two']],
      ['contact_name:"lee bob"', []],
      ['contact_name:"lee\nbob"', []],
      ['city:shelby', ['two']],
      ['city:"springfield shelbyville"', []],
      ['address:"il springfield"', []],
      ['address:kentucky', []],
      ['address:shelbyville', ['two']],
      ['description:"one\nline"', ['two']],
      ['description:"line two"', ['two']],
      ['custom.Notes:"alpha be"', ['two']],
      ['custom.Notes:gamma', []],
      ['custom.Other:gamma', ['two']],
      ['-contact_name:ann', ['none']],
      ['name:"two contacts" OR contact_name:nothing', ['two']],
      ['name:co', ['two']],
    ] as const) {
      expect(await fields.found(query), query).toEqual(expected)
    }
  })

  it('check terms under three characters on the rows found, literally and whatever their case', async () => {
    const short = await separateOrg('Short Terms Ltd')
    await short.lead('street', {
      name: 'Main ST Deli',
      addresses: [{ label: 'business', city: 'Boston', state: 'MA' }],
    })
    await short.lead('percent', { name: '100% Main Juice', description: 'a_b' })
    await short.lead('plain', { name: 'Main Plaza', description: 'axb' })
    for (const [query, expected] of [
      ['main st', ['street']],
      ['main ST', ['street']],
      ['st', ['street']],
      ['main %', ['percent']],
      ['main 0%', ['percent']],
      ['a_', ['percent']],
      ['main _b', ['percent']],
      ['main xb', ['plain']],
      ['st OR xb', ['plain', 'street']],
      ['main -st', ['percent', 'plain']],
      ['state:ma', ['street']],
      ['state:MA main', ['street']],
      ['name:"t d" main', ['street']],
    ] as const) {
      expect(await short.found(query), query).toEqual(expected)
    }
  })

  it('follow every write: lead edits, contacts added, renamed and removed, custom values, merges', async () => {
    const writes = await separateOrg('Writes Ltd')
    await writes.post('/custom_field/lead/', { name: 'Notes', type: 'text' })
    const lead = await writes.post('/lead/', {
      name: 'Before Name',
      addresses: [{ label: 'business', city: 'Oldtown' }],
      'custom.Notes': 'first note',
    })
    const key = writes.org.admin.key
    const put = async (path: string, body: Record<string, unknown>) => {
      const res = await call(ctx.app, key, 'PUT', path, { body })
      expect(res.statusCode, res.body).toBe(200)
      return res.json()
    }
    const ids = async (query: string) => {
      const res = await call(ctx.app, writes.org.member.key, 'GET', '/lead/', { query: { query } })
      expect(res.statusCode, res.body).toBe(200)
      return res.json().data.map((l: { id: string }) => l.id)
    }
    expect(await ids('city:oldtown name:before custom.Notes:first')).toEqual([lead.id])
    await put(`/lead/${lead.id}/`, {
      name: 'After Name',
      addresses: [{ label: 'business', city: 'Newtown' }],
      'custom.Notes': 'second note',
    })
    expect(await ids('name:before')).toEqual([])
    expect(await ids('city:oldtown')).toEqual([])
    expect(await ids('custom.Notes:first')).toEqual([])
    expect(await ids('name:after city:newtown custom.Notes:second')).toEqual([lead.id])

    const contact = await writes.post('/contact/', { lead_id: lead.id, name: 'Carla Contact' })
    expect(await ids('contact_name:carla')).toEqual([lead.id])
    await put(`/contact/${contact.id}/`, { name: 'Dora Contact' })
    expect(await ids('contact_name:carla')).toEqual([])
    expect(await ids('contact_name:dora')).toEqual([lead.id])
    const removed = await call(ctx.app, key, 'DELETE', `/contact/${contact.id}/`)
    expect(removed.statusCode, removed.body).toBe(200)
    expect(await ids('contact_name:dora')).toEqual([])

    const source = await writes.post('/lead/', { name: 'Merged Away', contacts: [{ name: 'Emil Moved' }] })
    const merged = await call(ctx.app, key, 'POST', '/lead/merge/', {
      body: { source: source.id, destination: lead.id },
    })
    expect(merged.statusCode, merged.body).toBe(200)
    expect(await ids('contact_name:emil')).toEqual([lead.id])
    expect(await ids('name:"merged away"')).toEqual([])
  })

  it('combine with a status that the search rows keep in step with the lead, however it changes', async () => {
    const statuses = await separateOrg('Statuses Ltd')
    await statuses.lead('boston', {
      name: 'Boston Co',
      status: 'Potential',
      addresses: [{ label: 'business', city: 'Boston' }],
    })
    await statuses.lead('denver', {
      name: 'Denver Co',
      status: 'Potential',
      addresses: [{ label: 'business', city: 'Denver' }],
    })
    expect(await statuses.found('city:boston status:potential')).toEqual(['boston'])
    expect(await statuses.found('city:boston status:qualified')).toEqual([])
    // A write that changes only the lead's status, as any future code might.
    const qualified = (await call(ctx.app, statuses.org.member.key, 'GET', '/status/lead/'))
      .json()
      .data.find((st: { label: string }) => st.label === 'Qualified')
    await ctx.database.db
      .updateTable('lead')
      .set({ status_id: qualified.id })
      .where('organization_id', '=', statuses.org.id)
      .where('name', '=', 'Boston Co')
      .execute()
    expect(await statuses.found('city:boston status:potential')).toEqual([])
    expect(await statuses.found('city:boston status:qualified')).toEqual(['boston'])
    expect(await statuses.found(`boston status_id:${String(qualified.id)}`)).toEqual(['boston'])
    expect(await statuses.found('co status:potential')).toEqual(['denver'])
    expect(await statuses.found('co -status:potential')).toEqual(['boston'])
  })

  it('never find another organization’s leads', async () => {
    const mine = await separateOrg('Mine Ltd')
    const theirs = await separateOrg('Theirs Ltd')
    await theirs.lead('theirs', { name: 'Shared Name', addresses: [{ label: 'business', city: 'Sharedville' }] })
    await mine.lead('mine', { name: 'Other Name' })
    expect(await mine.found('name:shared')).toEqual([])
    expect(await mine.found('city:sharedville')).toEqual([])
    expect(await mine.found('sharedville')).toEqual([])
    expect(await theirs.found('city:sharedville')).toEqual(['theirs'])
  })
})

describe('sorts by the list columns', () => {
  // Each column's values are chosen so that a wrong reading gives a different order: text compared by code point
  // (`Gold` before `bronze`), numbers as text (`10` before `2`), won opportunities counted, completed tasks counted,
  // a date-only task at midnight UTC rather than in the caller's zone. `Crate` has none of the values: it is last
  // both ways.
  let org: Awaited<ReturnType<typeof separateOrg>>
  beforeAll(async () => {
    org = await separateOrg('Column Sorts Ltd')
    const size = (await org.post('/custom_field/lead/', { name: 'Size', type: 'number' })).id as string
    const tier = (await org.post('/custom_field/lead/', { name: 'Tier', type: 'text' })).id as string
    const anvil = await org.lead('Anvil', {
      name: 'Anvil',
      status: 'Qualified',
      url: 'https://b.example',
      description: 'alpha',
      [`custom.${size}`]: 10,
      [`custom.${tier}`]: 'Gold',
      contacts: [{ name: 'zoe', emails: [{ email: 'b@x.example' }], phones: [{ phone: '+1 415 555 0102' }] }],
    })
    const bolt = await org.lead('Bolt', {
      name: 'Bolt',
      status: 'Customer',
      url: 'https://a.example',
      description: 'Beta',
      [`custom.${size}`]: 2,
      [`custom.${tier}`]: 'bronze',
      contacts: [
        { name: 'Adam', emails: [{ email: 'a@x.example' }], phones: [{ phone: '+1 415 555 0101' }] },
        { name: 'Aaron', emails: [{ email: '0@x.example' }], phones: [{ phone: '+1 415 555 0100' }] },
      ],
    })
    const crate = await org.lead('Crate', { name: 'Crate', status: 'Potential' })
    await org.post('/opportunity/', { lead_id: anvil.id, value: 500 })
    await org.post('/opportunity/', { lead_id: anvil.id, value: 100_000, status: 'Won' })
    await org.post('/opportunity/', { lead_id: bolt.id, value: 200 })
    await org.post('/opportunity/', { lead_id: bolt.id, value: 400 })
    await org.post('/task/', { lead_id: anvil.id, text: 'Date only', date: '2030-01-01' })
    await org.post('/task/', { lead_id: bolt.id, text: 'At nine', date: '2030-01-01T09:00:00+00:00' })
    await org.post('/task/', { lead_id: bolt.id, text: 'Done long ago', date: '2020-01-01', is_complete: true })
    await org.post('/task/', { lead_id: crate.id, text: 'Some day' })
    ctx.clock.advance(60_000)
    await org.post('/activity/note/', { lead_id: bolt.id, note: 'First' })
    ctx.clock.advance(60_000)
    await org.post('/activity/note/', { lead_id: anvil.id, note: 'Newest' })
  })

  it.each([
    ['status', ['Bolt', 'Crate', 'Anvil'], ['Anvil', 'Crate', 'Bolt']],
    ['status_label', ['Bolt', 'Crate', 'Anvil'], ['Anvil', 'Crate', 'Bolt']],
    ['contact_name', ['Bolt', 'Anvil', 'Crate'], ['Anvil', 'Bolt', 'Crate']],
    ['email', ['Bolt', 'Anvil', 'Crate'], ['Anvil', 'Bolt', 'Crate']],
    ['phone', ['Bolt', 'Anvil', 'Crate'], ['Anvil', 'Bolt', 'Crate']],
    ['url', ['Bolt', 'Anvil', 'Crate'], ['Anvil', 'Bolt', 'Crate']],
    ['description', ['Anvil', 'Bolt', 'Crate'], ['Bolt', 'Anvil', 'Crate']],
    ['custom.Size', ['Bolt', 'Anvil', 'Crate'], ['Anvil', 'Bolt', 'Crate']],
    ['custom.Tier', ['Bolt', 'Anvil', 'Crate'], ['Anvil', 'Bolt', 'Crate']],
    ['opportunity_value', ['Anvil', 'Bolt', 'Crate'], ['Bolt', 'Anvil', 'Crate']],
    // Crate's only activity is its creation, which is not one (decision 0059).
    ['last_activity', ['Bolt', 'Anvil', 'Crate'], ['Anvil', 'Bolt', 'Crate']],
    ['next_task', ['Anvil', 'Bolt', 'Crate'], ['Bolt', 'Anvil', 'Crate']],
  ])('sort:%s, both ways, leads without a value last', async (key, asc, desc) => {
    expect((await org.inOrder(`sort:${key}`)).keys).toEqual(asc)
    expect((await org.inOrder(`sort:-${key}`)).keys).toEqual(desc)
    // With a condition too, and a second sort that only breaks ties.
    expect((await org.inOrder(`-name:crate sort:${key} sort:name`)).keys).toEqual(asc.filter((k) => k !== 'Crate'))
  })

  it('sorts by a custom field named by its id, as the list writes it', async () => {
    const fields = await call(ctx.app, org.org.member.key, 'GET', '/custom_field/lead/')
    const size = fields.json().data.find((f: { name: string }) => f.name === 'Size').id as string
    expect((await org.inOrder(`sort:-custom.${size}`)).keys).toEqual(['Anvil', 'Bolt', 'Crate'])
  })

  it('puts a date-only task at the start of its day in the caller’s zone', async () => {
    // At -10 the day of 1 January 2030 starts at 10:00 UTC, after Bolt's task at 09:00 UTC.
    expect((await org.inOrder('sort:next_task', { 'x-tz-offset': '-10' })).keys).toEqual(['Bolt', 'Anvil', 'Crate'])
  })

  it('refuses a sort by a custom field the organization does not have, at its column', async () => {
    const res = await call(ctx.app, org.org.member.key, 'GET', '/lead/', { query: { query: 'x sort:custom.Nope' } })
    expect(res.statusCode).toBe(400)
    expect(res.json()['field-errors'].query).toBe('Unknown custom field "Nope" (at column 8)')
  })
})

describe('pages walked in index order and pages sorted', () => {
  // A small page of many matches walks the sort index; a large page of few matches reads and sorts them. Both must
  // give the same order, nameless leads last and all.
  it.each([
    'sort:name',
    'sort:-name',
    'sort:created',
    'sort:-updated',
    'sort:name sort:-created',
    'has:contacts sort:-name',
    'sort:updated',
    'sort:status',
    'sort:-contact_name',
    'sort:last_activity sort:name',
  ])('%s pages one lead at a time in the order of the whole list', async (sort) => {
    const paged = await separateOrg(`Paged ${sort}`)
    for (const name of ['beta', 'alpha', 'Émile', null, 'Alpha', 'Zed', null, 'beta']) {
      const body = name === null ? { contacts: [{ name: 'Nameless' }] } : { name, contacts: [{ name: 'Someone' }] }
      await paged.lead(String(name), body)
      ctx.clock.advance(1000)
    }
    const list = async (params: Record<string, string>) => {
      const res = await call(ctx.app, paged.org.member.key, 'GET', '/lead/', { query: { query: sort, ...params } })
      expect(res.statusCode, res.body).toBe(200)
      return res.json()
    }
    const whole = (await list({})).data.map((l: { id: string }) => l.id)
    expect(whole).toHaveLength(8)
    const oneByOne: string[] = []
    for (let skip = 0; skip < 9; skip++) {
      const page = await list({ _limit: '1', _skip: String(skip) })
      expect(page.total_results).toBe(8)
      expect(page.has_more).toBe(skip < 7)
      oneByOne.push(...page.data.map((l: { id: string }) => l.id))
    }
    expect(oneByOne).toEqual(whole)
  })
})

describe('conditions on other rows, walked lead by lead and gathered whole', () => {
  // A page of one lead walks the sort index and tests each lead's own rows (a correlated lookup); the whole list
  // gathers the matching rows first. Both must find the same leads in the same order.
  it.each(['custom.Size>2 sort:-created', 'email:@ex.example sort:name', 'phone:555 custom.Size<9', 'country:FR'])(
    '%s',
    async (query) => {
      const org = await separateOrg(`Walked ${query}`)
      const size = (await org.post('/custom_field/lead/', { name: 'Size', type: 'number' })).id as string
      for (let i = 0; i < 12; i++) {
        await org.lead(`lead ${String(i)}`, {
          name: `Lead ${String((i * 7) % 12)}`,
          [`custom.${size}`]: i,
          addresses: [{ city: 'Paris', country: i % 4 === 0 ? 'DE' : 'FR' }],
          contacts: [
            {
              name: 'Someone',
              emails: [{ email: i % 3 === 0 ? `a${String(i)}@other.example` : `a${String(i)}@ex.example` }],
              phones: i % 5 === 0 ? [] : [{ phone: `+1 415 555 01${String(10 + i)}` }],
            },
          ],
        })
        ctx.clock.advance(1000)
      }
      const list = async (params: Record<string, string>) => {
        const res = await call(ctx.app, org.org.member.key, 'GET', '/lead/', { query: { query, ...params } })
        expect(res.statusCode, res.body).toBe(200)
        return res.json()
      }
      const whole = await list({})
      const ids = whole.data.map((l: { id: string }) => l.id)
      expect(ids.length).toBeGreaterThan(5)
      expect(ids.length).toBeLessThan(12)
      const oneByOne: string[] = []
      for (let skip = 0; skip < ids.length; skip++) {
        const page = await list({ _limit: '1', _skip: String(skip) })
        expect(page.total_results).toBe(ids.length)
        oneByOne.push(...page.data.map((l: { id: string }) => l.id))
      }
      expect(oneByOne).toEqual(ids)
    },
  )
})

describe('the wildcard', () => {
  it('* alone matches every lead, with a sort, a count and pages; -* none', async () => {
    const org = await separateOrg('Wildcard All Ltd')
    for (const key of ['first', 'second', 'third']) {
      await org.lead(key, { name: `${key} Co` })
      ctx.clock.advance(1000)
    }
    expect(await org.inOrder('* sort:created')).toEqual({ total: 3, keys: ['first', 'second', 'third'] })
    expect(await org.inOrder('sort:-created *')).toEqual({ total: 3, keys: ['third', 'second', 'first'] })
    expect(await org.found('*')).toEqual(['first', 'second', 'third'])
    expect(await org.found('* OR name:nobody')).toEqual(['first', 'second', 'third'])
    expect(await org.found('* name:second')).toEqual(['second'])
    expect(await org.found('-*')).toEqual([])
    expect(await org.found('NOT *')).toEqual([])
    const page = await call(ctx.app, org.org.member.key, 'GET', '/lead/', {
      query: { query: '* sort:name', _limit: '1', _skip: '1' },
    })
    expect(page.json()).toMatchObject({ has_more: true, total_results: 3 })
  })

  it('field:* matches a lead whose field has a value, of every kind of field; not field:* the others', async () => {
    const org = await separateOrg('Wildcard Fields Ltd')
    await org.post('/custom_field/lead/', { name: 'Source CRM', type: 'text' })
    await org.post('/custom_field/lead/', { name: 'Employees', type: 'number' })
    await org.post('/custom_field/lead/', { name: 'Renewal', type: 'date' })
    await org.post('/custom_field/lead/', { name: 'Met', type: 'datetime' })
    await org.post('/custom_field/lead/', { name: 'Kind', type: 'choices', choices: ['A', 'B'] })
    await org.post('/custom_field/lead/', {
      name: 'Tags',
      type: 'choices',
      choices: ['x', 'y'],
      accepts_multiple_values: true,
    })
    const full = await org.lead('full', {
      name: 'Full Co',
      description: 'Described',
      url: 'https://full.example.com',
      'custom.Source CRM': 'Salesforce',
      'custom.Employees': 0,
      'custom.Renewal': '2018-01-15',
      'custom.Met': '2018-01-15T10:00:00+00:00',
      'custom.Kind': 'A',
      'custom.Tags': ['x', 'y'],
      contacts: [{ name: 'Ann', emails: [{ email: 'ann@full.example.com' }], phones: [{ phone: '+1 415 555 0101' }] }],
      addresses: [{ label: 'business', city: 'Paris', zipcode: '75001', country: 'FR' }],
    })
    await org.lead('blank', {
      name: 'Blank Co',
      'custom.Source CRM': '',
      'custom.Tags': [],
      contacts: [{ emails: [{ email: 'nobody@blank.example.com' }] }],
      addresses: [{ label: 'mailing', address_1: '1 Main St' }],
    })
    await org.lead('nameless', { contacts: [{ name: 'Nameless Contact' }] })
    const opportunity = await call(ctx.app, org.org.admin.key, 'POST', '/opportunity/', { body: { lead_id: full.id } })
    expect(opportunity.statusCode, opportunity.body).toBe(200)
    const task = await call(ctx.app, org.org.admin.key, 'POST', '/task/', { body: { lead_id: full.id, text: 'Call' } })
    expect(task.statusCode, task.body).toBe(200)
    for (const [query, expected] of [
      ['name:*', ['blank', 'full']],
      ['company:*', ['blank', 'full']],
      ['-name:*', ['nameless']],
      ['not name:*', ['nameless']],
      ['name : *', ['blank', 'full']],
      ['description:*', ['full']],
      ['url:*', ['full']],
      ['"custom.Source CRM":*', ['full']],
      ['not "custom.Source CRM":*', ['blank', 'nameless']],
      ['custom.Employees:*', ['full']],
      ['custom.Renewal:*', ['full']],
      ['custom.Met:*', ['full']],
      ['custom.Kind:*', ['full']],
      ['custom.Tags:*', ['full']],
      ['-custom.Tags:*', ['blank', 'nameless']],
      ['contact_name:*', ['full', 'nameless']],
      ['email_address:*', ['blank', 'full']],
      ['email:*', ['blank', 'full']],
      ['phone:*', ['full']],
      ['city:*', ['full']],
      ['state:*', []],
      ['zipcode:*', ['full']],
      ['country:*', ['full']],
      ['address:*', ['blank', 'full']],
      ['contacts:*', ['blank', 'full', 'nameless']],
      ['opportunities:*', ['full']],
      ['tasks:*', ['full']],
      ['addresses:*', ['blank', 'full']],
      ['emails:*', ['blank', 'full']],
      ['phones:*', ['full']],
      ['activities:*', ['blank', 'full', 'nameless']],
      ['id:*', ['blank', 'full', 'nameless']],
      ['status:*', ['blank', 'full', 'nameless']],
      ['created:*', ['blank', 'full', 'nameless']],
      ['updated:*', ['blank', 'full', 'nameless']],
      ['name:* OR phone:*', ['blank', 'full']],
      ['(name:* -url:*)', ['blank']],
    ] as const) {
      expect(await org.found(query), query).toEqual(expected)
    }
  })

  it('is text when quoted or part of a word, and refused where a field is', async () => {
    const org = await separateOrg('Wildcard Text Ltd')
    await org.lead('star', { name: 'Star * Co' })
    await org.lead('plain', { name: 'Plain Co' })
    expect(await org.found('"*"')).toEqual(['star'])
    expect(await org.found('name:"*"')).toEqual(['star'])
    expect(await org.found('name:*')).toEqual(['plain', 'star'])
    expect(await org.found('name:*x')).toEqual([])
    for (const query of ['foo:*', 'custom.Nope:*', 'has:*', 'sort:*', 'created>*']) {
      const res = await search(query)
      expect(res.statusCode, `${query}: ${res.body}`).toBe(400)
      expect(res.json()['field-errors'].query).toMatch(/column \d+/)
    }
  })
})

describe('counted fields and sorts Close scripts use', () => {
  async function countedOrg(name: string) {
    const org = await separateOrg(name)
    const alpha = await org.lead('alpha', {
      name: 'Alpha Inc',
      contacts: [
        { name: 'A1', emails: [{ email: 'a1@alpha.example.com' }, { email: 'a1b@alpha.example.com' }] },
        { name: 'A2', emails: [{ email: 'a2@alpha.example.com' }], phones: [{ phone: '+1 415 555 0111' }] },
      ],
      addresses: [
        { label: 'business', city: 'Boston' },
        { label: 'mailing', city: 'Cambridge' },
      ],
    })
    ctx.clock.advance(1000)
    const beta = await org.lead('beta', {
      name: 'Beta LLC',
      contacts: [
        {
          name: 'B1',
          emails: [{ email: 'b1@beta.example.com' }],
          phones: [{ phone: '+1 415 555 0121' }, { phone: '+1 415 555 0122' }],
        },
      ],
      addresses: [{ label: 'business', city: 'Denver' }],
    })
    ctx.clock.advance(1000)
    await org.lead('gamma', { name: 'Gamma Ltd' })
    ctx.clock.advance(1000)
    await org.lead('delta', { name: 'Delta Ltd' })
    const note = async (leadId: string) => {
      const res = await call(ctx.app, org.org.admin.key, 'POST', '/activity/note/', {
        body: { lead_id: leadId, note: 'n' },
      })
      expect(res.statusCode, res.body).toBe(200)
    }
    // Every lead has its Created activity; alpha three notes more, beta one.
    for (const leadId of [alpha.id, alpha.id, alpha.id, beta.id]) await note(leadId)
    return org
  }

  it('counts addresses, email addresses and phone numbers across the lead’s contacts, and activities', async () => {
    const org = await countedOrg('Counted Fields Ltd')
    for (const [query, expected] of [
      ['addresses > 1', ['alpha']],
      ['addresses:1', ['beta']],
      ['addresses:0', ['delta', 'gamma']],
      ['addresses>=1', ['alpha', 'beta']],
      ['emails:3', ['alpha']],
      ['emails >= 1', ['alpha', 'beta']],
      ['email_addresses:1', ['beta']],
      ['phones > 1', ['beta']],
      ['phone_numbers:1', ['alpha']],
      ['phones:0', ['delta', 'gamma']],
      ['activities:1', ['delta', 'gamma']],
      ['activities > 1', ['alpha', 'beta']],
      ['activities>=4', ['alpha']],
      ['-activities<2', ['alpha', 'beta']],
      ['company:"Alpha Inc"', ['alpha']],
      ['company:llc', ['beta']],
      ['company:ltd -name:delta', ['gamma']],
    ] as const) {
      expect(await org.found(query), query).toEqual(expected)
    }
  })

  it('sorts by activities, ties by the next sort and then as every sort ends', async () => {
    const org = await countedOrg('Sorted Counts Ltd')
    expect((await org.inOrder('sort:-activities sort:name')).keys).toEqual(['alpha', 'beta', 'delta', 'gamma'])
    expect((await org.inOrder('sort:activities sort:-name')).keys).toEqual(['gamma', 'delta', 'beta', 'alpha'])
    expect((await org.inOrder('sort:-activities sort:created')).keys).toEqual(['alpha', 'beta', 'gamma', 'delta'])
    expect((await org.inOrder('ltd sort:-activities sort:-created')).keys).toEqual(['delta', 'gamma'])
    expect((await org.inOrder('sort:-emails')).keys.slice(0, 2)).toEqual(['alpha', 'beta'])
    expect((await org.inOrder('sort:-phones sort:name')).keys).toEqual(['beta', 'alpha', 'delta', 'gamma'])
    expect((await org.inOrder('sort:-addresses sort:name')).keys).toEqual(['alpha', 'beta', 'delta', 'gamma'])
    expect((await org.inOrder('* sort:-activities sort:name')).keys).toEqual(['alpha', 'beta', 'delta', 'gamma'])
  })

  it('pages a sort by activities one lead at a time in the order of the whole list', async () => {
    const org = await countedOrg('Paged Counts Ltd')
    const list = async (params: Record<string, string>) => {
      const res = await call(ctx.app, org.org.member.key, 'GET', '/lead/', {
        query: { query: 'sort:-activities', ...params },
      })
      expect(res.statusCode, res.body).toBe(200)
      return res.json()
    }
    const whole = (await list({})).data.map((l: { id: string }) => l.id)
    expect(whole).toHaveLength(4)
    const oneByOne: string[] = []
    for (let skip = 0; skip < 4; skip++) {
      const page = await list({ _limit: '1', _skip: String(skip) })
      expect(page.total_results).toBe(4)
      oneByOne.push(...page.data.map((l: { id: string }) => l.id))
    }
    expect(oneByOne).toEqual(whole)
  })
})
