import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { provisionMember } from '../crm/organizations/provision.js'
import { AUTH_CACHE_SECONDS } from '../platform/security/auth-cache.js'
import { call, createTestContext, type TestContext } from '../tooling/test-support/test-app.js'

// Members, roles and deactivation, on the database LEADLINE_TEST_DB names.

let ctx: TestContext
beforeAll(async () => {
  ctx = await createTestContext()
})
afterAll(async () => {
  await ctx.close()
})

describe('the organization’s members', () => {
  it('are listed for an admin with role, status and last use, and refused to a member', async () => {
    const org = await ctx.createOrg('Listed')
    expect((await call(ctx.app, org.member.key, 'GET', '/me/')).statusCode).toBe(200)
    const res = await call(ctx.app, org.admin.key, 'GET', '/membership/')
    expect(res.statusCode).toBe(200)
    expect(res.json().data).toEqual([
      expect.objectContaining({
        id: org.admin.membershipId,
        user_id: org.admin.id,
        role_id: 'admin',
        status: 'active',
      }),
      expect.objectContaining({ id: org.member.membershipId, role_id: 'user', status: 'active' }),
    ])
    expect(res.json().data[1].last_used).toMatch(/^\d{4}-\d\d-\d\dT/)
    expect((await call(ctx.app, org.member.key, 'GET', '/membership/')).statusCode).toBe(403)
    expect(
      (await call(ctx.app, org.admin.key, 'GET', `/membership/${ctx.other.member.membershipId}/`)).statusCode,
    ).toBe(404)
  })
})

describe('changing a role', () => {
  it('promotes and demotes, and the new role holds at once', async () => {
    const org = await ctx.createOrg('Roles')
    const promote = await call(ctx.app, org.admin.key, 'PUT', `/membership/${org.member.membershipId}/`, {
      body: { role_id: 'admin' },
    })
    expect(promote.statusCode).toBe(200)
    expect(promote.json()).toMatchObject({ role_id: 'admin' })
    expect((await call(ctx.app, org.member.key, 'GET', '/membership/')).statusCode).toBe(200)
    const demote = await call(ctx.app, org.admin.key, 'PUT', `/membership/${org.member.membershipId}/`, {
      body: { role_id: 'user' },
    })
    expect(demote.json()).toMatchObject({ role_id: 'user' })
    expect((await call(ctx.app, org.member.key, 'GET', '/membership/')).statusCode).toBe(403)
  })

  it('refuses an unknown role by field, and the last active admin’s demotion', async () => {
    const org = await ctx.createOrg('Last admin')
    const unknown = await call(ctx.app, org.admin.key, 'PUT', `/membership/${org.member.membershipId}/`, {
      body: { role_id: 'superuser' },
    })
    expect(unknown.statusCode).toBe(400)
    expect(unknown.json()['field-errors']).toEqual({ role_id: 'Choose admin or user.' })
    const last = await call(ctx.app, org.admin.key, 'PUT', `/membership/${org.admin.membershipId}/`, {
      body: { role_id: 'user' },
    })
    expect(last.statusCode).toBe(400)
    expect(last.json()['field-errors']).toEqual({ role_id: 'The organization needs at least one active admin.' })
    expect((await call(ctx.app, org.admin.key, 'GET', '/membership/')).statusCode).toBe(200)
  })

  it('lets only one of two admins demote the other when both try at once', async () => {
    const org = await ctx.createOrg('Both at once')
    await call(ctx.app, org.admin.key, 'PUT', `/membership/${org.member.membershipId}/`, { body: { role_id: 'admin' } })
    const [a, b] = await Promise.all([
      call(ctx.app, org.admin.key, 'PUT', `/membership/${org.member.membershipId}/`, { body: { role_id: 'user' } }),
      call(ctx.app, org.member.key, 'PUT', `/membership/${org.admin.membershipId}/`, { body: { role_id: 'user' } }),
    ])
    const codes = [a.statusCode, b.statusCode].sort()
    expect(codes).toEqual([200, 400])
    const admins = (
      await ctx.database.db
        .selectFrom('membership')
        .select('id')
        .where('organization_id', '=', org.id)
        .where('role', '=', 'admin')
        .execute()
    ).length
    expect(admins).toBe(1)
  })
})

