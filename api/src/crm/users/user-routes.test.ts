import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../../app/app.js'
import { openDatabase } from '../../platform/data/database.js'
import { provisionMember } from '../organizations/provision.js'
import { call, createTestContext, type TestContext } from '../../tooling/test-support/test-app.js'

let ctx: TestContext
beforeAll(async () => {
  ctx = await createTestContext()
})
afterAll(async () => {
  await ctx.close()
})

describe('GET /me/', () => {
  it('returns the key owner with their organization, memberships and SIP credentials', async () => {
    const res = await call(ctx.app, ctx.org.admin.key, 'GET', '/me/')
    expect(res.statusCode).toBe(200)
    const me = res.json()
    expect(me.id).toBe(ctx.org.admin.id)
    expect(me.first_name).toBe('Ada')
    expect(me.organizations).toHaveLength(1)
    expect(me.organizations[0].id).toBe(ctx.org.id)
    expect(me.organizations[0].lead_statuses.map((s: { label: string }) => s.label)).toEqual([
      'Potential',
      'Bad Fit',
      'Qualified',
      'Customer',
    ])
    expect(me.memberships).toEqual([
      expect.objectContaining({ id: ctx.org.admin.membershipId, role: 'admin', organization_id: ctx.org.id }),
    ])
    expect(me.email_accounts).toEqual([])
    expect(me.sip_user).toEqual({ username: expect.stringMatching(/^sip_/), password: expect.any(String) })
    expect(me.date_created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/)
  })

  it('answers without the trailing slash too', async () => {
    const res = await call(ctx.app, ctx.org.member.key, 'GET', '/me')
    expect(res.statusCode).toBe(200)
    expect(res.json().id).toBe(ctx.org.member.id)
  })
})

describe('GET /user/', () => {
  it('lists only the users of the caller’s organization, without SIP secrets', async () => {
    const res = await call(ctx.app, ctx.org.member.key, 'GET', '/user/')
    expect(res.statusCode).toBe(200)
    const body = res.json()
    expect(body.has_more).toBe(false)
    expect(body.data.map((u: { id: string }) => u.id).sort()).toEqual([ctx.org.admin.id, ctx.org.member.id].sort())
    for (const user of body.data) {
      expect(user).not.toHaveProperty('sip_user')
      expect(user.organizations).toEqual([ctx.org.id])
    }
  })

  it('pages with _skip and _limit', async () => {
    const first = (await call(ctx.app, ctx.org.admin.key, 'GET', '/user/?_limit=1')).json()
    const second = (await call(ctx.app, ctx.org.admin.key, 'GET', '/user/?_limit=1&_skip=1')).json()
    expect(first.has_more).toBe(true)
    expect(second.has_more).toBe(false)
    expect(first.data[0].id).not.toBe(second.data[0].id)
  })

  it('refuses a _limit above 1000', async () => {
    const res = await call(ctx.app, ctx.org.admin.key, 'GET', '/user/?_limit=1001')
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual({
      errors: [],
      'field-errors': { _limit: 'Ensure this value is less than or equal to 1000.' },
    })
  })
})

describe('GET /user/{id}/', () => {
  it('returns a user of the organization', async () => {
    const res = await call(ctx.app, ctx.org.admin.key, 'GET', `/user/${ctx.org.member.id}/`)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({
      id: ctx.org.member.id,
      first_name: 'Rey',
      last_name: 'Rep',
      display_name: 'Rey Rep',
    })
  })

  it('answers 404 for a user of another organization', async () => {
    const res = await call(ctx.app, ctx.org.admin.key, 'GET', `/user/${ctx.other.admin.id}/`)
    expect(res.statusCode).toBe(404)
    expect(res.json()).toEqual({ error: expect.any(String) })
  })
})

describe('a deactivated member', () => {
  it('leaves the user list, availability and the organization’s memberships, and is still found by id', async () => {
    const org = await ctx.createOrg('Deactivated users')
    const off = await call(ctx.app, org.admin.key, 'POST', `/membership/${org.member.membershipId}/deactivate/`)
    expect(off.statusCode).toBe(200)
    const ids = (res: { json: () => { data: { id?: string; user_id?: string }[] } }) =>
      res.json().data.map((row) => row.id ?? row.user_id)
    expect(ids(await call(ctx.app, org.admin.key, 'GET', '/user/'))).toEqual([org.admin.id])
    expect(ids(await call(ctx.app, org.admin.key, 'GET', '/user/availability/'))).toEqual([org.admin.id])
    const byId = await call(ctx.app, org.admin.key, 'GET', `/user/${org.member.id}/`)
    expect(byId.json()).toMatchObject({ id: org.member.id, display_name: 'Rey Rep' })
    const organization = (await call(ctx.app, org.admin.key, 'GET', `/organization/${org.id}/`)).json()
    expect(organization.memberships.map((m: { user_id: string }) => m.user_id)).toEqual([org.admin.id])
    expect(organization.inactive_memberships.map((m: { user_id: string }) => m.user_id)).toEqual([org.member.id])
    expect(organization.user_count).toBe(1)
  })
})

