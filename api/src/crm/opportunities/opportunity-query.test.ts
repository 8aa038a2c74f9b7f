import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { provisionMember } from '../organizations/provision.js'
import { call, createTestContext, type TestContext, type TestOrg } from '../../tooling/test-support/test-app.js'

// `query` and `lead_query` of GET /opportunity/, over HTTP. Four opportunities on two leads, made at set times:
//   o1  lead Bluth,   Demo → Won (by the rep, 2026-03-05 02:00 UTC), 15,000.00 annual, 90 %, owner Rey Rep
//   o2  lead Bluth,   Active,                                                 50.00 once, 20 %, owner Ada Admin
//   o3  lead Sitwell, Renewals: Due → Churned (2026-02-20),               no value monthly, 50 %, owner nameless
//   o4  lead Sitwell, Demo (made 2026-02-01),                               100.00 once, 49 %, owner Ada Admin
// The list is read at 2026-03-10 12:00 UTC.

let ctx: TestContext
let org: TestOrg
const label = new Map<string, string>()
const ids: Record<string, string> = {}

async function ok(key: string, method: 'POST' | 'PUT' | 'GET', path: string, body?: unknown) {
  const res = await call(ctx.app, key, method, path, body === undefined ? {} : { body })
  expect(res.statusCode, res.body).toBeLessThan(300)
  return res.json<Record<string, unknown> & { id: string }>()
}

function statusId(statuses: unknown, wanted: string): string {
  const found = (statuses as { id: string; label: string }[]).find((s) => s.label === wanted)
  if (found === undefined) throw new Error(`no status ${wanted}`)
  return found.id
}

beforeAll(async () => {
  ctx = await createTestContext()
  org = await ctx.createOrg('Query Co')
  const admin = org.admin.key
  ctx.clock.set(new Date('2026-01-10T12:00:00Z'))
  const nameless = await provisionMember(ctx.database.db, ctx.clock, {
    organizationId: org.id,
    email: 'Nameless.Owner@example.com',
    role: 'user',
  })
  ids.nameless = nameless.user_id
  const region = await ok(admin, 'POST', '/custom_field/lead/', { name: 'Region', type: 'text' })
  const bluth = await ok(admin, 'POST', '/lead/', { name: 'Bluth Company', [`custom.${region.id}`]: 'West coast' })
  const sitwell = await ok(admin, 'POST', '/lead/', { name: 'Sitwell Enterprises', [`custom.${region.id}`]: 'East' })
  ids.bluth = bluth.id
  ids.sitwell = sitwell.id
  const contact = await ok(admin, 'POST', '/contact/', { lead_id: bluth.id, name: 'Gob Bluth' })
  ids.contact = contact.id

  const pipelines = (await ok(admin, 'GET', '/pipeline/')).data as { id: string; name: string; statuses: unknown }[]
  const main = pipelines[0]
  if (main === undefined) throw new Error('no default pipeline')
  ids.mainPipeline = main.id
  ids.mainPipelineName = main.name
  const demo = await ok(admin, 'POST', '/status/opportunity/', { label: 'Demo', pipeline_id: main.id })
  ids.demo = demo.id
  ids.active = statusId(main.statuses, 'Active')
  ids.won = statusId(main.statuses, 'Won')
  const renewals = await ok(admin, 'POST', '/pipeline/', {
    name: 'Renewals',
    statuses: [{ label: 'Due' }, { label: 'Churned', type: 'lost' }],
  })
  ids.renewals = renewals.id
  ids.due = statusId(renewals.statuses, 'Due')
  ids.churned = statusId(renewals.statuses, 'Churned')

  const create = async (name: string, body: Record<string, unknown>) => {
    const opp = await ok(admin, 'POST', '/opportunity/', body)
    label.set(opp.id, name)
    ids[name] = opp.id
  }
  await create('o1', {
    lead_id: bluth.id,
    status_id: ids.demo,
    note: 'Renewal for 2026, 100% sure',
    value: 1_500_000,
    value_period: 'annual',
    confidence: 90,
    user_id: org.member.id,
  })
  await create('o2', {
    lead_id: bluth.id,
    contact_id: contact.id,
    status_id: ids.active,
    note: 'New business',
    value: 5000,
    value_period: 'one_time',
    confidence: 20,
    date_won: '2026-02-15',
    user_id: org.admin.id,
  })
  await create('o3', {
    lead_id: sitwell.id,
    status_id: ids.due,
    note: 'renewal upsell 50%_off',
    value: null,
    value_period: 'monthly',
    confidence: 50,
    user_id: nameless.user_id,
  })
  ctx.clock.set(new Date('2026-02-01T12:00:00Z'))
  await create('o4', {
    lead_id: sitwell.id,
    status_id: ids.demo,
    note: '',
    value: 10_000,
    value_period: 'one_time',
    confidence: 49,
    user_id: org.admin.id,
  })
  ctx.clock.set(new Date('2026-02-20T12:00:00Z'))
  await ok(admin, 'PUT', `/opportunity/${ids.o3 ?? ''}/`, { status_id: ids.churned })
  ctx.clock.set(new Date('2026-03-05T02:00:00Z'))
  await ok(org.member.key, 'PUT', `/opportunity/${ids.o1 ?? ''}/`, { status_id: ids.won, date_won: '2026-03-04' })
  ctx.clock.set(new Date('2026-03-10T12:00:00Z'))
})

