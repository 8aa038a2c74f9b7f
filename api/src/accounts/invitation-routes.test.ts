import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { accountMailScene, type AccountMailScene } from '../tooling/test-support/account-mail.js'
import { call, type TestContext, type TestOrg } from '../tooling/test-support/test-app.js'
import { provisionMember } from '../crm/organizations/provision.js'
import { setPassword } from './account-repo.js'
import { INVITATION_INVALID, INVITATIONS_PER_HOUR } from './invitation-repo.js'
import { NO_SYSTEM_MAILER } from './system-mail.js'

// Invitations, on the database LEADLINE_TEST_DB names: an admin invites an address, the link arrives at a real SMTP
// server (the system mailer), and following it makes a member who is signed in; the link works once, for 7 days,
// until it is resent or revoked.

const PASSWORD = 'quiet lantern orbit 7 maple'
const OTHER_PASSWORD = 'brisk harbor violet 42 canyon'
const DAY_MS = 24 * 3_600_000

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

/** An address no one has used yet. */
function newAddress(): string {
  n += 1
  return `invitee-${String(n)}-${String(Date.now())}@example.com`
}

async function invite(org: TestOrg, email: string, role = 'user') {
  return call(ctx.app, org.admin.key, 'POST', '/invitation/', { body: { email, role_id: role } })
}

async function invited(org: TestOrg, email: string, role = 'user'): Promise<{ id: string; token: string }> {
  const res = await invite(org, email, role)
  expect(res.statusCode, res.body).toBe(200)
  const tokens = await scene.tokensTo(email, 'accept-invitation')
  const token = tokens.at(-1)
  if (token === undefined) throw new Error('no invitation arrived')
  return { id: res.json<{ id: string }>().id, token }
}

const lookup = (token: string) => call(ctx.app, undefined, 'POST', '/auth/invitation/lookup/', { body: { token } })

const accept = (token: string, body: Record<string, unknown> = {}) =>
  call(ctx.app, undefined, 'POST', '/auth/invitation/accept/', {
    body: { token, first_name: 'Ivy', last_name: 'Invitee', password: PASSWORD, ...body },
    headers: { 'x-forwarded-for': '198.51.100.20' },
  })

const signIn = (email: string, password: string, organizationId?: string) =>
  call(ctx.app, undefined, 'POST', '/auth/sign_in/', {
    body: { email, password, ...(organizationId === undefined ? {} : { organization_id: organizationId }) },
    headers: { 'x-forwarded-for': '198.51.100.21' },
  })

function expectInvalid(res: { statusCode: number; json: () => unknown }) {
  expect(res.statusCode).toBe(400)
  expect(res.json()).toEqual({ error: INVITATION_INVALID })
}

async function fieldErrors(res: { statusCode: number; body: string; json: () => unknown }) {
  expect(res.statusCode, res.body).toBe(400)
  return (res.json() as { 'field-errors': Record<string, string> })['field-errors']
}

