import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, createTestContext, type TestContext, type TestOrg } from '../tooling/test-support/test-app.js'
import { setPassword } from './account-repo.js'
import { SIGN_IN_REFUSED } from './session-routes.js'
import { SIGN_IN_LIMITS } from './sign-in-throttle.js'

// Sign-in with a password, session keys, sign-out and password changes, on the database LEADLINE_TEST_DB names.

const PASSWORD = 'quiet lantern orbit 7 maple'
const OTHER_PASSWORD = 'brisk harbor violet 42 canyon'

let ctx: TestContext
beforeAll(async () => {
  ctx = await createTestContext()
})
afterAll(async () => {
  await ctx.close()
})

async function emailOf(userId: string): Promise<string> {
  const row = await ctx.database.db
    .selectFrom('user')
    .select('email')
    .where('id', '=', userId)
    .executeTakeFirstOrThrow()
  return row.email
}

/** A fresh organization whose plain user has PASSWORD; its email, and a distinct address to sign in from. */
async function withPassword(name: string): Promise<{ org: TestOrg; email: string; address: string }> {
  const org = await ctx.createOrg(name)
  await setPassword(ctx.database.db, ctx.clock, org.member.id, PASSWORD)
  return { org, email: await emailOf(org.member.id), address: `203.0.113.${String(Math.floor(Math.random() * 250))}` }
}

function signIn(email: string, password: string, address = '198.51.100.7', extra: Record<string, unknown> = {}) {
  return call(ctx.app, undefined, 'POST', '/auth/sign_in/', {
    body: { email, password, ...extra },
    headers: { 'x-forwarded-for': address },
  })
}

describe('signing in with email and password', () => {
  it('answers a key for this session that works as any key, owned by the user in their organization', async () => {
    const { org, email } = await withPassword('Signs in')
    const res = await signIn(` ${email.toUpperCase()} `, PASSWORD, '198.51.100.1', { description: 'Firefox on Linux' })
    expect(res.statusCode).toBe(200)
    const body = res.json()
    expect(body).toMatchObject({ user_id: org.member.id, organization_id: org.id })
    expect(body.api_key).toMatch(/^[A-Za-z0-9_]+\.[A-Za-z0-9]+$/)
    expect(body.api_key.startsWith(`${String(body.api_key_id)}.`)).toBe(true)
    const me = await call(ctx.app, body.api_key, 'GET', '/me/')
    expect(me.statusCode).toBe(200)
    expect(me.json().id).toBe(org.member.id)
    const sessions = await call(ctx.app, body.api_key, 'GET', '/auth/session/')
    expect(sessions.json().data).toEqual([
      expect.objectContaining({ id: body.api_key_id, description: 'Firefox on Linux', current: true }),
    ])
  })

  it('refuses a wrong password, an unknown address and a person with no password in the same words', async () => {
    const { org, email } = await withPassword('Refusals')
    const answers = [
      await signIn(email, 'not the password at all', '198.51.100.2'),
      await signIn(`nobody-${org.id}@example.com`, PASSWORD, '198.51.100.2'),
      await signIn(await emailOf(org.admin.id), PASSWORD, '198.51.100.2'),
    ]
    for (const res of answers) {
      expect(res.statusCode).toBe(401)
      expect(res.json()).toEqual({ error: SIGN_IN_REFUSED })
    }
  })

  it('signs into an organization the person belongs to only, with the same answer for any other', async () => {
    const { org, email, address } = await withPassword('Which organization')
    expect((await signIn(email, PASSWORD, address, { organization_id: org.id })).statusCode).toBe(200)
    const foreign = await signIn(email, PASSWORD, address, { organization_id: ctx.other.id })
    expect(foreign.statusCode).toBe(401)
    expect(foreign.json()).toEqual({ error: SIGN_IN_REFUSED })
  })

  it('validates its body by field', async () => {
    const res = await call(ctx.app, undefined, 'POST', '/auth/sign_in/', {
      body: { email: 'a@example.com', password: 'x'.repeat(300), expires_in: 5 },
    })
    expect(res.statusCode).toBe(400)
    expect(Object.keys(res.json()['field-errors']).sort()).toEqual(['expires_in', 'password'])
  })

  it('refuses a deactivated member, with the same answer', async () => {
    const { org, email } = await withPassword('Deactivated')
    await ctx.database.db
      .updateTable('membership')
      .set({ status: 'inactive' })
      .where('id', '=', org.member.membershipId)
      .execute()
    const res = await signIn(email, PASSWORD, '198.51.100.3')
    expect(res.statusCode).toBe(401)
    expect(res.json()).toEqual({ error: SIGN_IN_REFUSED })
  })
})

