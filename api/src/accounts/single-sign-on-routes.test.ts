import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { provisionMember } from '../crm/organizations/provision.js'
import { randomBase62 } from '../platform/security/ids.js'
import { startTestProvider, type TestProvider } from '../tooling/test-support/oidc-provider.js'
import { call, createTestContext, type TestContext, type TestOrg } from '../tooling/test-support/test-app.js'
import { setPassword } from './account-repo.js'
import { createInvitation, INVITATION_INVALID } from './invitation-repo.js'
import { SINGLE_SIGN_ON_REQUIRED } from './single-sign-on-repo.js'
import { NO_MEMBER } from './single-sign-on-routes.js'
import { SIGN_IN_LIMITS } from './sign-in-throttle.js'

// Single sign-on against a real OpenID Connect provider (oidc-provider on a loopback port, which the api reaches as
// LEADLINE_OUTBOUND_ALLOW_PRIVATE lets it), on the database LEADLINE_TEST_DB names.

const REACH_LOOPBACK = { LEADLINE_OUTBOUND_ALLOW_PRIVATE: '1' }

const PASSWORD = 'quiet lantern orbit 7 maple'

let ctx: TestContext
let idp: TestProvider
beforeAll(async () => {
  ctx = await createTestContext({ env: REACH_LOOPBACK })
  idp = await startTestProvider(`${ctx.config.appUrl}/auth/sso/callback`)
})
afterAll(async () => {
  await idp.close()
  await ctx.close()
})

interface SsoOrg {
  org: TestOrg
  domain: string
  /** A plain member at the domain, with PASSWORD, signed in at the provider as `login`. */
  rep: { id: string; email: string; membershipId: string; login: string }
  admin: { id: string; email: string; login: string }
}

let seq = 0
/** An organization whose provider is the test provider, covering a domain of its own. */
async function ssoOrg(extra: { required?: boolean } = {}): Promise<SsoOrg> {
  const org = await ctx.createOrg(`SSO ${String(++seq)}`)
  const domain = `sso-${randomBase62(8).toLowerCase()}.test`
  const rep = await provisionMember(ctx.database.db, ctx.clock, {
    organizationId: org.id,
    email: `rey@${domain}`,
    role: 'user',
  })
  const admin = await provisionMember(ctx.database.db, ctx.clock, {
    organizationId: org.id,
    email: `ada@${domain}`,
    role: 'admin',
  })
  await setPassword(ctx.database.db, ctx.clock, rep.user_id, PASSWORD)
  await setPassword(ctx.database.db, ctx.clock, admin.user_id, PASSWORD)
  const res = await call(ctx.app, org.admin.key, 'PUT', '/auth/sso/', {
    body: {
      enabled: true,
      required: extra.required ?? false,
      issuer: idp.issuer,
      client_id: idp.clientId,
      client_secret: idp.clientSecret,
      domains: [domain.toUpperCase()],
    },
  })
  expect(res.statusCode, res.body).toBe(200)
  const repLogin = `rep-${domain}`
  const adminLogin = `admin-${domain}`
  idp.accounts.set(repLogin, { email: `REY@${domain}`, email_verified: true })
  idp.accounts.set(adminLogin, { email: `ada@${domain}`, email_verified: true })
  return {
    org,
    domain,
    rep: { id: rep.user_id, email: `rey@${domain}`, membershipId: rep.membership_id, login: repLogin },
    admin: { id: admin.user_id, email: `ada@${domain}`, login: adminLogin },
  }
}

async function start(email: string): Promise<string> {
  const res = await call(ctx.app, undefined, 'POST', '/auth/sso/start/', { body: { email } })
  expect(res.statusCode, res.body).toBe(200)
  return res.json<{ authorization_url: string }>().authorization_url
}

function finish(callbackUrl: string, address = '198.51.100.40') {
  return call(ctx.app, undefined, 'POST', '/auth/sso/finish/', {
    body: { callback_url: callbackUrl, description: 'Firefox on Linux' },
    headers: { 'x-forwarded-for': address },
  })
}