describe('inviting someone new', () => {
  it('emails a link that shows the invitation, and accepting it makes a member who is signed in and signs in again', async () => {
    const org = await ctx.createOrg('Welcoming Co')
    const email = newAddress()
    const res = await invite(org, email, 'admin')
    expect(res.statusCode, res.body).toBe(200)
    const invitation = res.json()
    expect(invitation).toMatchObject({
      organization_id: org.id,
      email,
      role_id: 'admin',
      status: 'pending',
      invited_by: org.admin.id,
      invited_by_name: 'Ada Admin',
      date_accepted: null,
    })
    expect(invitation.id).toMatch(/^inv_[A-Za-z0-9]{43}$/)
    expect(Date.parse(invitation.date_expires) - Date.parse(invitation.date_created)).toBeCloseTo(7 * DAY_MS, -3)

    const [mail] = await scene.mailsTo(email)
    expect(mail?.parsed.subject).toBe('You are invited to Welcoming Co on Leadline')
    expect(mail?.mailFrom).toBe('no-reply@crm.example.com')
    expect(mail?.parsed.text).toContain('Ada Admin invited you to join Welcoming Co on Leadline, as an admin.')
    const [token] = await scene.tokensTo(email, 'accept-invitation')
    expect(token).toHaveLength(43)
    // The token waited in the outbox row only until it was sent; the invitation keeps only its hash.
    const rows = await ctx.database.db.selectFrom('outbox').select('payload').where('kind', '=', 'invitation').execute()
    for (const row of rows) expect(row.payload).not.toContain(token)
    const stored = await ctx.database.db
      .selectFrom('invitation')
      .select('token_hash')
      .where('id', '=', invitation.id)
      .executeTakeFirstOrThrow()
    expect(stored.token_hash).toMatch(/^[0-9a-f]{64}$/)

    const seen = await lookup(token ?? '')
    expect(seen.statusCode, seen.body).toBe(200)
    expect(seen.json()).toEqual({
      email,
      organization_name: 'Welcoming Co',
      existing_user: false,
      single_sign_on: false,
    })

    const joined = await accept(token ?? '', { description: 'Firefox on Linux' })
    expect(joined.statusCode, joined.body).toBe(200)
    const session = joined.json()
    expect(session).toMatchObject({ organization_id: org.id })
    const me = await call(ctx.app, session.api_key, 'GET', '/me/')
    expect(me.json()).toMatchObject({ id: session.user_id, email, first_name: 'Ivy', last_name: 'Invitee' })
    const members = await call(ctx.app, org.admin.key, 'GET', '/membership/')
    expect(members.json().data).toContainEqual(
      expect.objectContaining({
        user_id: session.user_id,
        role_id: 'admin',
        status: 'active',
        two_factor_enabled: false,
      }),
    )
    const again = await signIn(email.toUpperCase(), PASSWORD)
    expect(again.statusCode, again.body).toBe(200)
    expect(again.json()).toMatchObject({ user_id: session.user_id, organization_id: org.id })

    const after = await call(ctx.app, org.admin.key, 'GET', `/invitation/${String(invitation.id)}/`)
    expect(after.json()).toMatchObject({ status: 'accepted', date_accepted: expect.any(String) })
    const list = await call(ctx.app, org.admin.key, 'GET', '/invitation/')
    expect(list.json().data.map((i: { id: string }) => i.id)).not.toContain(invitation.id)
  })

  it('works once: the accepted link is refused when looked up or accepted again', async () => {
    const { token } = await invited(ctx.org, newAddress())
    expect((await accept(token)).statusCode).toBe(200)
    expectInvalid(await lookup(token))
    expectInvalid(await accept(token, { password: OTHER_PASSWORD }))
  })

  it('of two accepts at once, one wins', async () => {
    const { token } = await invited(ctx.org, newAddress())
    const answers = await Promise.all([accept(token), accept(token)])
    expect(answers.map((res) => res.statusCode).sort()).toEqual([200, 400])
  })

  it('needs names and a strong password that is not made of them, before anything is used up', async () => {
    const email = newAddress()
    const { token } = await invited(ctx.org, email)
    expect(
      await fieldErrors(await accept(token, { first_name: ' ', last_name: undefined, password: 'short' })),
    ).toEqual({
      first_name: 'Enter your first name.',
      last_name: 'Enter your last name.',
      password: 'Use at least 12 characters.',
    })
    // The person's own address is a known word to the strength check.
    const weak = await fieldErrors(await accept(token, { password: email }))
    expect(weak.password).toMatch(/^This password is too easy to guess\./)
    expect(Object.keys(weak)).toEqual(['password'])
    expect((await accept(token)).statusCode).toBe(200)
  })

  it('refuses a link past its 7 days, and the list shows it expired until it is resent', async () => {
    const email = newAddress()
    const { id, token } = await invited(ctx.org, email)
    ctx.clock.advance(7 * DAY_MS + 1000)
    expectInvalid(await lookup(token))
    expectInvalid(await accept(token))
    const list = await call(ctx.app, ctx.org.admin.key, 'GET', '/invitation/')
    expect(list.json().data).toContainEqual(expect.objectContaining({ id, status: 'expired' }))
    const resent = await call(ctx.app, ctx.org.admin.key, 'POST', `/invitation/${id}/resend/`)
    expect(resent.statusCode, resent.body).toBe(200)
    expect(resent.json()).toMatchObject({ status: 'pending' })
    const tokens = await scene.tokensTo(email, 'accept-invitation')
    expect(tokens).toHaveLength(2)
    expect((await lookup(tokens[1] ?? '')).statusCode).toBe(200)
  })

  it('resending makes a new link and the old one stops working; not twice within a minute', async () => {
    const email = newAddress()
    const { id, token } = await invited(ctx.org, email)
    const soon = await call(ctx.app, ctx.org.admin.key, 'POST', `/invitation/${id}/resend/`)
    expect(soon.statusCode).toBe(400)
    expect(soon.json().error).toMatch(/^This invitation was sent moments ago: wait \d+ seconds/)
    ctx.clock.advance(61_000)
    const resent = await call(ctx.app, ctx.org.admin.key, 'POST', `/invitation/${id}/resend/`)
    expect(resent.statusCode, resent.body).toBe(200)
    const tokens = await scene.tokensTo(email, 'accept-invitation')
    expect(tokens).toHaveLength(2)
    expect(tokens[1]).not.toBe(token)
    expectInvalid(await lookup(token))
    expectInvalid(await accept(token))
    expect((await accept(tokens[1] ?? '')).statusCode).toBe(200)
    const late = await call(ctx.app, ctx.org.admin.key, 'POST', `/invitation/${id}/resend/`)
    expect(late.json()).toEqual({ error: 'This invitation was accepted: it cannot be sent again.' })
  })

  it('revoking stops its link, and an email not sent yet is not sent at all', async () => {
    const { id, token } = await invited(ctx.org, newAddress())
    const revoked = await call(ctx.app, ctx.org.admin.key, 'DELETE', `/invitation/${id}/`)
    expect(revoked.statusCode, revoked.body).toBe(200)
    expect(revoked.json()).toEqual({})
    expectInvalid(await lookup(token))
    expectInvalid(await accept(token))
    const list = await call(ctx.app, ctx.org.admin.key, 'GET', '/invitation/')
    expect(list.json().data.map((i: { id: string }) => i.id)).not.toContain(id)

    const unsent = newAddress()
    const res = await invite(ctx.org, unsent)
    await call(ctx.app, ctx.org.admin.key, 'DELETE', `/invitation/${res.json<{ id: string }>().id}/`)
    expect(await scene.mailsTo(unsent)).toEqual([])
    const row = await ctx.database.db
      .selectFrom('outbox')
      .select(['status', 'payload', 'last_error'])
      .where('ordering_key', '=', `invitation:${res.json<{ id: string }>().id}`)
      .executeTakeFirstOrThrow()
    expect(row.status).toBe('failed')
    expect(row.last_error).toContain('nothing was sent')
    expect(JSON.parse(row.payload)).toMatchObject({ token: null })
  })

  it('refuses a link whose address became a member by other means meanwhile', async () => {
    const email = newAddress()
    const { token } = await invited(ctx.org, email)
    await provisionMember(ctx.database.db, ctx.clock, { organizationId: ctx.org.id, email, role: 'user' })
    expectInvalid(await accept(token, { password: 'anything at all 12' }))
  })
})

