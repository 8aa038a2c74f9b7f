import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, createTestContext, type TestContext } from '../test-support/test-app.js'

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
    [`custom.${employeesField}`]: 5000,
    [`custom.${renewalField}`]: '2018-01-15',
    contacts: [{ name: 'Bruce Wayne', emails: [{ email: 'bruce@wayneenterprises.com' }] }],
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

async function found(query: string): Promise<string[]> {
  const res = await search(query)
  expect(res.statusCode, res.body).toBe(200)
  const body = res.json()
  expect(body.total_results).toBe(body.data.length)
  const byId = new Map(Object.entries(ids).map(([k, v]) => [v, k]))
  return body.data.map((l: { id: string }) => byId.get(l.id) ?? l.id).sort()
}

describe('queries real clients send', () => {
  it.each([
    ['name:"John Wehr"', ['wehr']],
    ['name:John Wehr ', ['wehr']],
    ['"custom.Lead initials":JW ', ['wehr']],
    ['status:qualified or status:customer', ['wayne', 'wehr']],
    ['email_address:bruce@wayneenterprises.com', ['wayne']],
    ['custom.my_field:"some value" status:"Potential" sort:updated', ['potential']],
    ['date_updated>="2017-09-29T10:40" sort:date_updated', ['bare', 'potential', 'wayne']],
  ])('%s', async (query, expected) => {
    expect(await found(query)).toEqual(expected)
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