describe('signing in through the organization’s provider', () => {
  it('answers a session key for the member with the provider’s verified email', async () => {
    const { org, rep } = await ssoOrg()
    const authorizationUrl = await start(rep.email)
    const url = new URL(authorizationUrl)
    expect(url.origin).toBe(idp.issuer)
    expect(url.searchParams.get('redirect_uri')).toBe(`${ctx.config.appUrl}/auth/sso/callback`)
    expect(url.searchParams.get('scope')).toBe('openid email profile')
    expect(url.searchParams.get('code_challenge_method')).toBe('S256')
    expect(url.searchParams.get('nonce')).toBeTruthy()
    const callbackUrl = await idp.signIn(authorizationUrl, rep.login)
    expect(new URL(callbackUrl).searchParams.get('code')).toBeTruthy()
    const res = await finish(callbackUrl)
    expect(res.statusCode, res.body).toBe(200)
    const body = res.json<{ api_key: string; user_id: string; organization_id: string }>()
    expect(body).toMatchObject({ user_id: rep.id, organization_id: org.id })
    const me = await call(ctx.app, body.api_key, 'GET', '/me/')
    expect(me.statusCode).toBe(200)
    expect(me.json().id).toBe(rep.id)
    const sessions = await call(ctx.app, body.api_key, 'GET', '/auth/session/')
    expect(sessions.json().data).toEqual([expect.objectContaining({ description: 'Firefox on Linux', current: true })])
  })

  it('refuses a state used once already', async () => {
    const { rep } = await ssoOrg()
    const callbackUrl = await idp.signIn(await start(rep.email), rep.login)
    expect((await finish(callbackUrl)).statusCode).toBe(200)
    const again = await finish(callbackUrl)
    expect(again.statusCode).toBe(401)
    expect(again.json().error).toMatch(/expired or was already used/)
  })

  it('refuses a state over ten minutes old', async () => {
    const { rep } = await ssoOrg()
    const callbackUrl = await idp.signIn(await start(rep.email), rep.login)
    ctx.clock.advance(10 * 60 * 1000 + 1000)
    const res = await finish(callbackUrl)
    expect(res.statusCode).toBe(401)
    expect(res.json().error).toMatch(/expired or was already used/)
  })

  it('refuses a state it never began, and a URL with none', async () => {
    const { rep } = await ssoOrg()
    const callbackUrl = new URL(await idp.signIn(await start(rep.email), rep.login))
    callbackUrl.searchParams.set('state', 'made-up')
    expect((await finish(callbackUrl.href)).statusCode).toBe(401)
    callbackUrl.searchParams.delete('state')
    expect((await finish(callbackUrl.href)).statusCode).toBe(401)
    expect((await finish('not a url')).statusCode).toBe(400)
  })

  it('refuses an email the provider has not verified', async () => {
    const { rep, domain } = await ssoOrg()
    idp.accounts.set(rep.login, { email: rep.email, email_verified: false })
    const res = await finish(await idp.signIn(await start(`someone@${domain}`), rep.login))
    expect(res.statusCode).toBe(401)
    expect(res.json().error).toBe('The identity provider has not verified your email address.')
  })

  it('refuses an address no member of the organization uses, even one of another organization’s', async () => {
    const { domain } = await ssoOrg()
    idp.accounts.set(`stranger-${domain}`, { email: `stranger@${domain}`, email_verified: true })
    const stranger = await finish(await idp.signIn(await start(`x@${domain}`), `stranger-${domain}`))
    expect(stranger.statusCode).toBe(401)
    expect(stranger.json()).toEqual({ error: NO_MEMBER })
    const outsider = (await call(ctx.app, ctx.org.member.key, 'GET', '/me/')).json<{ email: string }>().email
    idp.accounts.set(`outsider-${domain}`, { email: outsider, email_verified: true })
    const res = await finish(await idp.signIn(await start(`x@${domain}`), `outsider-${domain}`))
    expect(res.statusCode).toBe(401)
    expect(res.json()).toEqual({ error: NO_MEMBER })
  })

  it('refuses a deactivated member', async () => {
    const { org, rep } = await ssoOrg()
    const off = await call(ctx.app, org.admin.key, 'POST', `/membership/${rep.membershipId}/deactivate/`, { body: {} })
    expect(off.statusCode, off.body).toBe(200)
    const res = await finish(await idp.signIn(await start(rep.email), rep.login))
    expect(res.statusCode).toBe(401)
    expect(res.json()).toEqual({ error: NO_MEMBER })
  })

  it('is not offered for a domain no organization covers, nor once turned off', async () => {
    const { org, domain } = await ssoOrg()
    const available = (email: string) =>
      call(ctx.app, undefined, 'GET', '/auth/sso/available/', { query: { email } }).then((r) => r.json())
    expect(await available(`anyone@${domain.toUpperCase()}`)).toEqual({ available: true })
    expect(await available('anyone@elsewhere.test')).toEqual({ available: false })
    expect(await available('not an email')).toEqual({ available: false })
    const nowhere = await call(ctx.app, undefined, 'POST', '/auth/sso/start/', { body: { email: 'a@elsewhere.test' } })
    expect(nowhere.statusCode).toBe(400)
    expect(nowhere.json()['field-errors']).toEqual({ email: 'Single sign-on is not set up for elsewhere.test.' })
    const config = (await call(ctx.app, org.admin.key, 'GET', '/auth/sso/')).json<Record<string, unknown>>()
    const { has_client_secret: _has, redirect_uri: _uri, ...put } = config
    expect(
      (await call(ctx.app, org.admin.key, 'PUT', '/auth/sso/', { body: { ...put, enabled: false } })).statusCode,
    ).toBe(200)
    expect(await available(`anyone@${domain}`)).toEqual({ available: false })
  })
})