afterAll(async () => {
  await ctx.close()
})

function id(name: string): string {
  const found = ids[name]
  if (found === undefined) throw new Error(`no id ${name}`)
  return found
}

async function list(query: Record<string, string>, headers: Record<string, string> = {}) {
  const res = await call(ctx.app, org.member.key, 'GET', '/opportunity/', { query, headers })
  expect(res.statusCode, res.body).toBe(200)
  return res.json<Record<string, unknown> & { data: { id: string }[] }>()
}

async function found(query: Record<string, string>, headers: Record<string, string> = {}): Promise<string[]> {
  const body = await list(query, headers)
  return body.data.map((o) => label.get(o.id) ?? o.id).sort()
}

describe('query', () => {
  const cases: [string, () => string, string[]][] = [
    ['free text on the note, ignoring case', () => 'RENEWAL', ['o1', 'o3']],
    ['note:', () => 'note:business', ['o2']],
    ['% and _ are literal', () => 'note:_', ['o3']],
    ['a quoted phrase with %', () => '"100%"', ['o1']],
    ['value>=', () => 'value>=10000', ['o1', 'o4']],
    ['value>', () => 'value>10000', ['o1']],
    ['value:', () => 'value:5000', ['o2']],
    ['value<', () => 'value<10000', ['o2']],
    ['value<=', () => 'value<=10000', ['o2', 'o4']],
    ['a value past any stored one', () => 'value<99999999999999999999999', ['o1', 'o2', 'o4']],
    ['confidence<', () => 'confidence<50', ['o2', 'o4']],
    ['confidence>=', () => 'confidence>=50', ['o1', 'o3']],
    ['confidence:', () => 'confidence:90', ['o1']],
    ['confidence>', () => 'confidence>90', []],
    ['confidence<=', () => 'confidence<=20', ['o2']],
    ['confidence past int4', () => 'confidence>-99999999999', ['o1', 'o2', 'o3', 'o4']],
    ['status_type:won', () => 'status_type:won', ['o1']],
    ['status_type:lost', () => 'status_type:lost', ['o3']],
    ['status_type: ignores case', () => 'status_type:ACTIVE', ['o2', 'o4']],
    ['status: by label, ignoring case', () => 'status:demo', ['o4']],
    ['status: by id', () => `status:${id('won')}`, ['o1']],
    ['status_label:', () => 'status_label:"CHURNED"', ['o3']],
    ['status_id:', () => `status_id:${id('active')}`, ['o2']],
    ['pipeline: by name', () => 'pipeline:renewals', ['o3']],
    ['pipeline: by id', () => `pipeline:${id('mainPipeline')}`, ['o1', 'o2', 'o4']],
    ['pipeline: by a quoted name', () => `pipeline:"${id('mainPipelineName').toUpperCase()}"`, ['o1', 'o2', 'o4']],
    ['pipeline_id:', () => `pipeline_id:${id('renewals')}`, ['o3']],
    ['value_period:', () => 'value_period:monthly', ['o3']],
    ['value_period: one_time', () => 'value_period:one_time', ['o2', 'o4']],
    ['user: display name', () => 'user:"rey rep"', ['o1']],
    ['user: only a whole name', () => 'user:Rey', []],
    ['user: the email of a nameless member', () => 'user:nameless.owner@example.com', ['o3']],
    ['user: an id', () => `user:${org.admin.id}`, ['o2', 'o4']],
    ['user_id:', () => `user_id:${org.member.id}`, ['o1']],
    ['date_won: a day', () => 'date_won:2026-03-04', ['o1']],
    ['date_won: a relative period', () => 'date_won:"last month"', ['o2']],
    ['date_won>', () => 'date_won>"last month"', ['o1']],
    ['date_won>=', () => 'date_won>=2026-02-16', ['o1']],
    ['date_won<=', () => 'date_won<=2026-02-15', ['o2']],
    ['date_won<', () => 'date_won<2026-02-15', []],
    ['created:', () => 'created:2026-02-01', ['o4']],
    ['created<', () => 'created<2026-02-01', ['o1', 'o2', 'o3']],
    ['date_created> a relative date', () => 'date_created>"50 days ago"', ['o4']],
    ['updated>=', () => 'updated>=2026-02-20', ['o1', 'o3']],
    ['date_updated<=', () => 'date_updated<="2026-02-01T12:00"', ['o2', 'o4']],
    ['lead_id:', () => `lead_id:${id('sitwell')}`, ['o3', 'o4']],
    ['contact_id:', () => `contact_id:${id('contact')}`, ['o2']],
    ['id:', () => `id:${id('o4')}`, ['o4']],
    ['AND by juxtaposition', () => 'renewal value>=10000', ['o1']],
    ['OR', () => 'renewal OR status:demo', ['o1', 'o3', 'o4']],
    ['- negates', () => '-renewal', ['o2', 'o4']],
    ['NOT and AND', () => 'NOT renewal AND confidence<30', ['o2']],
    ['parentheses', () => '(status_type:won OR status_type:lost) confidence>50', ['o1']],
    ['an empty query', () => '  ', ['o1', 'o2', 'o3', 'o4']],
    ['status_change old and new', () => 'status_change(old_status:"Demo" new_status:"Won")', ['o1']],
    ['status_change by a status id', () => `status_change(new_status:${id('churned')})`, ['o3']],
    ['status_change: the first status counts', () => 'status_change(new_status:demo)', ['o1', 'o4']],
    ['status_change by types', () => 'status_change(old_status_type:active new_status_type:lost)', ['o3']],
    ['status_change of any kind', () => 'status_change()', ['o1', 'o2', 'o3', 'o4']],
    ['status_change after a relative date', () => 'status_change(date>"30 days ago")', ['o1', 'o3']],
    ['status_change new status and date', () => 'status_change(new_status:won date>"30 days ago")', ['o1']],
    ['status_change negated', () => '-status_change(old_status:demo)', ['o2', 'o3', 'o4']],
    ['status_change OR inside', () => 'status_change(new_status:won OR new_status:churned)', ['o1', 'o3']],
    ['status_change by whom', () => 'status_change(user:"Rey Rep")', ['o1']],
    ['status_change with another term', () => 'status_change(new_status:demo) value<50000', ['o4']],
  ]
  it.each(cases)('%s', async (_name, query, expected) => {
    expect(await found({ query: query() })).toEqual(expected)
  })

  it('reads status_change dates in the caller’s time zone (X-TZ-Offset)', async () => {
    // o1 was won at 2026-03-05 02:00 UTC: 4 March at UTC-5, 5 March in UTC. The list is read on 10 March.
    const on = (day: string, offset: string) =>
      found({ query: `status_change(new_status:won date:"${day}")` }, { 'x-tz-offset': offset })
    expect(await on('2026-03-04', '-5')).toEqual(['o1'])
    expect(await on('2026-03-04', '0')).toEqual([])
    expect(await on('6 days ago', '-5')).toEqual(['o1'])
    expect(await on('6 days ago', '0')).toEqual([])
    expect(await on('5 days ago', '0')).toEqual(['o1'])
  })

  it('restricts the aggregates and groups as well as the page', async () => {
    const body = await list({ query: 'value>=10000', _limit: '1', _group_by: 'user_id' })
    expect(body).toMatchObject({
      has_more: true,
      total_results: 2,
      count_by_value_period: { one_time: 1, monthly: 0, annual: 1 },
      total_value_annual: 1_500_000,
      total_value_one_time: 10_000,
      total_value_annualized: 1_510_000,
    })
    const all = await list({ query: 'value>=10000', _group_by: 'user_id' })
    const groups = all.data as unknown as { user_id: string; total_results: number }[]
    expect(groups.map((g) => [g.user_id, g.total_results]).sort()).toEqual(
      [
        [org.admin.id, 1],
        [org.member.id, 1],
      ].sort(),
    )
  })

  it('combines with the other filters', async () => {
    expect(await found({ query: 'renewal', lead_id: id('bluth') })).toEqual(['o1'])
    expect(await found({ query: 'value>=10000', status_type: 'active' })).toEqual(['o4'])
  })

  it('sees only the caller’s organization', async () => {
    const res = await call(ctx.app, ctx.other.admin.key, 'GET', '/opportunity/', { query: { query: 'renewal' } })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({ total_results: 0, data: [] })
  })
})