describe('the sign-in limits', () => {
  it('lock an account after its failures, even for the right password, until the window ends', async () => {
    const { email, address } = await withPassword('Locked account')
    for (let i = 0; i < SIGN_IN_LIMITS.perAccount; i++) {
      // From ever-different addresses: the account's own count locks it.
      expect((await signIn(email, `wrong guess number ${String(i)}`, `192.0.2.${String(i + 1)}`)).statusCode).toBe(401)
    }
    const locked = await signIn(email, PASSWORD, address)
    expect(locked.statusCode).toBe(429)
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0)
    expect(Number(locked.headers['retry-after'])).toBeLessThanOrEqual(SIGN_IN_LIMITS.windowSeconds)
    // An address without an account locks the same way: the answer tells nothing.
    ctx.clock.advance(SIGN_IN_LIMITS.windowSeconds * 1000)
    expect((await signIn(email, PASSWORD, address)).statusCode).toBe(200)
  })

  it('lock an unknown address the same way as a known one', async () => {
    const ghost = `ghost-${String(Date.now())}@example.com`
    for (let i = 0; i < SIGN_IN_LIMITS.perAccount; i++) {
      expect((await signIn(ghost, 'any password at all', `192.0.2.${String(100 + i)}`)).statusCode).toBe(401)
    }
    expect((await signIn(ghost, 'any password at all', '192.0.2.200')).statusCode).toBe(429)
    ctx.clock.advance(SIGN_IN_LIMITS.windowSeconds * 1000)
  })

  it('refuse an address after its failures over many accounts, while other addresses sign in', async () => {
    const { email } = await withPassword('Busy address')
    const address = '198.51.100.99'
    for (let i = 0; i < SIGN_IN_LIMITS.perAddress; i++) {
      expect((await signIn(`spray-${String(i)}@example.com`, 'password guess', address)).statusCode).toBe(401)
    }
    expect((await signIn(email, PASSWORD, address)).statusCode).toBe(429)
    expect((await signIn(email, PASSWORD, '198.51.100.100')).statusCode).toBe(200)
    ctx.clock.advance(SIGN_IN_LIMITS.windowSeconds * 1000)
    expect((await signIn(email, PASSWORD, address)).statusCode).toBe(200)
  })

  it('clear an account’s failures when it signs in', async () => {
    const { email, address } = await withPassword('Cleared')
    for (let i = 0; i < SIGN_IN_LIMITS.perAccount - 1; i++) await signIn(email, 'wrong guess', address)
    expect((await signIn(email, PASSWORD, address)).statusCode).toBe(200)
    for (let i = 0; i < SIGN_IN_LIMITS.perAccount - 1; i++) await signIn(email, 'wrong guess', address)
    expect((await signIn(email, PASSWORD, address)).statusCode).toBe(200)
  })
})

