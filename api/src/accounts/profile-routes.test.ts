import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, createTestContext, type TestContext } from '../tooling/test-support/test-app.js'

// A person's own name, on the database LEADLINE_TEST_DB names.

let ctx: TestContext
beforeAll(async () => {
  ctx = await createTestContext()
})
afterAll(async () => {
  await ctx.close()
})

describe('the caller’s profile', () => {
  it('changes their name, trimmed, and it shows at once in /me/, the user list and the organization', async () => {
    const org = await ctx.createOrg('Renamed')
    // Read first, so the cached answers exist before the change.
    expect((await call(ctx.app, org.member.key, 'GET', '/me/')).json().display_name).toBe('Rey Rep')
    const changed = await call(ctx.app, org.member.key, 'PUT', '/auth/profile/', {
      body: { first_name: '  Reyna ', last_name: 'Rivera' },
    })
    expect(changed.statusCode).toBe(200)
    expect(changed.json()).toMatchObject({ first_name: 'Reyna', last_name: 'Rivera', display_name: 'Reyna Rivera' })
    expect((await call(ctx.app, org.member.key, 'GET', '/me/')).json().display_name).toBe('Reyna Rivera')
    const user = await call(ctx.app, org.admin.key, 'GET', `/user/${org.member.id}/`)
    expect(user.json().display_name).toBe('Reyna Rivera')
    const organization = (await call(ctx.app, org.admin.key, 'GET', `/organization/${org.id}/`)).json()
    const membership = organization.memberships.find((m: { user_id: string }) => m.user_id === org.member.id)
    expect(membership.user_full_name).toBe('Reyna Rivera')
    expect((await call(ctx.app, org.member.key, 'GET', '/auth/profile/')).json().first_name).toBe('Reyna')
  })

  it('removes an empty name (the email stands for it) and leaves out what is not given', async () => {
    const org = await ctx.createOrg('Unnamed')
    const res = await call(ctx.app, org.member.key, 'PUT', '/auth/profile/', { body: { last_name: '   ' } })
    expect(res.json()).toMatchObject({ first_name: 'Rey', last_name: null, display_name: 'Rey' })
    const both = await call(ctx.app, org.member.key, 'PUT', '/auth/profile/', { body: { first_name: null } })
    expect(both.json().display_name).toBe(both.json().email)
  })

  it('refuses a name over 100 characters or with control characters by field, and changes no email', async () => {
    const org = await ctx.createOrg('Refused names')
    const long = await call(ctx.app, org.member.key, 'PUT', '/auth/profile/', { body: { first_name: 'a'.repeat(101) } })
    expect(long.statusCode).toBe(400)
    expect(long.json()['field-errors']).toEqual({ first_name: 'Use at most 100 characters.' })
    const control = await call(ctx.app, org.member.key, 'PUT', '/auth/profile/', { body: { last_name: 'Rep\nX' } })
    expect(control.json()['field-errors']).toHaveProperty('last_name')
    const other = await call(ctx.app, org.member.key, 'PUT', '/auth/profile/', { body: { email: 'x@example.com' } })
    expect(other.json().email).not.toBe('x@example.com')
    expect((await call(ctx.app, org.member.key, 'GET', '/auth/profile/')).json()).toMatchObject({
      first_name: 'Rey',
      last_name: 'Rep',
    })
  })

  it('needs a key', async () => {
    expect((await call(ctx.app, undefined, 'PUT', '/auth/profile/', { body: { first_name: 'X' } })).statusCode).toBe(
      401,
    )
  })
})