describe('lead_query', () => {
  it('chooses opportunities by their lead: a lead field', async () => {
    expect(await found({ lead_query: 'name:bluth' })).toEqual(['o1', 'o2'])
  })

  it('chooses opportunities by their lead: a custom field', async () => {
    expect(await found({ lead_query: 'custom.Region:east' })).toEqual(['o3', 'o4'])
  })

  it('combines with filters and with query', async () => {
    expect(await found({ lead_query: 'name:bluth', status_type: 'won' })).toEqual(['o1'])
    expect(await found({ lead_query: 'custom.region:coast', query: 'confidence<50' })).toEqual(['o2'])
    expect(await found({ lead_query: 'name:sitwell OR name:bluth', query: 'status_type:lost' })).toEqual(['o3'])
  })

  it('restricts the aggregates', async () => {
    const body = await list({ lead_query: 'name:sitwell' })
    expect(body).toMatchObject({ total_results: 2, total_value_one_time: 10_000, total_value_monthly: 0 })
  })

  it('with no terms restricts nothing', async () => {
    expect(await found({ lead_query: '' })).toEqual(['o1', 'o2', 'o3', 'o4'])
  })
})

describe('_params of a POST with X-HTTP-Method-Override: GET', () => {
  it('carries query and lead_query', async () => {
    const res = await call(ctx.app, org.member.key, 'POST', '/opportunity/', {
      headers: { 'x-http-method-override': 'GET' },
      body: { _params: { query: 'status_type:won OR status_type:active', lead_query: 'name:sitwell' } },
    })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json<{ data: { id: string }[] }>().data.map((o) => label.get(o.id))).toEqual(['o4'])
  })

  it('answers their errors like a query string', async () => {
    const res = await call(ctx.app, org.member.key, 'POST', '/opportunity/', {
      headers: { 'x-http-method-override': 'GET' },
      body: { _params: { query: 'colour:red' } },
    })
    expect(res.statusCode).toBe(400)
    expect(Object.keys(res.json()['field-errors'])).toEqual(['query'])
  })
})

