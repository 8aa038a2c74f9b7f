import { Secret, TOTP } from 'otpauth'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../app/app.js'
import { secretBoxFrom } from '../platform/security/secret-box.js'
import { resealSecrets } from '../platform/security/stored-secrets.js'
import { call, createTestContext, type TestContext, type TestOrg } from '../tooling/test-support/test-app.js'
import { setPassword } from './account-repo.js'
import { SIGN_IN_LIMITS } from './sign-in-throttle.js'

// Two-factor sign-in (decision 0044) and the organization's policy, on the database LEADLINE_TEST_DB names. Codes
// are computed here as an authenticator app computes them, from the secret the setup answered.

const PASSWORD = 'quiet lantern orbit 7 maple'
const NEEDED = 'Enter the code from your authenticator app, or a recovery code.'
const WRONG = 'That code is not right.'
const RESTRICTED = 'Your organization requires two-factor sign-in: turn it on under Profile first.'

let ctx: TestContext
beforeAll(async () => {
  ctx = await createTestContext()
})
afterAll(async () => {
  await ctx.close()
})

/** The code an authenticator app shows for `secret` at the test clock's time, `steps` 30-second steps away. */
function appCode(secret: string, steps = 0): string {
  const now = ctx.clock.now().getTime()
  return new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({
    timestamp: now + steps * 30_000,
  })
}

/** Six digits the app shows for no step within the window around now, counting up from `from`. */
function wrongCode(secret: string, from = 100000): string {
  const right = new Set([-1, 0, 1].map((steps) => appCode(secret, steps)))
  let guess = from
  while (right.has(String(guess))) guess += 1
  return String(guess)
}

/** Moves the test clock to the start of the next 30-second step, so a test's requests all fall in one step. */
function nextStep(): void {
  const now = ctx.clock.now().getTime()
  ctx.clock.advance(30_000 - (now % 30_000) + 100)
}

interface Person {
  org: TestOrg
  email: string
  address: string
}

let addresses = 0
/** A fresh organization whose plain user has PASSWORD; they sign in from an address of their own. */
async function person(name: string): Promise<Person> {
  const org = await ctx.createOrg(name)
  await setPassword(ctx.database.db, ctx.clock, org.member.id, PASSWORD)
  const row = await ctx.database.db
    .selectFrom('user')
    .select('email')
    .where('id', '=', org.member.id)
    .executeTakeFirstOrThrow()
  addresses += 1
  return { org, email: row.email, address: `203.0.113.${String(addresses)}` }
}

function signIn(who: Person, extra: Record<string, unknown> = {}, password = PASSWORD) {
  return call(ctx.app, undefined, 'POST', '/auth/sign_in/', {
    body: { email: who.email, password, ...extra },
    headers: { 'x-forwarded-for': who.address },
  })
}

async function sessionKey(who: Person, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await signIn(who, extra)
  expect(res.statusCode, res.body).toBe(200)
  return res.json<{ api_key: string }>().api_key
}

/** Turns two-factor on for `who` through their session `key`: the secret and the recovery codes. */
async function turnOn(key: string, password = PASSWORD): Promise<{ secret: string; codes: string[] }> {
  const setup = await call(ctx.app, key, 'POST', '/auth/two_factor/setup/', { body: { password } })
  expect(setup.statusCode, setup.body).toBe(200)
  const { secret } = setup.json<{ secret: string }>()
  nextStep()
  const enabled = await call(ctx.app, key, 'POST', '/auth/two_factor/enable/', { body: { code: appCode(secret) } })
  expect(enabled.statusCode, enabled.body).toBe(200)
  // The step used to turn it on is used: sign-ins in the tests start in the next one.
  nextStep()
  return { secret, codes: enabled.json<{ recovery_codes: string[] }>().recovery_codes }
}