describe('accepting an invitation through single sign-on', () => {
  async function invitation(org: TestOrg, email: string, role: 'admin' | 'user' = 'user'): Promise<string> {
    const { token } = await ctx.database.db
      .transaction()
      .execute((tx) =>
        createInvitation(tx, ctx.database.dialect, ctx.clock, { organizationId: org.id, email, role, invitedBy: null }),
      )
    return token
  }

  async function startFrom(token: string) {
    return call(ctx.app, undefined, 'POST', '/auth/sso/start/', { body: { invitation: token } })
  }

  it('is offered by the lookup, and a new person joins with the provider’s names and no password', async () => {
    const { org, domain } = await ssoOrg()
    const email = `newbie@${domain}`
    const token = await invitation(org, email, 'admin')
    const seen = await call(ctx.app, undefined, 'POST', '/auth/invitation/lookup/', { body: { token } })
    expect(seen.json()).toMatchObject({ email, existing_user: false, single_sign_on: true })
    idp.accounts.set(`newbie-${domain}`, { email, email_verified: true, given_name: ' Nia ', family_name: 'Newbie' })
    const started = await startFrom(token)
    expect(started.statusCode, started.body).toBe(200)
    const res = await finish(await idp.signIn(started.json().authorization_url, `newbie-${domain}`))
    expect(res.statusCode, res.body).toBe(200)
    const session = res.json<{ api_key: string; organization_id: string }>()
    expect(session.organization_id).toBe(org.id)
    const me = (await call(ctx.app, session.api_key, 'GET', '/me/')).json()
    expect(me).toMatchObject({ email, first_name: 'Nia', last_name: 'Newbie' })
    expect(me.memberships).toEqual([expect.objectContaining({ organization_id: org.id, role_id: 'admin' })])
    const user = await ctx.database.db
      .selectFrom('user')
      .select('password_hash')
      .where('email_lower', '=', email)
      .executeTakeFirstOrThrow()
    expect(user.password_hash).toBeNull()
    // The link is used up: looked up or started again, it is refused.
    expect((await call(ctx.app, undefined, 'POST', '/auth/invitation/lookup/', { body: { token } })).statusCode).toBe(
      400,
    )
    const again = await startFrom(token)
    expect(again.statusCode).toBe(400)
    expect(again.json()).toEqual({ error: INVITATION_INVALID })
  })

  it('lets a person with an account in another organization join, keeping their names', async () => {
    const { org, domain } = await ssoOrg()
    const other = await ctx.createOrg('Elsewhere')
    const email = `roamer@${domain}`
    const roamer = await provisionMember(ctx.database.db, ctx.clock, { organizationId: other.id, email, role: 'user' })
    await ctx.database.db.updateTable('user').set({ first_name: 'Rom' }).where('id', '=', roamer.user_id).execute()
    const token = await invitation(org, email)
    idp.accounts.set(`roamer-${domain}`, { email, email_verified: true, given_name: 'Ignored' })
    const res = await finish(await idp.signIn((await startFrom(token)).json().authorization_url, `roamer-${domain}`))
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toMatchObject({ user_id: roamer.user_id, organization_id: org.id })
    const me = (await call(ctx.app, res.json().api_key, 'GET', '/me/')).json()
    expect(me.first_name).toBe('Rom')
  })

  it('refuses another address than the invitation’s, and the link still works afterwards', async () => {
    const { org, domain, rep } = await ssoOrg()
    const email = `invited@${domain}`
    const token = await invitation(org, email)
    const wrong = await finish(await idp.signIn((await startFrom(token)).json().authorization_url, rep.login))
    expect(wrong.statusCode).toBe(401)
    expect(wrong.json().error).toBe(
      `The identity provider signed you in as ${rep.email}, but the invitation is for ${email}.`,
    )
    idp.accounts.set(`invited-${domain}`, { email, email_verified: true })
    const right = await finish(await idp.signIn((await startFrom(token)).json().authorization_url, `invited-${domain}`))
    expect(right.statusCode, right.body).toBe(200)
  })

  it('refuses an invitation revoked while the person was at the provider', async () => {
    const { org, domain } = await ssoOrg()
    const email = `late@${domain}`
    const token = await invitation(org, email)
    const authorizationUrl = (await startFrom(token)).json().authorization_url
    await ctx.database.db
      .updateTable('invitation')
      .set({ date_revoked: '2026-01-01T00:00:00.000000+00:00' })
      .where('email_lower', '=', email)
      .execute()
    idp.accounts.set(`late-${domain}`, { email, email_verified: true })
    const res = await finish(await idp.signIn(authorizationUrl, `late-${domain}`))
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual({ error: INVITATION_INVALID })
    const user = await ctx.database.db
      .selectFrom('user')
      .select('id')
      .where('email_lower', '=', email)
      .executeTakeFirst()
    expect(user).toBeUndefined()
  })

  it('cannot start from an unknown link, nor for an organization without single sign-on', async () => {
    expect((await startFrom('x'.repeat(43))).json()).toEqual({ error: INVITATION_INVALID })
    expect((await startFrom('x'.repeat(101))).statusCode).toBe(400)
    const token = await invitation(ctx.org, `plain-${String(Date.now())}@example.com`)
    const seen = await call(ctx.app, undefined, 'POST', '/auth/invitation/lookup/', { body: { token } })
    expect(seen.json().single_sign_on).toBe(false)
    expect((await startFrom(token)).statusCode).toBe(404)
  })
})