describe('a session key', () => {
  it('expires at its end and after its idle time, and use keeps an idle session alive', async () => {
    const { email, address } = await withPassword('Expiry')
    const minutes = (n: number) => n * 60_000
    const idle = (await signIn(email, PASSWORD, address, { idle_seconds: 600, expires_in: 3600 })).json()
    const other = (await signIn(email, PASSWORD, address, { idle_seconds: 600, expires_in: 3600 })).json()
    for (let i = 0; i < 5; i++) {
      ctx.clock.advance(minutes(8))
      expect((await call(ctx.app, idle.api_key, 'GET', '/me/')).statusCode).toBe(200)
    }
    // `other` was last used 40 minutes ago: past its 10-minute idle time.
    expect((await call(ctx.app, other.api_key, 'GET', '/me/')).statusCode).toBe(401)
    for (let i = 0; i < 2; i++) {
      ctx.clock.advance(minutes(8))
      expect((await call(ctx.app, idle.api_key, 'GET', '/me/')).statusCode).toBe(200)
    }
    // 56 minutes in and used 8 minutes ago; 5 more are within its idle time, but its hour is up.
    ctx.clock.advance(minutes(5))
    expect((await call(ctx.app, idle.api_key, 'GET', '/me/')).statusCode).toBe(401)
  })

  it('can be had for an API key, so a browser signing in with a key never holds it', async () => {
    const org = await ctx.createOrg('Key exchange')
    const res = await call(ctx.app, org.member.key, 'POST', '/auth/session/', { body: { description: 'Chrome' } })
    expect(res.statusCode).toBe(200)
    const session = res.json()
    expect(session).toMatchObject({ user_id: org.member.id, organization_id: org.id })
    expect(session.api_key).not.toBe(org.member.key)
    // Nothing named: the defaults.
    const plain = await call(ctx.app, org.member.key, 'POST', '/auth/session/', { body: {} })
    expect(plain.statusCode).toBe(200)
    const single = await call(ctx.app, org.member.key, 'GET', `/auth/session/${String(plain.json().api_key_id)}/`)
    expect(single.json()).toMatchObject({ description: null, current: false })
    expect((await call(ctx.app, session.api_key, 'GET', '/me/')).statusCode).toBe(200)
    expect((await call(ctx.app, org.member.key, 'GET', '/auth/session/')).json().data).toEqual([
      expect.objectContaining({ id: plain.json().api_key_id, current: false }),
      expect.objectContaining({ id: session.api_key_id, current: false }),
    ])
  })

  it('is refused at once after sign-out, and others’ sessions cannot be ended', async () => {
    const { org, email, address } = await withPassword('Sign out')
    const session = (await signIn(email, PASSWORD, address)).json()
    expect((await call(ctx.app, session.api_key, 'GET', '/me/')).statusCode).toBe(200)
    const foreign = await call(ctx.app, org.admin.key, 'DELETE', `/auth/session/${String(session.api_key_id)}/`)
    expect(foreign.statusCode).toBe(404)
    const apiKeyIsNoSession = await call(ctx.app, org.member.key, 'DELETE', `/auth/session/${org.member.keyId}/`)
    expect(apiKeyIsNoSession.statusCode).toBe(404)
    const out = await call(ctx.app, session.api_key, 'DELETE', `/auth/session/${String(session.api_key_id)}/`)
    expect(out.statusCode).toBe(200)
    expect((await call(ctx.app, session.api_key, 'GET', '/me/')).statusCode).toBe(401)
    expect((await call(ctx.app, org.member.key, 'GET', '/me/')).statusCode).toBe(200)
  })

  it('“sign out other sessions” ends every session but the caller’s', async () => {
    const { email, address } = await withPassword('Others')
    const keys = []
    for (let i = 0; i < 3; i++) keys.push((await signIn(email, PASSWORD, address)).json())
    for (const key of keys) expect((await call(ctx.app, key.api_key, 'GET', '/me/')).statusCode).toBe(200)
    const res = await call(ctx.app, keys[0].api_key, 'POST', '/auth/session/sign_out_others/')
    expect(res.json()).toEqual({ ended: 2 })
    expect((await call(ctx.app, keys[0].api_key, 'GET', '/me/')).statusCode).toBe(200)
    for (const key of keys.slice(1)) expect((await call(ctx.app, key.api_key, 'GET', '/me/')).statusCode).toBe(401)
    expect((await call(ctx.app, keys[0].api_key, 'GET', '/auth/session/')).json().data).toHaveLength(1)
  })
})

describe('changing one’s password', () => {
  it('needs the current one, refuses a weak one with the reason, and ends the other sessions', async () => {
    const { email, address } = await withPassword('Password change')
    const mine = (await signIn(email, PASSWORD, address)).json()
    const elsewhere = (await signIn(email, PASSWORD, address)).json()
    const change = (current: string, password: string) =>
      call(ctx.app, mine.api_key, 'PUT', '/auth/password/', { body: { current_password: current, password } })

    const wrong = await change('not my password', OTHER_PASSWORD)
    expect(wrong.statusCode).toBe(400)
    expect(wrong.json()['field-errors']).toEqual({ current_password: 'That is not your current password.' })
    const short = await change(PASSWORD, 'short')
    expect(short.json()['field-errors']).toEqual({ password: 'Use at least 12 characters.' })
    const guessable = await change(PASSWORD, 'password1234')
    expect(guessable.statusCode).toBe(400)
    expect(guessable.json()['field-errors'].password).toMatch(/^This password is too easy to guess\./)
    const ownName = await change(PASSWORD, `${email}1`)
    expect(ownName.statusCode).toBe(400)

    const done = await change(PASSWORD, OTHER_PASSWORD)
    expect(done.statusCode).toBe(200)
    expect(done.json()).toEqual({ ended_sessions: 1 })
    expect((await call(ctx.app, mine.api_key, 'GET', '/me/')).statusCode).toBe(200)
    expect((await call(ctx.app, elsewhere.api_key, 'GET', '/me/')).statusCode).toBe(401)
    expect((await signIn(email, PASSWORD, address)).statusCode).toBe(401)
    expect((await signIn(email, OTHER_PASSWORD, address)).statusCode).toBe(200)
  })
})