describe('deactivating a member', () => {
  it('refuses every key of theirs at once here, keeps their name on their records, and reactivates', async () => {
    const org = await ctx.createOrg('Deactivated')
    const session = (await call(ctx.app, org.member.key, 'POST', '/auth/session/', { body: {} })).json()
    const lead = (await call(ctx.app, org.member.key, 'POST', '/lead/', { body: { name: 'Kept Co' } })).json()
    expect((await call(ctx.app, session.api_key, 'GET', '/me/')).statusCode).toBe(200)

    const off = await call(ctx.app, org.admin.key, 'POST', `/membership/${org.member.membershipId}/deactivate/`)
    expect(off.statusCode).toBe(200)
    expect(off.json()).toMatchObject({ status: 'inactive', date_deactivated: expect.any(String) })
    for (const key of [org.member.key, session.api_key]) {
      expect((await call(ctx.app, key, 'GET', '/me/')).statusCode).toBe(401)
    }
    const kept = await call(ctx.app, org.admin.key, 'GET', `/lead/${String(lead.id)}/`)
    expect(kept.json().created_by_name).toBe('Rey Rep')

    const on = await call(ctx.app, org.admin.key, 'POST', `/membership/${org.member.membershipId}/reactivate/`)
    expect(on.json()).toMatchObject({ status: 'active', date_deactivated: null })
    // Their old keys stay revoked: they sign in again, or an admin makes them a key.
    ctx.clock.advance(AUTH_CACHE_SECONDS * 1000)
    expect((await call(ctx.app, org.member.key, 'GET', '/me/')).statusCode).toBe(401)
  })

  it('records each change of role or status as a membership event, and nothing for a change to the same', async () => {
    const org = await ctx.createOrg('Evented')
    const path = `/membership/${org.member.membershipId}/`
    await call(ctx.app, org.admin.key, 'PUT', path, { body: { role_id: 'admin' } })
    await call(ctx.app, org.admin.key, 'PUT', path, { body: { role_id: 'admin' } })
    await call(ctx.app, org.admin.key, 'POST', `${path}deactivate/`)
    await call(ctx.app, org.admin.key, 'POST', `${path}deactivate/`)
    await call(ctx.app, org.admin.key, 'POST', `${path}reactivate/`)
    const events = await call(ctx.app, org.admin.key, 'GET', '/event/', {
      query: { object_type: 'membership', object_id: org.member.membershipId },
    })
    const changes = events
      .json()
      .data.map((event: { action: string; changed_fields: string[]; data: Record<string, unknown> }) => ({
        action: event.action,
        changed: event.changed_fields,
        user_id: event.data.user_id,
        status: event.data.status,
      }))
    // The log lists the newest first.
    expect(changes).toEqual([
      { action: 'updated', changed: ['date_deactivated', 'status'], user_id: org.member.id, status: 'active' },
      { action: 'updated', changed: ['date_deactivated', 'status'], user_id: org.member.id, status: 'inactive' },
      { action: 'updated', changed: ['role_id'], user_id: org.member.id, status: 'active' },
    ])
  })

  it('refuses oneself (so an admin always remains), and a member may not deactivate anyone', async () => {
    const org = await ctx.createOrg('Protected')
    const second = await provisionMember(ctx.database.db, ctx.clock, {
      organizationId: org.id,
      email: `second-${org.id}@example.com`,
      role: 'admin',
    })
    const self = await call(ctx.app, org.admin.key, 'POST', `/membership/${org.admin.membershipId}/deactivate/`)
    expect(self.statusCode).toBe(400)
    expect(self.json()).toEqual({ error: 'You cannot deactivate yourself.' })
    const byMember = await call(ctx.app, org.member.key, 'POST', `/membership/${second.membership_id}/deactivate/`)
    expect(byMember.statusCode).toBe(403)
    const byAdmin = await call(ctx.app, org.admin.key, 'POST', `/membership/${second.membership_id}/deactivate/`)
    expect(byAdmin.statusCode).toBe(200)
    // The first admin is now the last: demoting themselves is refused too.
    const demote = await call(ctx.app, org.admin.key, 'PUT', `/membership/${org.admin.membershipId}/`, {
      body: { role_id: 'user' },
    })
    expect(demote.statusCode).toBe(400)
  })
})