describe('inviting someone who has an account', () => {
  it('adds a membership when they give their current password, and refuses a wrong one', async () => {
    const home = await ctx.createOrg('Home Org')
    await setPassword(ctx.database.db, ctx.clock, home.member.id, PASSWORD)
    const user = await ctx.database.db
      .selectFrom('user')
      .select('email')
      .where('id', '=', home.member.id)
      .executeTakeFirstOrThrow()
    const { token } = await invited(ctx.org, user.email)
    expect((await lookup(token)).json()).toMatchObject({ email: user.email, existing_user: true })
    expect(await fieldErrors(await accept(token, { password: OTHER_PASSWORD }))).toEqual({
      password: 'That is not the password of this account.',
    })
    const joined = await accept(token, { first_name: 'Ignored', last_name: 'Names' })
    expect(joined.statusCode, joined.body).toBe(200)
    expect(joined.json()).toMatchObject({ user_id: home.member.id, organization_id: ctx.org.id })
    const me = await call(ctx.app, joined.json().api_key, 'GET', '/me/')
    expect(me.json()).toMatchObject({ first_name: 'Rey', last_name: 'Rep' })
    expect((await signIn(user.email, PASSWORD, ctx.org.id)).statusCode).toBe(200)
    expect((await signIn(user.email, PASSWORD, home.id)).statusCode).toBe(200)
  })
})