describe('users’ phone numbers', () => {
  let numbers: Record<string, { id: string; number: string; label: string | null; type: string }>
  beforeAll(async () => {
    const add = async (number: string, body: Record<string, unknown>, key = ctx.org.admin.key) => {
      const res = await call(ctx.app, key, 'POST', '/phone_number/', { body: { number, ...body } })
      expect(res.statusCode, res.body).toBe(200)
      const { id, label, type } = res.json<{ id: string; label: string | null; type: string }>()
      return { id, number: res.json<{ number: string }>().number, label, type }
    }
    numbers = {
      desk: await add('+1 415 555 0100', { label: 'Desk', user_id: ctx.org.admin.id }),
      unowned: await add('+1 415 555 0103', { label: 'Main line' }),
      mobile: await add('(415) 555-0101', { type: 'external', user_id: ctx.org.admin.id }),
      rep: await add('+1 415 555 0102', { label: 'Rey', user_id: ctx.org.member.id }),
    }
    // The rep is a member of the other organization too, with a number there.
    const email = (await call(ctx.app, ctx.org.admin.key, 'GET', `/user/${ctx.org.member.id}/`)).json().email
    await provisionMember(ctx.database.db, ctx.clock, { organizationId: ctx.other.id, email, role: 'user' })
    numbers.elsewhere = await add('+44 20 7946 0000', { user_id: ctx.org.member.id }, ctx.other.admin.key)
  })

  it('lists each user’s numbers in the organization, oldest first, the way /me/ does', async () => {
    const users = (await call(ctx.app, ctx.org.member.key, 'GET', '/user/')).json().data as {
      id: string
      phone_numbers: unknown[]
    }[]
    const byUser = new Map(users.map((u) => [u.id, u.phone_numbers]))
    expect(byUser.get(ctx.org.admin.id)).toEqual([numbers.desk, numbers.mobile])
    expect(byUser.get(ctx.org.member.id)).toEqual([numbers.rep])
    expect(numbers.mobile).toEqual({ id: expect.any(String), number: '+14155550101', label: null, type: 'external' })
    const one = (await call(ctx.app, ctx.org.member.key, 'GET', `/user/${ctx.org.admin.id}/`)).json()
    expect(one.phone_numbers).toEqual([numbers.desk, numbers.mobile])
    const me = (await call(ctx.app, ctx.org.member.key, 'GET', '/me/')).json()
    expect(me.phone_numbers).toEqual([numbers.rep])
    // In the other organization the rep has that organization's number only.
    const there = (await call(ctx.app, ctx.other.admin.key, 'GET', `/user/${ctx.org.member.id}/`)).json()
    expect(there.phone_numbers).toEqual([numbers.elsewhere])
  })

  it('reads the numbers of a whole page of users in one query', async () => {
    const queries: string[] = []
    const logged = openDatabase(ctx.config.databaseUrl, {
      log: (event) => {
        if (event.level === 'query') queries.push(event.query.sql)
      },
    })
    const app = await buildApp({ database: logged, config: ctx.config, clock: ctx.clock, logger: false })
    try {
      const res = await call(app, ctx.org.admin.key, 'GET', '/user/')
      expect(res.statusCode, res.body).toBe(200)
      const withNumbers = res.json().data.filter((u: { phone_numbers: unknown[] }) => u.phone_numbers.length > 0)
      expect(withNumbers).toHaveLength(2)
      expect(queries.filter((q) => q.includes('phone_number'))).toHaveLength(1)
    } finally {
      await app.close()
      await logged.close()
    }
  })
})

describe('GET /user/availability/', () => {
  it('shows a user online on the web after they used the API through the web app, offline later', async () => {
    await call(ctx.app, ctx.org.member.key, 'GET', '/me/', { headers: { 'x-leadline-client': 'web' } })
    const res = await call(ctx.app, ctx.org.admin.key, 'GET', `/user/availability/?organization_id=${ctx.org.id}`)
    expect(res.statusCode).toBe(200)
    const byUser = new Map(res.json().data.map((a: { user_id: string }) => [a.user_id, a]))
    expect(byUser.get(ctx.org.member.id)).toMatchObject({
      status: 'online',
      status_by_type: { web: 'online', mobile: 'offline', native: 'offline' },
    })
    expect(byUser.get(ctx.org.admin.id)).toMatchObject({ status: 'offline' })

    ctx.clock.advance(10 * 60_000)
    const later = await call(ctx.app, ctx.org.admin.key, 'GET', '/user/availability/')
    const member = later.json().data.find((a: { user_id: string }) => a.user_id === ctx.org.member.id)
    expect(member.status).toBe('offline')
  })

  it('notes a user once a minute per client, however often they are seen', async () => {
    const lastSeen = async () => {
      const res = await call(ctx.app, ctx.org.admin.key, 'GET', '/user/availability/')
      return res.json().data.find((a: { user_id: string }) => a.user_id === ctx.org.member.id).last_seen as string
    }
    const seen = async (client: string) => {
      const res = await call(ctx.app, ctx.org.member.key, 'GET', '/me/', { headers: { 'x-leadline-client': client } })
      expect(res.statusCode).toBe(200)
    }
    await seen('web')
    const first = await lastSeen()
    ctx.clock.advance(30_000)
    // Answered without a write: the note of 30 s ago stands.
    await seen('web')
    expect(await lastSeen()).toBe(first)
    // Another client is noted on its own.
    await seen('mobile')
    const mobile = await lastSeen()
    expect(mobile > first).toBe(true)
    ctx.clock.advance(31_000)
    await seen('web')
    expect((await lastSeen()) > mobile).toBe(true)
  })

  it('answers 404 for another organization', async () => {
    const res = await call(ctx.app, ctx.org.admin.key, 'GET', `/user/availability/?organization_id=${ctx.other.id}`)
    expect(res.statusCode).toBe(404)
  })
})
