import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { accountMailScene, type AccountMailScene } from '../tooling/test-support/account-mail.js'
import { call, type TestContext, type TestOrg } from '../tooling/test-support/test-app.js'
import { setPassword } from './account-repo.js'
import { RESET_INVALID, RESETS_PER_HOUR } from './password-reset.js'
import { recordFailure, SIGN_IN_LIMITS, throttleKeys } from './sign-in-throttle.js'

// A forgotten password, on the database LEADLINE_TEST_DB names: the link arrives at a real SMTP server (the system
// mailer) and sets a new password once, within the hour, ending every session of the person.

const PASSWORD = 'quiet lantern orbit 7 maple'
const NEW_PASSWORD = 'brisk harbor violet 42 canyon'

let scene: AccountMailScene
let ctx: TestContext
let n = 0
beforeAll(async () => {
  scene = await accountMailScene()
  ctx = scene.ctx
})
afterAll(async () => {
  await scene.close()
})

/** A fresh organization whose plain user has PASSWORD, and that user's address. */
async function person(): Promise<{ org: TestOrg; email: string }> {
  n += 1
  const org = await ctx.createOrg(`Forgetful ${String(n)}`)
  await setPassword(ctx.database.db, ctx.clock, org.member.id, PASSWORD)
  const user = await ctx.database.db
    .selectFrom('user')
    .select('email')
    .where('id', '=', org.member.id)
    .executeTakeFirstOrThrow()
  return { org, email: user.email }
}

const ask = (email: string, address = '198.51.100.30') =>
  call(ctx.app, undefined, 'POST', '/auth/password_reset/', {
    body: { email },
    headers: { 'x-forwarded-for': address },
  })

const complete = (token: string, password = NEW_PASSWORD) =>
  call(ctx.app, undefined, 'POST', '/auth/password_reset/complete/', { body: { token, password } })

const signIn = (email: string, password: string) =>
  call(ctx.app, undefined, 'POST', '/auth/sign_in/', {
    body: { email, password },
    headers: { 'x-forwarded-for': '198.51.100.31' },
  })

async function linkFor(email: string): Promise<string> {
  const res = await ask(email)
  expect(res.statusCode, res.body).toBe(200)
  const token = (await scene.tokensTo(email, 'reset-password')).at(-1)
  if (token === undefined) throw new Error(`no reset link reached ${email}`)
  return token
}

function expectInvalid(res: { statusCode: number; json: () => unknown }) {
  expect(res.statusCode).toBe(400)
  expect(res.json()).toEqual({ error: RESET_INVALID })
}

async function resetRows(): Promise<number> {
  const rows = await ctx.database.db.selectFrom('password_reset').select('id').execute()
  return rows.length
}

describe('asking for a reset link', () => {
  it('answers the same for an address with no account, and sends nothing', async () => {
    const before = await resetRows()
    const sent = scene.sink.received.length
    const res = await ask('nobody-at-all@example.com')
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({})
    expect(await resetRows()).toBe(before)
    expect(await scene.mailsTo('nobody-at-all@example.com')).toEqual([])
    expect(scene.sink.received).toHaveLength(sent)
  })

  it('emails the link to a member, whatever the case of the address, and keeps only its hash', async () => {
    const { email } = await person()
    const res = await ask(` ${email.toUpperCase()} `)
    expect(res.json()).toEqual({})
    const [mail] = await scene.mailsTo(email)
    expect(mail?.parsed.subject).toBe('Reset your Leadline password')
    expect(mail?.mailFrom).toBe('no-reply@crm.example.com')
    const [token] = await scene.tokensTo(email, 'reset-password')
    const outbox = await ctx.database.db
      .selectFrom('outbox')
      .select('payload')
      .where('kind', '=', 'password_reset')
      .execute()
    for (const row of outbox) expect(row.payload).not.toContain(token)
  })

  it('sends nothing to a deactivated member', async () => {
    const { org, email } = await person()
    await call(ctx.app, org.admin.key, 'POST', `/membership/${org.member.membershipId}/deactivate/`)
    expect((await ask(email)).json()).toEqual({})
    expect(await scene.mailsTo(email)).toEqual([])
  })

  it(`sends at most ${String(RESETS_PER_HOUR)} links an hour to one address, answering the same`, async () => {
    const { email } = await person()
    for (let i = 0; i < RESETS_PER_HOUR + 2; i += 1) {
      const res = await ask(email)
      expect(res.statusCode).toBe(200)
      expect(res.json()).toEqual({})
    }
    expect(await scene.tokensTo(email, 'reset-password')).toHaveLength(RESETS_PER_HOUR)
    ctx.clock.advance(3_600_000)
    await ask(email)
    expect(await scene.tokensTo(email, 'reset-password')).toHaveLength(RESETS_PER_HOUR + 1)
  })

  it('is refused with 429 while the caller’s address is over the sign-in limit', async () => {
    const address = '203.0.113.99'
    const now = ctx.clock.now()
    for (let i = 0; i < SIGN_IN_LIMITS.perAddress; i += 1)
      await recordFailure(ctx.database.db, throttleKeys(`guess-${String(i)}@example.com`, address), SIGN_IN_LIMITS, now)
    const res = await ask('anyone@example.com', address)
    expect(res.statusCode).toBe(429)
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0)
    expect((await ask('anyone@example.com', '203.0.113.98')).statusCode).toBe(200)
  })
})

describe('following a reset link', () => {
  it('sets the password and ends every session of the person, everywhere', async () => {
    const { email } = await person()
    const before = await signIn(email, PASSWORD)
    expect(before.statusCode).toBe(200)
    const sessionKey = before.json().api_key
    expect((await call(ctx.app, sessionKey, 'GET', '/me/')).statusCode).toBe(200)

    const res = await complete(await linkFor(email))
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toEqual({})
    expect((await call(ctx.app, sessionKey, 'GET', '/me/')).statusCode).toBe(401)
    expect((await signIn(email, PASSWORD)).statusCode).toBe(401)
    expect((await signIn(email, NEW_PASSWORD)).statusCode).toBe(200)
  })

  it('works once, and uses up the person’s other links', async () => {
    const { email } = await person()
    const first = await linkFor(email)
    const second = await linkFor(email)
    expect((await complete(second)).statusCode).toBe(200)
    expectInvalid(await complete(second, 'another fine passphrase 9'))
    expectInvalid(await complete(first, 'another fine passphrase 9'))
    expect((await signIn(email, NEW_PASSWORD)).statusCode).toBe(200)
  })

  it('is refused after its hour', async () => {
    const { email } = await person()
    const token = await linkFor(email)
    ctx.clock.advance(3_600_000 + 1000)
    expectInvalid(await complete(token))
    expect((await signIn(email, PASSWORD)).statusCode).toBe(200)
  })

  it('refuses an unknown token', async () => {
    expectInvalid(await complete('x'.repeat(43)))
    expectInvalid(await complete(''))
  })

  it('refuses a weak password with the reason, the person’s own words counted, and the link still works', async () => {
    const { email } = await person()
    const token = await linkFor(email)
    const weak = await complete(token, email)
    expect(weak.statusCode).toBe(400)
    expect(weak.json()['field-errors'].password).toMatch(/^This password is too easy to guess\./)
    expect((await complete(token, 'short')).json()).toEqual({
      errors: [],
      'field-errors': { password: 'Use at least 12 characters.' },
    })
    expect((await complete(token)).statusCode).toBe(200)
  })
})
