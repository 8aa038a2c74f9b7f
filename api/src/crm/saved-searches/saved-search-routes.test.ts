import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SavedSearch } from '@leadline/shared/saved-search-schema'
import { provisionMember } from '../organizations/provision.js'
import { call, createTestContext, type TestContext } from '../../tooling/test-support/test-app.js'

let ctx: TestContext
/** A second plain user of the organization. */
let other: { id: string; key: string }

beforeAll(async () => {
  ctx = await createTestContext()
  const member = await provisionMember(ctx.database.db, ctx.clock, {
    organizationId: ctx.org.id,
    email: 'second-rep@example.com',
    role: 'user',
    firstName: 'Sky',
    lastName: 'Second',
  })
  other = { id: member.user_id, key: member.api_key }
})
afterAll(async () => {
  await ctx.close()
})

const admin = () => ctx.org.admin.key
const rep = () => ctx.org.member.key

async function create(body: Record<string, unknown>, key = rep()): Promise<SavedSearch> {
  const res = await call(ctx.app, key, 'POST', '/saved_search/', { body })
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

async function names(key: string, query: Record<string, string> = {}): Promise<string[]> {
  const res = await call(ctx.app, key, 'GET', '/saved_search/', { query })
  expect(res.statusCode, res.body).toBe(200)
  return res.json<{ data: SavedSearch[] }>().data.map((v) => v.name)
}

async function stored(): Promise<unknown[]> {
  return ctx.database.db.selectFrom('saved_search').selectAll().orderBy('id').execute()
}

describe('Smart Views', () => {
  it('a user creates one of their own, in Close’s shape, ignoring read-only fields', async () => {
    const made = await create({
      name: '  Hot leads ',
      query: 'status:"Potential" sort:-date_updated',
      selected_fields: [{ id: 'name' }, { id: 'status' }],
      id: 'save_mine',
      organization_id: ctx.other.id,
      user_id: ctx.org.admin.id,
    })
    expect(made).toEqual({
      id: expect.stringMatching(/^save_[0-9A-Za-z]{43}$/),
      organization_id: ctx.org.id,
      user_id: ctx.org.member.id,
      name: 'Hot leads',
      description: null,
      type: 'lead',
      query: 'status:"Potential" sort:-date_updated',
      s_query: null,
      selected_fields: [{ id: 'name' }, { id: 'status' }],
      is_shared: false,
      shared_with: [],
      is_user_dependent: false,
      created_by: ctx.org.member.id,
      updated_by: ctx.org.member.id,
      date_created: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/),
      date_updated: made.date_created,
    })
    const got = await call(ctx.app, rep(), 'GET', `/saved_search/${made.id}/`)
    expect(got.json()).toEqual(made)
    await call(ctx.app, rep(), 'DELETE', `/saved_search/${made.id}/`)
  })

  it('private views are their user’s alone; shared ones everyone’s, listed by name', async () => {
    const mine = await create({ name: 'B mine' })
    const shared = await create({ name: 'A shared', is_shared: true })
    const theirs = await create({ name: 'C theirs' }, other.key)
    expect(await names(rep())).toEqual(['A shared', 'B mine'])
    expect(await names(other.key)).toEqual(['A shared', 'C theirs'])
    // An admin sees the shared views and their own, not a rep's private ones.
    expect(await names(admin())).toEqual(['A shared'])
    for (const key of [other.key, admin()]) {
      const res = await call(ctx.app, key, 'GET', `/saved_search/${mine.id}/`)
      expect(res.statusCode).toBe(404)
      expect(res.json()).toEqual({ error: 'Smart View not found.' })
    }
    const seen = await call(ctx.app, other.key, 'GET', `/saved_search/${shared.id}/`)
    expect(seen.json<SavedSearch>()).toMatchObject({ is_shared: true, shared_with: [ctx.org.id] })
    // Another organization sees none of them.
    expect(await names(ctx.other.member.key)).toEqual([])
    expect((await call(ctx.app, ctx.other.admin.key, 'GET', `/saved_search/${shared.id}/`)).statusCode).toBe(404)
    for (const v of [mine, shared, theirs]) {
      const key = v === theirs ? other.key : rep()
      expect((await call(ctx.app, key, 'DELETE', `/saved_search/${v.id}/`)).statusCode).toBe(200)
    }
  })

  it('sharing: the user shares and unshares their own; a shared one is changed by its user or an admin only', async () => {
    const view = await create({ name: 'Pipeline review' })
    const shared = await call(ctx.app, rep(), 'PUT', `/saved_search/${view.id}/`, { body: { is_shared: true } })
    expect(shared.json<SavedSearch>().is_shared).toBe(true)
    expect(await names(other.key)).toContain('Pipeline review')

    const before = await stored()
    const refused = await call(ctx.app, other.key, 'PUT', `/saved_search/${view.id}/`, { body: { name: 'Mine now' } })
    expect(refused.statusCode).toBe(403)
    expect((await call(ctx.app, other.key, 'DELETE', `/saved_search/${view.id}/`)).statusCode).toBe(403)
    expect(await stored()).toEqual(before)

    const renamed = await call(ctx.app, admin(), 'PUT', `/saved_search/${view.id}/`, {
      body: { name: 'Weekly review' },
    })
    expect(renamed.json<SavedSearch>()).toMatchObject({
      name: 'Weekly review',
      user_id: ctx.org.member.id,
      updated_by: ctx.org.admin.id,
    })
    // Close's form: shared_with [] unshares; the view is its user's alone again.
    const unshared = await call(ctx.app, rep(), 'PUT', `/saved_search/${view.id}/`, { body: { shared_with: [] } })
    expect(unshared.json<SavedSearch>()).toMatchObject({ is_shared: false, shared_with: [] })
    expect(await names(other.key)).not.toContain('Weekly review')
    expect((await call(ctx.app, other.key, 'PUT', `/saved_search/${view.id}/`, { body: {} })).statusCode).toBe(404)
    const withOrg = await call(ctx.app, rep(), 'PUT', `/saved_search/${view.id}/`, {
      body: { shared_with: [ctx.org.id] },
    })
    expect(withOrg.json<SavedSearch>().is_shared).toBe(true)
    expect((await call(ctx.app, admin(), 'DELETE', `/saved_search/${view.id}/`)).statusCode).toBe(200)
    expect((await call(ctx.app, rep(), 'GET', `/saved_search/${view.id}/`)).statusCode).toBe(404)
  })

  it('type and type__in filter the list; lead is the default; Close’s other kinds list nothing', async () => {
    const leads = await create({ name: 'Leads view' })
    const contacts = await create({ name: 'Contacts view', type: 'contact' })
    expect(await names(rep())).toEqual(['Leads view'])
    expect(await names(rep(), { type: 'contact' })).toEqual(['Contacts view'])
    expect(await names(rep(), { type__in: 'lead,contact' })).toEqual(['Contacts view', 'Leads view'])
    expect(await names(rep(), { type: 'opportunity' })).toEqual([])
    const bad = await call(ctx.app, rep(), 'GET', '/saved_search/', { query: { type__in: 'lead,widget' } })
    expect(bad.statusCode).toBe(400)
    expect(bad.json()['field-errors']).toHaveProperty('type__in')
    const page = await call(ctx.app, rep(), 'GET', '/saved_search/', {
      query: { type__in: 'lead,contact', _limit: '1' },
    })
    expect(page.json()).toMatchObject({ has_more: true, data: [{ name: 'Contacts view' }] })
    for (const v of [leads, contacts]) await call(ctx.app, rep(), 'DELETE', `/saved_search/${v.id}/`)
  })

  it('s_query: its object_type clause is taken and sets type; anything else is a clear 400', async () => {
    const made = await create({
      name: 'People',
      s_query: { query: { type: 'and', queries: [{ type: 'object_type', object_type: 'contact' }] }, sort: [] },
    })
    expect(made).toMatchObject({
      type: 'contact',
      s_query: { query: { type: 'and', queries: [{ type: 'object_type', object_type: 'contact' }] }, sort: [] },
    })
    const before = await stored()
    const refusals: [Record<string, unknown>, string][] = [
      [{ name: 'x', s_query: { query: { type: 'text', value: 'acme' } } }, 's_query'],
      [
        {
          name: 'x',
          s_query: {
            query: {
              type: 'and',
              queries: [
                { type: 'object_type', object_type: 'lead' },
                { type: 'field_condition', field: { type: 'regular_field', field_name: 'name' } },
              ],
            },
          },
        },
        's_query',
      ],
      [{ name: 'x', s_query: { query: { type: 'object_type', object_type: 'opportunity' } } }, 's_query'],
      [{ name: 'x', s_query: { query: { type: 'object_type', object_type: 'lead' }, sort: [{ x: 1 }] } }, 's_query'],
      [{ name: 'x', type: 'lead', s_query: { query: { type: 'object_type', object_type: 'contact' } } }, 's_query'],
      [{ name: 'x', type: 'call' }, 'type'],
      [{ name: 'x', s_query: { query: JSON.parse('{"a":'.repeat(3000) + '1' + '}'.repeat(3000)) } }, 's_query'],
      [{ name: '   ' }, 'name'],
      [{ name: 'x'.repeat(256) }, 'name'],
      [{ name: 'x', query: 'status:(' }, 'query'],
      [{ name: 'x', query: 'custom.Nope:1' }, 'query'],
      [{ name: 'x', query: 'sort:custom.Nope' }, 'query'],
      [{ name: 'x', query: 'acme sort:-color' }, 'query'],
      [{ name: 'x', shared_with: ['orga_someoneelse'] }, 'shared_with'],
      [{ name: 'x', is_shared: false, shared_with: [ctx.org.id] }, 'shared_with'],
      [{ name: 'x', selected_fields: [{ id: '' }] }, 'selected_fields.0.id'],
      [
        { name: 'x', selected_fields: Array.from({ length: 51 }, (_, i) => ({ id: `f${String(i)}` })) },
        'selected_fields',
      ],
    ]
    for (const [body, field] of refusals) {
      const res = await call(ctx.app, rep(), 'POST', '/saved_search/', { body })
      expect(res.statusCode, JSON.stringify(body)).toBe(400)
      const answer = res.json<{ 'field-errors'?: Record<string, string>; errors?: string[] }>()
      expect(JSON.stringify(answer), JSON.stringify(body)).toContain(field)
    }
    // A bad change leaves the view as it was.
    const res = await call(ctx.app, rep(), 'PUT', `/saved_search/${made.id}/`, {
      body: { name: 'Renamed', query: 'name:(' },
    })
    expect(res.statusCode).toBe(400)
    expect(await stored()).toEqual(before)
    await call(ctx.app, rep(), 'DELETE', `/saved_search/${made.id}/`)
  })

  it('a blank query is all leads (null); a view’s query runs as GET /lead/ runs it', async () => {
    const all = await create({ name: 'Everything', query: '  ' })
    expect(all.query).toBeNull()
    await call(ctx.app, rep(), 'POST', '/lead/', { body: { name: 'Saved Search Acme' } })
    const view = await create({ name: 'Acme', query: 'name:"Saved Search Acme"' })
    const leads = await call(ctx.app, rep(), 'GET', '/lead/', { query: { query: view.query ?? '' } })
    expect(leads.json<{ data: { display_name: string }[] }>().data.map((l) => l.display_name)).toEqual([
      'Saved Search Acme',
    ])
    for (const v of [all, view]) await call(ctx.app, rep(), 'DELETE', `/saved_search/${v.id}/`)
  })
})