describe('turning two-factor on', () => {
  it('sets up a sealed pending secret, turns it on with a code of it, and shows ten recovery codes', async () => {
    const who = await person('Turns on')
    const key = await sessionKey(who)
    expect((await call(ctx.app, key, 'GET', '/auth/two_factor/')).json()).toEqual({
      enabled: false,
      recovery_codes_left: 0,
      required: false,
      has_password: true,
    })
    const wrongPassword = await call(ctx.app, key, 'POST', '/auth/two_factor/setup/', {
      body: { password: 'not my password' },
    })
    expect(wrongPassword.statusCode).toBe(400)
    expect(Object.keys(wrongPassword.json()['field-errors'])).toEqual(['password'])

    const setup = await call(ctx.app, key, 'POST', '/auth/two_factor/setup/', { body: { password: PASSWORD } })
    expect(setup.statusCode).toBe(200)
    const { secret, otpauth_url } = setup.json<{ secret: string; otpauth_url: string }>()
    expect(secret).toMatch(/^[A-Z2-7]{32}$/)
    expect(otpauth_url).toContain('otpauth://totp/Leadline:')
    expect(otpauth_url).toContain(`secret=${secret}`)
    const stored = await ctx.database.db
      .selectFrom('user')
      .select(['totp_pending_secret', 'totp_secret'])
      .where('id', '=', who.org.member.id)
      .executeTakeFirstOrThrow()
    expect(stored.totp_pending_secret?.startsWith('v1:')).toBe(true)
    expect(stored.totp_pending_secret).not.toContain(secret)
    expect(stored.totp_secret).toBeNull()
    // Still off until a code confirms it.
    expect((await signIn(who)).statusCode).toBe(200)

    nextStep()
    const wrong = await call(ctx.app, key, 'POST', '/auth/two_factor/enable/', { body: { code: wrongCode(secret) } })
    expect(wrong.statusCode).toBe(400)
    expect(Object.keys(wrong.json()['field-errors'])).toEqual(['code'])
    const enabled = await call(ctx.app, key, 'POST', '/auth/two_factor/enable/', { body: { code: appCode(secret) } })
    expect(enabled.statusCode, enabled.body).toBe(200)
    const codes = enabled.json<{ recovery_codes: string[] }>().recovery_codes
    expect(codes).toHaveLength(10)
    expect(new Set(codes).size).toBe(10)
    for (const code of codes) expect(code).toMatch(/^[0-9a-z]{5}-[0-9a-z]{5}$/)
    expect((await call(ctx.app, key, 'GET', '/auth/two_factor/')).json()).toEqual({
      enabled: true,
      recovery_codes_left: 10,
      required: false,
      has_password: true,
    })
    const members = await call(ctx.app, who.org.admin.key, 'GET', '/membership/')
    const byUser = new Map(
      members.json<{ data: { user_id: string; two_factor_enabled: boolean }[] }>().data.map((m) => [m.user_id, m]),
    )
    expect(byUser.get(who.org.member.id)?.two_factor_enabled).toBe(true)
    expect(byUser.get(who.org.admin.id)?.two_factor_enabled).toBe(false)
  })

  it('keeps working after the server’s secret key is rotated', async () => {
    const who = await person('Rotated key')
    const { secret } = await turnOn(await sessionKey(who))
    const current = ctx.config.secretBox
    const next = secretBoxFrom({ LEADLINE_SECRET_KEY: 'ff'.repeat(32) })
    if (current === null || next === null) throw new Error('no secret box')
    const counts = await ctx.database.db.transaction().execute((tx) => resealSecrets(tx, current, next))
    expect(counts.totp_secrets).toBeGreaterThanOrEqual(1)
    const rotated = await buildApp({
      database: ctx.database,
      config: { ...ctx.config, secretBox: next },
      clock: ctx.clock,
      logger: false,
    })
    try {
      const res = await call(rotated, undefined, 'POST', '/auth/sign_in/', {
        body: { email: who.email, password: PASSWORD, code: appCode(secret) },
        headers: { 'x-forwarded-for': who.address },
      })
      expect(res.statusCode, res.body).toBe(200)
    } finally {
      await rotated.close()
      await ctx.database.db.transaction().execute((tx) => resealSecrets(tx, next, current))
    }
  })

  it('answers 400 with the reason when the server has no secret key to seal the secret with', async () => {
    const keyless = await buildApp({
      database: ctx.database,
      config: { ...ctx.config, secretBox: null },
      clock: ctx.clock,
      logger: false,
    })
    try {
      const who = await person('No key')
      const res = await call(keyless, who.org.member.key, 'POST', '/auth/two_factor/setup/', {
        body: { password: PASSWORD },
      })
      expect(res.statusCode).toBe(400)
      expect(res.json().error).toMatch(/LEADLINE_SECRET_KEY/)
    } finally {
      await keyless.close()
    }
  })
})

