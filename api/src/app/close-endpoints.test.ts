import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, createTestContext, type TestContext } from '../tooling/test-support/test-app.js'

// Endpoints Close scripts call before their real work, on the database LEADLINE_TEST_DB names: what Leadline has
// answers in Close's shape, and what it does not have answers 404 in the documented error shape.

let ctx: TestContext
beforeAll(async () => {
  ctx = await createTestContext()
})
afterAll(async () => {
  await ctx.close()
})

/** The fields of a role in Close's documented example (`GET /role/`). */
const CLOSE_ROLE_FIELDS = [
  'editable',
  'id',
  'name',
  'permissions',
  'visibility_user_lcf_behavior',
  'visibility_user_lcf_ids',
].sort()

describe('GET /role/', () => {
  it('lists Admin and User, the roles a membership’s role_id names, in Close’s shape', async () => {
    const res = await call(ctx.app, ctx.org.member.key, 'GET', '/role/')
    expect(res.statusCode).toBe(200)
    const body = res.json()
    expect(body.has_more).toBe(false)
    expect(body.data.map((r: { id: string; name: string }) => [r.id, r.name])).toEqual([
      ['admin', 'Admin'],
      ['user', 'User'],
    ])
    for (const role of body.data) {
      expect(
        Object.keys(role)
          .filter((k) => k !== 'organization_id')
          .sort(),
      ).toEqual(CLOSE_ROLE_FIELDS)
      expect(role).toMatchObject({ editable: false, organization_id: ctx.org.id })
    }
    expect(body.data[0].permissions).toContain('manage_organization')
    expect(body.data[1].permissions).not.toContain('manage_organization')
    // Any member may export (a member their own exports, an admin all of the organization's).
    for (const role of body.data) expect(role.permissions).toContain('export')
    // And any member may import CSV files (a member sees their own imports, an admin all of the organization's).
    for (const role of body.data) expect(role.permissions).toContain('import')

    // Every membership's role is one of them.
    const org = (await call(ctx.app, ctx.org.admin.key, 'GET', `/organization/${ctx.org.id}/`)).json()
    const ids = new Set(body.data.map((r: { id: string }) => r.id))
    for (const m of org.memberships) expect(ids.has(m.role_id)).toBe(true)
  })

  it('pages like every list, and answers one role by id; an unknown id is a 404', async () => {
    const page = (await call(ctx.app, ctx.org.member.key, 'GET', '/role/?_limit=1&_skip=1')).json()
    expect(page).toMatchObject({ has_more: false, data: [{ id: 'user' }] })
    expect((await call(ctx.app, ctx.org.member.key, 'GET', '/role/?_limit=1')).json().has_more).toBe(true)
    const admin = await call(ctx.app, ctx.org.member.key, 'GET', '/role/admin/')
    expect(admin.json()).toMatchObject({ id: 'admin', name: 'Admin' })
    const unknown = await call(ctx.app, ctx.org.member.key, 'GET', '/role/role_nope/')
    expect(unknown.statusCode).toBe(404)
    expect(unknown.json()).toEqual({ error: 'Role not found.' })
    expect((await call(ctx.app, ctx.org.member.key, 'GET', '/role/?_limit=-1')).statusCode).toBe(400)
  })
})

describe('custom field schemas and shared custom fields', () => {
  it('answers /custom_field_schema/{type}/ for each object type, and an empty list of shared fields', async () => {
    for (const objectType of ['lead', 'contact', 'opportunity']) {
      const res = await call(ctx.app, ctx.org.member.key, 'GET', `/custom_field_schema/${objectType}/`)
      expect(res.statusCode).toBe(200)
      expect(Array.isArray(res.json().fields)).toBe(true)
    }
    const shared = await call(ctx.app, ctx.org.member.key, 'GET', '/custom_field/shared/')
    expect(shared.statusCode).toBe(200)
    expect(shared.json()).toEqual({ has_more: false, data: [] })
    const one = await call(ctx.app, ctx.org.member.key, 'GET', '/custom_field/shared/scf_123/')
    expect(one.statusCode).toBe(404)
    expect(one.json()).toEqual({ error: 'Shared custom field not found.' })
  })
})

describe('Close features Leadline does not have', () => {
  it.each([
    ['GET', '/sequence/'],
    ['POST', '/sequence_subscription/'],
    ['GET', '/sms_template/'],
    ['GET', '/group/'],
    ['GET', '/custom_object/'],
    ['GET', '/custom_activity/'],
  ] as const)('%s %s answers 404 in the documented error shape', async (method, path) => {
    const res = await call(ctx.app, ctx.org.admin.key, method, path, method === 'POST' ? { body: {} } : {})
    expect(res.statusCode).toBe(404)
    expect(res.json()).toEqual({ error: expect.any(String) })
  })
})