describe('what an invitation is refused for', () => {
  it('refuses on email an address that is no address, a member’s, a deactivated member’s, or invited and pending', async () => {
    const org = await ctx.createOrg('Picky Co')
    const rep = await ctx.database.db
      .selectFrom('user')
      .select('email')
      .where('id', '=', org.member.id)
      .executeTakeFirstOrThrow()
    expect(await fieldErrors(await invite(org, 'not an address'))).toEqual({ email: 'Enter a valid email address.' })
    expect(await fieldErrors(await invite(org, rep.email.toUpperCase()))).toEqual({
      email: `${rep.email.toUpperCase()} is already a member.`,
    })
    const email = newAddress()
    expect((await invite(org, email)).statusCode).toBe(200)
    expect(await fieldErrors(await invite(org, ` ${email} `))).toEqual({
      email: `${email} was already invited; resend that invitation.`,
    })
    expect(await fieldErrors(await invite(org, newAddress(), 'owner'))).toEqual({ role_id: 'Choose admin or user.' })
    await call(ctx.app, org.admin.key, 'POST', `/membership/${org.member.membershipId}/deactivate/`)
    expect(await fieldErrors(await invite(org, rep.email))).toEqual({
      email: `${rep.email} is a deactivated member; reactivate them under Users.`,
    })
    // The address is still free in another organization.
    expect((await invite(ctx.other, email)).statusCode).toBe(200)
  })

  it('is an admin’s: a member gets 403, and another organization’s invitation is a 404', async () => {
    const { id } = await invited(ctx.org, newAddress())
    for (const [method, path] of [
      ['GET', '/invitation/'],
      ['POST', '/invitation/'],
      ['GET', `/invitation/${id}/`],
      ['POST', `/invitation/${id}/resend/`],
      ['DELETE', `/invitation/${id}/`],
    ] as const) {
      const res = await call(ctx.app, ctx.org.member.key, method, path, { body: { email: newAddress() } })
      expect(res.statusCode, `${method} ${path}`).toBe(403)
    }
    for (const key of [ctx.other.admin.key, ctx.other.member.key]) {
      expect((await call(ctx.app, key, 'GET', `/invitation/${id}/`)).statusCode).toBe(404)
      expect((await call(ctx.app, key, 'DELETE', `/invitation/${id}/`)).statusCode).toBe(404)
    }
    expect((await call(ctx.app, ctx.org.admin.key, 'GET', `/invitation/${id}/`)).json()).toMatchObject({
      status: 'pending',
    })
  })

  it(`sends at most ${String(INVITATIONS_PER_HOUR)} invitation emails an hour per organization`, async () => {
    const org = await ctx.createOrg('Eager Co')
    for (let i = 0; i < INVITATIONS_PER_HOUR; i += 1) expect((await invite(org, newAddress())).statusCode).toBe(200)
    const over = await invite(org, newAddress())
    expect(over.statusCode).toBe(429)
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(3500)
    expect((await invite(ctx.other, newAddress())).statusCode).toBe(200)
    ctx.clock.advance(3_600_000)
    expect((await invite(org, newAddress())).statusCode).toBe(200)
  })
})

describe('without a system mailer', () => {
  it('still makes the invitation, and its email settles failed saying why, its token blanked', async () => {
    const bare = await accountMailScene({ LEADLINE_SYSTEM_SMTP_URL: '' })
    try {
      const res = await call(bare.ctx.app, bare.ctx.org.admin.key, 'POST', '/invitation/', {
        body: { email: 'nomail@example.com' },
      })
      expect(res.statusCode, res.body).toBe(200)
      expect(await bare.mailsTo('nomail@example.com')).toEqual([])
      const row = await bare.ctx.database.db
        .selectFrom('outbox')
        .select(['status', 'payload', 'last_error'])
        .where('kind', '=', 'invitation')
        .executeTakeFirstOrThrow()
      expect(row).toMatchObject({ status: 'failed', last_error: NO_SYSTEM_MAILER })
      expect(JSON.parse(row.payload)).toMatchObject({ token: null })
    } finally {
      await bare.close()
    }
  })
})