describe('signing in with two-factor on', () => {
  it('asks for a code, refuses a wrong one, takes the right one, and never the same step twice', async () => {
    const who = await person('Signs in with a code')
    const { secret } = await turnOn(await sessionKey(who))

    const none = await signIn(who)
    expect(none.statusCode).toBe(401)
    expect(none.json()).toEqual({ error: NEEDED, two_factor: 'required' })
    const code = appCode(secret)
    const wrong = await signIn(who, { code: wrongCode(secret) })
    expect(wrong.statusCode).toBe(401)
    expect(wrong.json()).toEqual({ error: WRONG, two_factor: 'required' })
    // The wrong password with the right code is the password's refusal: the code says nothing.
    const wrongPassword = await signIn(who, { code }, 'not the password')
    expect(wrongPassword.statusCode).toBe(401)
    expect(wrongPassword.json().two_factor).toBeUndefined()

    const right = await signIn(who, { code: ` ${code.slice(0, 3)} ${code.slice(3)} ` })
    expect(right.statusCode, right.body).toBe(200)
    expect(right.json()).toMatchObject({ user_id: who.org.member.id, two_factor_setup_required: false })
    expect((await call(ctx.app, right.json<{ api_key: string }>().api_key, 'GET', '/me/')).statusCode).toBe(200)

    const replay = await signIn(who, { code })
    expect(replay.statusCode).toBe(401)
    expect(replay.json()).toEqual({ error: WRONG, two_factor: 'required' })
    // The step before is within the window, but older than the step used: refused too.
    expect((await signIn(who, { code: appCode(secret, -1) })).statusCode).toBe(401)
    nextStep()
    expect((await signIn(who, { code: appCode(secret) })).statusCode).toBe(200)
  })

  it('takes each recovery code once, in any case and with spaces, and a new set ends the old', async () => {
    const who = await person('Recovery codes')
    const key = await sessionKey(who)
    const { codes } = await turnOn(key)
    const [first, second, third] = codes
    if (first === undefined || second === undefined || third === undefined) throw new Error('no codes')

    const typed = ` ${first.toUpperCase().replace('-', ' ')} `
    expect((await signIn(who, { code: typed })).statusCode).toBe(200)
    const again = await signIn(who, { code: first })
    expect(again.statusCode).toBe(401)
    expect(again.json()).toEqual({ error: WRONG, two_factor: 'required' })
    expect((await call(ctx.app, key, 'GET', '/auth/two_factor/')).json()).toMatchObject({ recovery_codes_left: 9 })

    // Two sign-ins with the same code at once: one of them has it.
    const both = await Promise.all([signIn(who, { code: second }), signIn(who, { code: second })])
    expect(both.map((r) => r.statusCode).sort()).toEqual([200, 401])

    const refused = await call(ctx.app, key, 'POST', '/auth/two_factor/recovery_codes/', {
      body: { password: 'not my password' },
    })
    expect(refused.statusCode).toBe(400)
    const renewed = await call(ctx.app, key, 'POST', '/auth/two_factor/recovery_codes/', {
      body: { password: PASSWORD },
    })
    expect(renewed.statusCode).toBe(200)
    const fresh = renewed.json<{ recovery_codes: string[] }>().recovery_codes
    expect(fresh).toHaveLength(10)
    expect(fresh).not.toContain(third)
    expect((await signIn(who, { code: third })).statusCode).toBe(401)
    expect((await signIn(who, { code: fresh[0] })).statusCode).toBe(200)
    expect((await call(ctx.app, key, 'GET', '/auth/two_factor/')).json()).toMatchObject({ recovery_codes_left: 9 })
  })

  it('counts wrong codes as failed sign-ins: the account locks, even for the right code', async () => {
    const who = await person('Guessing codes')
    const { secret } = await turnOn(await sessionKey(who))
    let guess = 100000
    for (let i = 0; i < SIGN_IN_LIMITS.perAccount; i++) {
      const code = wrongCode(secret, guess)
      guess = Number(code) + 1
      // From ever-different addresses: the account's own count locks it.
      const res = await signIn({ ...who, address: `192.0.2.${String(50 + i)}` }, { code })
      expect(res.statusCode).toBe(401)
    }
    const locked = await signIn(who, { code: appCode(secret) })
    expect(locked.statusCode).toBe(429)
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0)
    ctx.clock.advance(SIGN_IN_LIMITS.windowSeconds * 1000)
    nextStep()
    expect((await signIn(who, { code: appCode(secret) })).statusCode).toBe(200)
  })

  it('validates the code’s length by field', async () => {
    const who = await person('Long code')
    const res = await signIn(who, { code: '1'.repeat(100) })
    expect(res.statusCode).toBe(400)
    expect(Object.keys(res.json()['field-errors'])).toEqual(['code'])
  })
})