describe('throttling', () => {
  it('refuses an address after its failed finishes, at start and at finish, with 429', async () => {
    const { rep } = await ssoOrg()
    const address = '198.51.100.77'
    const made = new URL(await idp.signIn(await start(rep.email), rep.login))
    made.searchParams.set('state', 'never-begun')
    for (let i = 0; i < SIGN_IN_LIMITS.perAccount; i++) expect((await finish(made.href, address)).statusCode).toBe(401)
    expect((await finish(made.href, address)).statusCode).toBe(429)
    const begin = await call(ctx.app, undefined, 'POST', '/auth/sso/start/', {
      body: { email: rep.email },
      headers: { 'x-forwarded-for': address },
    })
    expect(begin.statusCode).toBe(429)
    expect(begin.headers['retry-after']).toBeDefined()
    expect((await finish(made.href, '198.51.100.78')).statusCode).toBe(401)
  })
})

describe('requiring single sign-on', () => {
  it('refuses a member’s password sign-in once the password matched, and lets an admin in', async () => {
    const { rep, admin } = await ssoOrg({ required: true })
    const signIn = (email: string, password: string) =>
      call(ctx.app, undefined, 'POST', '/auth/sign_in/', {
        body: { email, password },
        headers: { 'x-forwarded-for': '198.51.100.41' },
      })
    const refused = await signIn(rep.email, PASSWORD)
    expect(refused.statusCode).toBe(401)
    expect(refused.json()).toEqual({ error: SINGLE_SIGN_ON_REQUIRED })
    const wrong = await signIn(rep.email, 'not the password at all')
    expect(wrong.json().error).not.toBe(SINGLE_SIGN_ON_REQUIRED)
    expect((await signIn(admin.email, PASSWORD)).statusCode).toBe(200)
    expect((await finish(await idp.signIn(await start(rep.email), rep.login))).statusCode).toBe(200)
  })
})