describe('errors', () => {
  async function fieldErrors(query: Record<string, string>): Promise<Record<string, string>> {
    const res = await call(ctx.app, org.member.key, 'GET', '/opportunity/', { query })
    expect(res.statusCode, res.body).toBe(400)
    const body = res.json<{ errors: unknown[]; 'field-errors': Record<string, string> }>()
    expect(body.errors).toEqual([])
    return body['field-errors']
  }

  it.each([
    ['an unknown field', 'renewal colour:red', /^Unknown field "colour" at column 9: search note, value, /],
    ['a bad number', 'value>=abc', /^Invalid number "abc" for value at column 1: expected a whole number/],
    ['a fractional number', 'confidence<50.5', /^Invalid number "50.5" for confidence at column 1/],
    ['an unbalanced parenthesis', '(renewal OR note:x', /^Unexpected end of query at column 19: expected "\)"/],
    ['a closing parenthesis too many', 'renewal)', /^Unexpected "\)" at column 8/],
    ['a bad date', 'date_won>2026-02-30', /^Invalid date "2026-02-30" at column 1: there is no such day/],
    ['an unrecognised date', 'created:someday', /^Unrecognised date "someday" at column 1: use YYYY-MM-DD/],
    ['a time of day for date_won', 'date_won:"2026-03-04T10:00"', /^Unexpected time of day .* at column 1/],
    ['a date out of range', 'created>"9999999 years ago"', /^Date out of range .* at column 1/],
    [
      'an unknown status type',
      'status_type:pending',
      /^Unknown status_type "pending" at column 1: use active, won or lost/,
    ],
    ['an unknown value period', 'value_period:weekly', /^Unknown value_period "weekly" at column 1/],
    ['a comparison of a text field', 'note>a', /^Unexpected ">" after note at column 1/],
    ['an unknown function', 'lead_change(x:y)', /^Unknown search "lead_change\(…\)" at column 1/],
    [
      'an unknown field in status_change',
      'status_change(status:won)',
      /^Unknown field "status" in status_change\(…\) at column 15/,
    ],
    ['free text in status_change', 'status_change(won)', /^Unexpected word "won" in status_change\(…\) at column 15/],
    ['a nested status_change', 'status_change(status_change())', /^Unexpected status_change\(…\) in status_change/],
    [
      'an unterminated status_change',
      'status_change(new_status:won',
      /^Unexpected end of query at column 29: expected "\)"/,
    ],
    ['an unterminated quote', 'note:"renew', /^Unterminated quoted string at column 6/],
    [
      'too deep a nesting',
      `${'('.repeat(40)}x${')'.repeat(40)}`,
      /^Query nested too deeply at column 33: use at most 32/,
    ],
    ['thousands of parentheses', '('.repeat(3_900), /^(Query nested too deeply|Unexpected end of query)/],
    ['too many terms', Array.from({ length: 201 }, () => 'x').join(' '), /^Too many search terms at column 401/],
  ])('%s names query and the column', async (_name, query, message) => {
    const errors = await fieldErrors({ query })
    expect(Object.keys(errors)).toEqual(['query'])
    expect(errors.query).toMatch(message)
  })

  it.each([
    ['an unknown field', 'colour:red', /^Unknown field "colour" at column 1/],
    ['an unbalanced parenthesis', 'name:a (b', /^Unexpected end of query at column 10: expected "\)"/],
    ['a bad date', 'created:2026-02-30', /^Invalid date "2026-02-30" at column 1/],
    ['an unknown custom field', 'custom.Nope:x', /^Unknown custom field "Nope" \(at column 1\)/],
    ['a sort', 'name:a sort:name', /^Unexpected sort: .*\(at column 13\)$/],
  ])('%s in lead_query names lead_query', async (_name, leadQuery, message) => {
    const errors = await fieldErrors({ lead_query: leadQuery })
    expect(Object.keys(errors)).toEqual(['lead_query'])
    expect(errors.lead_query).toMatch(message)
  })

  it('names both parameters when both are wrong', async () => {
    const errors = await fieldErrors({ query: 'value>=abc', lead_query: 'colour:red' })
    expect(Object.keys(errors).sort()).toEqual(['lead_query', 'query'])
  })

  it('refuses a search longer than a lead search may be, at once, naming the parameter', async () => {
    for (const name of ['query', 'lead_query']) {
      const started = Date.now()
      const errors = await fieldErrors({ [name]: 'x'.repeat(1_000_000) })
      expect(Date.now() - started).toBeLessThan(1000)
      expect(errors).toEqual({ [name]: 'Ensure this field has no more than 4000 characters.' })
    }
  })

  it('never answers 500, whatever the query', async () => {
    const pieces = fc.constantFrom(
      ' ',
      '(',
      ')',
      '"',
      '\\',
      ':',
      '>',
      '>=',
      '<',
      '-',
      'or',
      'AND',
      'not',
      'status_change(',
      'value',
      'confidence',
      'note',
      'status',
      'user',
      'date_won',
      'created',
      'old_status',
      'new_status',
      'date',
      '12',
      '-7',
      '99999999999999999999',
      '2026-02-30',
      '"30 days ago"',
      'won',
      '%',
      '_',
      'é',
      'İ',
    )
    const text = fc.oneof(
      fc.array(pieces, { maxLength: 12 }).map((parts) => parts.join('')),
      fc.string({ maxLength: 30 }),
    )
    await fc.assert(
      fc.asyncProperty(text, fc.boolean(), async (query, asLeadQuery) => {
        const param = asLeadQuery ? 'lead_query' : 'query'
        const res = await call(ctx.app, org.member.key, 'GET', '/opportunity/', { query: { [param]: query } })
        expect([200, 400], res.body).toContain(res.statusCode)
        if (res.statusCode === 400) {
          const body = res.json<Record<string, unknown>>()
          expect(body.errors).toEqual([])
          expect(Object.keys(body['field-errors'] as object)).toEqual([param])
        }
      }),
      { numRuns: 150 },
    )
  })
})