describe('turning two-factor off', () => {
  it('needs the current password, and then signs in without a code', async () => {
    const who = await person('Turns off')
    const key = await sessionKey(who)
    await turnOn(key)
    const wrong = await call(ctx.app, key, 'POST', '/auth/two_factor/disable/', { body: { password: 'nope nope' } })
    expect(wrong.statusCode).toBe(400)
    expect(Object.keys(wrong.json()['field-errors'])).toEqual(['password'])
    expect((await signIn(who)).statusCode).toBe(401)
    const off = await call(ctx.app, key, 'POST', '/auth/two_factor/disable/', { body: { password: PASSWORD } })
    expect(off.statusCode).toBe(200)
    expect(off.json()).toEqual({})
    expect((await signIn(who)).statusCode).toBe(200)
    expect((await call(ctx.app, key, 'GET', '/auth/two_factor/')).json()).toEqual({
      enabled: false,
      recovery_codes_left: 0,
      required: false,
      has_password: true,
    })
    const noCodes = await call(ctx.app, key, 'POST', '/auth/two_factor/recovery_codes/', {
      body: { password: PASSWORD },
    })
    expect(noCodes.statusCode).toBe(400)
  })
})

describe('someone without a password (single sign-on only)', () => {
  it('proves it is them with a code of their second factor instead, counted like a sign-in', async () => {
    const org = await ctx.createOrg('Password-less')
    const key = org.member.key
    // Nothing to re-check when turning it on: they have no password, and no second factor yet.
    const { secret } = await turnOn(key, '')
    expect((await call(ctx.app, key, 'GET', '/auth/two_factor/')).json()).toMatchObject({
      enabled: true,
      has_password: false,
    })
    const bare = await call(ctx.app, key, 'POST', '/auth/two_factor/disable/', { body: { password: 'anything' } })
    expect(bare.statusCode).toBe(400)
    expect(bare.json()['field-errors']).toEqual({
      code: 'Enter a code from your authenticator app, or a recovery code.',
    })
    const wrong = await call(ctx.app, key, 'POST', '/auth/two_factor/recovery_codes/', {
      body: { code: wrongCode(secret) },
    })
    expect(wrong.json()['field-errors']).toEqual({ code: WRONG })
    const codes = await call(ctx.app, key, 'POST', '/auth/two_factor/recovery_codes/', {
      body: { code: appCode(secret) },
    })
    expect(codes.statusCode, codes.body).toBe(200)
    const [recovery = ''] = codes.json<{ recovery_codes: string[] }>().recovery_codes
    // The step just used does not prove it twice.
    const replay = await call(ctx.app, key, 'POST', '/auth/two_factor/disable/', { body: { code: appCode(secret) } })
    expect(replay.json()['field-errors']).toEqual({ code: WRONG })
    const off = await call(ctx.app, key, 'POST', '/auth/two_factor/disable/', { body: { code: recovery } })
    expect(off.statusCode, off.body).toBe(200)
    expect((await call(ctx.app, key, 'GET', '/auth/two_factor/')).json()).toMatchObject({ enabled: false })
  })
})

