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

  it('keeps a chosen time zone, which /me/ answers at once, and goes back to the browser’s with null', async () => {
    const org = await ctx.createOrg('Zoned')
    expect((await call(ctx.app, org.member.key, 'GET', '/me/')).json().time_zone).toBeNull()
    expect((await call(ctx.app, org.member.key, 'GET', '/auth/profile/')).json().time_zone).toBeNull()
    const set = await call(ctx.app, org.member.key, 'PUT', '/auth/profile/', { body: { time_zone: ' Asia/Tokyo ' } })
    expect(set.statusCode, set.body).toBe(200)
    expect(set.json()).toMatchObject({ time_zone: 'Asia/Tokyo', first_name: 'Rey' })
    expect((await call(ctx.app, org.member.key, 'GET', '/me/')).json().time_zone).toBe('Asia/Tokyo')
    // Only the caller's own: another member's /me/ is not changed.
    expect((await call(ctx.app, org.admin.key, 'GET', '/me/')).json().time_zone).toBeNull()
    const names = await call(ctx.app, org.member.key, 'PUT', '/auth/profile/', { body: { first_name: 'Reyna' } })
    expect(names.json().time_zone).toBe('Asia/Tokyo')
    const cleared = await call(ctx.app, org.member.key, 'PUT', '/auth/profile/', { body: { time_zone: null } })
    expect(cleared.json().time_zone).toBeNull()
    expect((await call(ctx.app, org.member.key, 'GET', '/me/')).json().time_zone).toBeNull()
  })

  it('refuses a time zone the runtime does not know, by field, and keeps the one stored', async () => {
    const org = await ctx.createOrg('Unzoned')
    await call(ctx.app, org.member.key, 'PUT', '/auth/profile/', { body: { time_zone: 'Europe/Paris' } })
    for (const zone of ['Mars/Olympus_Mons', '+02:00', 'x'.repeat(101)]) {
      const res = await call(ctx.app, org.member.key, 'PUT', '/auth/profile/', {
        body: { time_zone: zone, first_name: 'Changed' },
      })
      expect(res.statusCode).toBe(400)
      expect(Object.keys(res.json()['field-errors'])).toEqual(['time_zone'])
    }
    expect((await call(ctx.app, org.member.key, 'GET', '/auth/profile/')).json()).toMatchObject({
      time_zone: 'Europe/Paris',
      first_name: 'Rey',
    })
  })

  it('needs a key', async () => {
    expect((await call(ctx.app, undefined, 'PUT', '/auth/profile/', { body: { first_name: 'X' } })).statusCode).toBe(
      401,
    )
  })
})
