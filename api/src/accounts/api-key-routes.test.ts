import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, createTestContext, type TestContext } from '../tooling/test-support/test-app.js'

// The API keys resource, on the database LEADLINE_TEST_DB names.

let ctx: TestContext
beforeAll(async () => {
  ctx = await createTestContext()
})
afterAll(async () => {
  await ctx.close()
})

describe('API keys', () => {
  it('are made for oneself and shown once, listed without the key, and work as any key', async () => {
    const org = await ctx.createOrg('Keys')
    const made = await call(ctx.app, org.member.key, 'POST', '/api_key/', { body: { description: 'Zapier' } })
    expect(made.statusCode).toBe(200)
    const key = made.json()
    expect(key).toMatchObject({ description: 'Zapier', user_id: org.member.id, user_name: 'Rey Rep' })
    expect(key.api_key.startsWith(`${String(key.id)}.`)).toBe(true)
    expect((await call(ctx.app, key.api_key, 'GET', '/me/')).json().id).toBe(org.member.id)

    const mine = await call(ctx.app, org.member.key, 'GET', '/api_key/')
    expect(
      mine
        .json()
        .data.map((k: { id: string }) => k.id)
        .sort(),
    ).toEqual([key.id, org.member.keyId].sort())
    expect(mine.body).not.toContain(key.api_key.split('.')[1])
    // Sessions' keys are not API keys: they are listed among sessions.
    await call(ctx.app, org.member.key, 'POST', '/auth/session/', { body: {} })
    expect((await call(ctx.app, org.member.key, 'GET', '/api_key/')).json().data).toHaveLength(2)
  })

  it('say which one the request was made with, so a script finds its own key and user', async () => {
    const org = await ctx.createOrg('Current key')
    const made = (await call(ctx.app, org.member.key, 'POST', '/api_key/', { body: { description: 'Script' } })).json()
    expect(made.is_current).toBe(false)
    const listed = (await call(ctx.app, made.api_key, 'GET', '/api_key/')).json().data
    expect(listed.filter((k: { is_current: boolean }) => k.is_current)).toEqual([
      expect.objectContaining({ id: made.id, user_id: org.member.id, description: 'Script' }),
    ])
    expect((await call(ctx.app, org.member.key, 'GET', `/api_key/${String(made.id)}/`)).json().is_current).toBe(false)
    expect((await call(ctx.app, made.api_key, 'GET', `/api_key/${String(made.id)}/`)).json().is_current).toBe(true)
    // A session's key is no API key: none of the list is current.
    const session = (await call(ctx.app, org.member.key, 'POST', '/auth/session/', { body: {} })).json()
    const fromSession = (await call(ctx.app, session.api_key, 'GET', '/api_key/')).json().data
    expect(fromSession.some((k: { is_current: boolean }) => k.is_current)).toBe(false)
  })

  it('are all listed for an admin, and only one’s own for anyone else', async () => {
    const org = await ctx.createOrg('Key owners')
    const all = await call(ctx.app, org.admin.key, 'GET', '/api_key/')
    expect(
      all
        .json()
        .data.map((k: { user_id: string }) => k.user_id)
        .sort(),
    ).toEqual([org.admin.id, org.member.id].sort())
    const own = await call(ctx.app, org.member.key, 'GET', '/api_key/')
    expect(own.json().data.map((k: { user_id: string }) => k.user_id)).toEqual([org.member.id])
    expect((await call(ctx.app, org.member.key, 'GET', `/api_key/${org.admin.keyId}/`)).statusCode).toBe(404)
  })

  it('are revoked by their owner or an admin, at once here; not by another member or organization', async () => {
    const org = await ctx.createOrg('Revoking')
    const first = (await call(ctx.app, org.member.key, 'POST', '/api_key/', { body: {} })).json()
    const second = (await call(ctx.app, org.member.key, 'POST', '/api_key/', { body: {} })).json()
    expect((await call(ctx.app, first.api_key, 'GET', '/me/')).statusCode).toBe(200)
    expect((await call(ctx.app, ctx.other.admin.key, 'DELETE', `/api_key/${String(first.id)}/`)).statusCode).toBe(404)
    expect((await call(ctx.app, org.member.key, 'DELETE', `/api_key/${org.admin.keyId}/`)).statusCode).toBe(404)
    expect((await call(ctx.app, org.member.key, 'DELETE', `/api_key/${String(first.id)}/`)).statusCode).toBe(200)
    expect((await call(ctx.app, first.api_key, 'GET', '/me/')).statusCode).toBe(401)
    expect((await call(ctx.app, org.admin.key, 'DELETE', `/api_key/${String(second.id)}/`)).statusCode).toBe(200)
    expect((await call(ctx.app, second.api_key, 'GET', '/me/')).statusCode).toBe(401)
    expect((await call(ctx.app, org.member.key, 'DELETE', `/api_key/${String(second.id)}/`)).statusCode).toBe(404)
  })
})