describe('the organization’s policy', () => {
  it('is an admin’s to read and set', async () => {
    const who = await person('Policy roles')
    expect((await call(ctx.app, who.org.admin.key, 'GET', '/auth/policy/')).json()).toEqual({
      require_two_factor: false,
    })
    for (const [method, body] of [
      ['GET', undefined],
      ['PUT', { require_two_factor: true }],
    ] as const) {
      const res = await call(ctx.app, who.org.member.key, method, '/auth/policy/', { body })
      expect(res.statusCode).toBe(403)
    }
    const bad = await call(ctx.app, who.org.admin.key, 'PUT', '/auth/policy/', { body: { require_two_factor: 'yes' } })
    expect(bad.statusCode).toBe(400)
    const set = await call(ctx.app, who.org.admin.key, 'PUT', '/auth/policy/', { body: { require_two_factor: true } })
    expect(set.json()).toEqual({ require_two_factor: true })
    expect((await call(ctx.app, who.org.admin.key, 'GET', '/auth/policy/')).json()).toEqual({
      require_two_factor: true,
    })
    // Another organization's policy is its own.
    expect((await call(ctx.app, ctx.other.admin.key, 'GET', '/auth/policy/')).json()).toEqual({
      require_two_factor: false,
    })
  })

  it('holds a member’s session key to turning it on, lifts that once it is on, and keeps it on', async () => {
    const who = await person('Policy on')
    const before = await sessionKey(who)
    expect((await call(ctx.app, before, 'GET', '/lead/')).statusCode).toBe(200)
    await call(ctx.app, who.org.admin.key, 'PUT', '/auth/policy/', { body: { require_two_factor: true } })

    // At once, for a session key verified a moment ago too.
    const held = await call(ctx.app, before, 'GET', '/lead/')
    expect(held.statusCode).toBe(403)
    expect(held.json()).toEqual({ error: RESTRICTED })
    const signedIn = await signIn(who)
    expect(signedIn.statusCode).toBe(200)
    expect(signedIn.json().two_factor_setup_required).toBe(true)
    const key = signedIn.json<{ api_key: string }>().api_key
    expect((await call(ctx.app, key, 'POST', '/lead/', { body: { name: 'Not yet' } })).statusCode).toBe(403)
    expect((await call(ctx.app, key, 'GET', '/auth/policy/')).statusCode).toBe(403)
    // What it takes to turn it on stays open.
    expect((await call(ctx.app, key, 'GET', '/me/')).statusCode).toBe(200)
    expect((await call(ctx.app, key, 'GET', '/auth/session/')).statusCode).toBe(200)
    expect((await call(ctx.app, key, 'GET', '/auth/two_factor/')).json()).toMatchObject({
      enabled: false,
      required: true,
    })
    // An API key someone made is not a sign-in: the policy does not hold it, but a session made with it is held.
    expect((await call(ctx.app, who.org.member.key, 'GET', '/lead/')).statusCode).toBe(200)
    const exchanged = await call(ctx.app, who.org.member.key, 'POST', '/auth/session/', { body: {} })
    expect(exchanged.json().two_factor_setup_required).toBe(true)
    expect((await call(ctx.app, exchanged.json<{ api_key: string }>().api_key, 'GET', '/lead/')).statusCode).toBe(403)

    const { secret } = await turnOn(key)
    expect((await call(ctx.app, key, 'GET', '/lead/')).statusCode).toBe(200)
    const withCode = await signIn(who, { code: appCode(secret) })
    expect(withCode.json().two_factor_setup_required).toBe(false)

    const off = await call(ctx.app, key, 'POST', '/auth/two_factor/disable/', { body: { password: PASSWORD } })
    expect(off.statusCode).toBe(400)
    expect(off.json().error).toMatch(/requires two-factor/)
    expect((await call(ctx.app, key, 'GET', '/auth/two_factor/')).json()).toMatchObject({ enabled: true })

    // The policy lifted: a member without two-factor is free again.
    const other = await person('Policy off')
    await call(ctx.app, other.org.admin.key, 'PUT', '/auth/policy/', { body: { require_two_factor: true } })
    const otherKey = await sessionKey(other)
    expect((await call(ctx.app, otherKey, 'GET', '/lead/')).statusCode).toBe(403)
    await call(ctx.app, other.org.admin.key, 'PUT', '/auth/policy/', { body: { require_two_factor: false } })
    expect((await call(ctx.app, otherKey, 'GET', '/lead/')).statusCode).toBe(200)
  })
})