describe('the configuration', () => {
  it('is an admin’s to read and change, and never shows the client secret', async () => {
    const { org, domain } = await ssoOrg()
    expect((await call(ctx.app, org.member.key, 'GET', '/auth/sso/')).statusCode).toBe(403)
    const memberPut = await call(ctx.app, org.member.key, 'PUT', '/auth/sso/', {
      body: { enabled: false, required: false, issuer: idp.issuer, client_id: 'x', domains: [] },
    })
    expect(memberPut.statusCode).toBe(403)
    const res = await call(ctx.app, org.admin.key, 'GET', '/auth/sso/')
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({
      enabled: true,
      required: false,
      issuer: idp.issuer,
      client_id: idp.clientId,
      has_client_secret: true,
      domains: [domain],
      redirect_uri: `${ctx.config.appUrl}/auth/sso/callback`,
    })
    expect(res.body).not.toContain(idp.clientSecret)
    const stored = await ctx.database.db
      .selectFrom('single_sign_on')
      .select('client_secret')
      .where('organization_id', '=', org.id)
      .executeTakeFirstOrThrow()
    expect(stored.client_secret).toMatch(/^v1:/)
    expect(stored.client_secret).not.toContain(idp.clientSecret)
  })

  it('keeps the stored secret when none is sent, and still signs in with it', async () => {
    const { org, rep, domain } = await ssoOrg()
    const res = await call(ctx.app, org.admin.key, 'PUT', '/auth/sso/', {
      body: {
        enabled: true,
        required: false,
        issuer: idp.issuer,
        client_id: idp.clientId,
        client_secret: '',
        domains: [domain],
      },
    })
    expect(res.json().has_client_secret).toBe(true)
    expect((await finish(await idp.signIn(await start(rep.email), rep.login))).statusCode).toBe(200)
  })

  it('gives each domain to one organization at most', async () => {
    const first = await ssoOrg()
    const second = await ssoOrg()
    const res = await call(ctx.app, second.org.admin.key, 'PUT', '/auth/sso/', {
      body: {
        enabled: true,
        required: false,
        issuer: idp.issuer,
        client_id: idp.clientId,
        domains: [second.domain, first.domain],
      },
    })
    expect(res.statusCode).toBe(400)
    expect(res.json()['field-errors'].domains).toContain(first.domain)
  })

  it('checks the issuer, its discovery document, the domains and the secret', async () => {
    const org = await ctx.createOrg('Checks')
    const put = (body: Record<string, unknown>) =>
      call(ctx.app, org.admin.key, 'PUT', '/auth/sso/', {
        body: { enabled: true, required: false, issuer: idp.issuer, client_id: 'c', domains: ['checks.test'], ...body },
      })
    const fieldErrors = async (body: Record<string, unknown>) => {
      const res = await put(body)
      expect(res.statusCode).toBe(400)
      return res.json()['field-errors'] as Record<string, string>
    }
    expect((await fieldErrors({ issuer: 'http://idp.example.com' })).issuer).toMatch(/https/)
    expect((await fieldErrors({ issuer: 'nonsense' })).issuer).toMatch(/issuer/)
    expect((await fieldErrors({ issuer: `${idp.issuer}/not-an-issuer` })).issuer).toMatch(/No OpenID Connect provider/)
    expect((await fieldErrors({ domains: ['not a domain'] })).domains).toMatch(/not a domain/)
    expect(
      (await fieldErrors({ domains: Array.from({ length: 21 }, (_, i) => `d${String(i)}.test`) })).domains,
    ).toMatch(/20/)
    expect((await fieldErrors({})).client_secret).toMatch(/client secret/)
    expect((await put({ enabled: false })).statusCode).toBe(200)
  })

  it('reaches no provider on a private address unless the server allows it', async () => {
    const guarded = await createTestContext()
    try {
      const put = (issuer: string) =>
        call(guarded.app, guarded.org.admin.key, 'PUT', '/auth/sso/', {
          body: { enabled: false, required: false, issuer, client_id: 'c', domains: [] },
        })
      const loopback = await put(idp.issuer)
      expect(loopback.statusCode).toBe(400)
      expect(loopback.json()['field-errors'].issuer).toMatch(/https/)
      const inside = await put(`https://localhost:${new URL(idp.issuer).port}`)
      expect(inside.statusCode).toBe(400)
      expect(inside.json()['field-errors'].issuer).toMatch(/private address/)
    } finally {
      await guarded.close()
    }
  })

  it('cannot store a client secret on a server without LEADLINE_SECRET_KEY', async () => {
    const keyless = await createTestContext({ env: { ...REACH_LOOPBACK, LEADLINE_SECRET_KEY: '' } })
    try {
      const res = await call(keyless.app, keyless.org.admin.key, 'PUT', '/auth/sso/', {
        body: {
          enabled: true,
          required: false,
          issuer: idp.issuer,
          client_id: idp.clientId,
          client_secret: idp.clientSecret,
          domains: ['keyless.test'],
        },
      })
      expect(res.statusCode).toBe(400)
      expect(res.json()['field-errors'].client_secret).toMatch(/LEADLINE_SECRET_KEY/)
    } finally {
      await keyless.close()
    }
  })
})
