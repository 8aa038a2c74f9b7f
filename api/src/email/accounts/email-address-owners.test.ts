import nodemailer, { type Transporter } from 'nodemailer'
import type Mail from 'nodemailer/lib/mailer'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { EmailAccountView } from '@leadline/shared/email-account-schema'
import { startEmailReceiver, type EmailReceiver } from '../receive/email-receiver.js'
import type { Dispatcher } from '../../integrations/outbox/outbox-dispatcher.js'
import { emailDispatcher } from '../../tooling/test-support/email-scene.js'
import { startSmtpSink, type SmtpSink } from '../../tooling/test-support/smtp-sink.js'
import { call, createTestContext, type TestContext, type TestOrg } from '../../tooling/test-support/test-app.js'

// An address receives and is sent as for one organization, once verified (decision 0038): organization B cannot
// take A's address; an unverified one receives nothing and cannot be sent as; the link emailed to it through the
// account's own SMTP server verifies it, once, before it expires, for the account's user only.

let ctx: TestContext
let sink: SmtpSink
let dispatcher: Dispatcher
let receiver: EmailReceiver
let transport: Transporter
let a: TestOrg
let b: TestOrg
const CONTACT = 'client@customer.example'
const leads: Record<string, string> = {}

beforeAll(async () => {
  ctx = await createTestContext({ env: { LEADLINE_OUTBOUND_ALLOW_PRIVATE: '1' } })
  sink = await startSmtpSink()
  dispatcher = emailDispatcher(ctx)
  receiver = await startEmailReceiver({
    db: ctx.database.db,
    clock: ctx.clock,
    config: ctx.config.emailReceive,
    leadWebhookEnvUrl: null,
    host: '127.0.0.1',
    port: 0,
    log: { info: () => undefined, error: () => undefined },
  })
  transport = nodemailer.createTransport({ host: '127.0.0.1', port: receiver.port, secure: false })
  a = await ctx.createOrg('Owner A')
  b = await ctx.createOrg('Intruder B')
  // Both organizations have the same client, so mail from them has a lead to land on in either.
  for (const org of [a, b]) {
    const lead = await call(ctx.app, org.member.key, 'POST', '/lead/', {
      body: { name: 'Customer', contacts: [{ name: 'Cleo Client', emails: [{ email: CONTACT }] }] },
    })
    expect(lead.statusCode, lead.body).toBe(200)
    leads[org.id] = lead.json<{ id: string }>().id
  }
})
afterAll(async () => {
  transport.close()
  await receiver.close()
  await dispatcher.stop()
  await sink.close()
  await ctx.close()
})

const smtp = () => ({ host: '127.0.0.1', port: sink.port, use_ssl: false })

async function createAccount(key: string, body: Record<string, unknown>): Promise<EmailAccountView> {
  const res = await call(ctx.app, key, 'POST', '/email_account/', { body: { smtp: smtp(), ...body } })
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

async function fieldErrors(res: { statusCode: number; body: string; json: () => unknown }) {
  expect(res.statusCode, res.body).toBe(400)
  return (res.json() as { 'field-errors': Record<string, string> })['field-errors']
}

/** How many emails each organization has stored. */
async function emailCounts(): Promise<Record<string, number>> {
  const counts: Record<string, number> = {}
  for (const org of [a, b]) {
    const rows = await ctx.database.db
      .selectFrom('activity')
      .select('id')
      .where('organization_id', '=', org.id)
      .where('type', '=', 'Email')
      .execute()
    counts[org.id] = rows.length
  }
  return counts
}

/** The SMTP code the receiver answers a message with: 250 when taken. */
async function deliver(mail: Mail.Options): Promise<number> {
  try {
    await transport.sendMail(mail)
    return 250
  } catch (error) {
    return (error as { responseCode?: number }).responseCode ?? 0
  }
}

/** Sends the waiting links and answers the tokens of those that reached `address` (from `from` if given), in order. */
async function linksTo(address: string, from?: string): Promise<string[]> {
  await dispatcher.drain()
  return sink.received
    .filter((mail) => mail.rcptTo.includes(address) && (from === undefined || mail.mailFrom === from))
    .map((mail) => {
      const found = /\/verify-email\?token=([A-Za-z0-9]+)/.exec(mail.parsed.text ?? '')
      if (found?.[1] === undefined) throw new Error(`no link in the mail to ${address}`)
      return found[1]
    })
}

const verify = (key: string, token: string) =>
  call(ctx.app, key, 'POST', '/email_account/verify_identity/', { body: { token } })

const identityOf = (account: EmailAccountView, address: string) =>
  account.identities.find((identity) => identity.email === address)

describe('an address belongs to one organization', () => {
  it("refuses B's user A's verified account address, as an account or an identity, on create and on change", async () => {
    await createAccount(a.admin.key, { user_id: a.member.id, email: 'ann@owner-a.example' })
    const message = 'This address is in use by another email account.'
    expect(
      await fieldErrors(
        await call(ctx.app, b.member.key, 'POST', '/email_account/', {
          body: { email: 'ANN@owner-a.example', smtp: smtp() },
        }),
      ),
    ).toEqual({ email: message })
    expect(
      await fieldErrors(
        await call(ctx.app, b.member.key, 'POST', '/email_account/', {
          body: {
            email: 'bob@intruder-b.example',
            identities: [{ name: 'Bob', email: 'bob@intruder-b.example' }, { email: ' Ann@Owner-A.example ' }],
            smtp: smtp(),
          },
        }),
      ),
    ).toEqual({ 'identities.1.email': message })
    const bobs = await createAccount(b.member.key, { email: 'bob@intruder-b.example' })
    const path = `/email_account/${bobs.id}/`
    expect(
      await fieldErrors(
        await call(ctx.app, b.member.key, 'PUT', path, { body: { identities: [{ email: 'ann@owner-a.example' }] } }),
      ),
    ).toEqual({ 'identities.0.email': message })
    // B's admin is trusted with B's own addresses only.
    expect(
      await fieldErrors(await call(ctx.app, b.admin.key, 'PUT', path, { body: { email: 'ann@owner-a.example' } })),
    ).toEqual({ email: message })
    // Nothing of it was stored: Bob's account is as it was.
    const after = await call(ctx.app, b.member.key, 'GET', path)
    expect(after.json()).toEqual(bobs)
    // The message names no organization.
    expect(message).not.toMatch(/Owner A|organization/i)
  })

  it("stores mail to A's address only in A", async () => {
    const before = await emailCounts()
    expect(await deliver({ from: CONTACT, to: 'ann@owner-a.example', subject: 'For Ann', text: 'Hi' })).toBe(250)
    expect(await emailCounts()).toEqual({ ...before, [a.id]: (before[a.id] ?? 0) + 1 })
  })
})

describe('an unverified identity', () => {
  let account: EmailAccountView

  beforeAll(async () => {
    account = await createAccount(b.member.key, {
      email: 'bea@intruder-b.example',
      identities: [
        { name: 'Bea', email: 'bea@intruder-b.example' },
        { name: 'Sales', email: 'sales@shared.example' },
      ],
    })
  })

  it('is shown unverified, in the account and in /me/', async () => {
    expect(identityOf(account, 'sales@shared.example')).toEqual({
      name: 'Sales',
      email: 'sales@shared.example',
      verified: false,
    })
    const me = await call(ctx.app, b.member.key, 'GET', '/me/')
    const mine = me.json<{ email_accounts: EmailAccountView[] }>().email_accounts.find((x) => x.id === account.id)
    expect(mine?.identities.map((identity) => identity.verified)).toEqual([false, false])
  })

  it('receives nothing: mail to it is refused as no mailbox, and stored nowhere', async () => {
    const before = await emailCounts()
    expect(await deliver({ from: CONTACT, to: 'sales@shared.example', subject: 'x', text: 'x' })).toBe(550)
    expect(await emailCounts()).toEqual(before)
  })

  it('cannot be sent as: 400 on sender, and nothing stored', async () => {
    const before = await emailCounts()
    const res = await call(ctx.app, b.member.key, 'POST', '/activity/email/', {
      body: {
        lead_id: leads[b.id],
        status: 'outbox',
        sender: 'Sales <sales@shared.example>',
        to: [CONTACT],
        subject: 'Hello',
        body_text: 'Hi',
      },
    })
    expect(Object.keys(await fieldErrors(res))).toEqual(['sender'])
    expect(await emailCounts()).toEqual(before)
  })

  it('may be claimed by another organization too, until one of them follows its link: then the other is refused', async () => {
    // A's admin adds the same address: nobody verified it, so nobody owns it yet.
    const annes = await createAccount(a.admin.key, {
      user_id: a.member.id,
      email: 'anne@owner-a.example',
      identities: [{ name: 'Sales', email: 'Sales@Shared.example' }],
    })
    expect(identityOf(annes, 'sales@shared.example')?.verified).toBe(false)
    // Each link came through its account's own SMTP server, from the account's address.
    const [aToken] = await linksTo('sales@shared.example', 'anne@owner-a.example')
    const [bToken] = await linksTo('sales@shared.example', 'bea@intruder-b.example')
    expect(aToken).toBeDefined()
    expect(bToken).toBeDefined()

    const followed = await verify(a.member.key, aToken ?? '')
    expect(followed.statusCode, followed.body).toBe(200)
    expect(followed.json()).toMatchObject({ email: 'sales@shared.example', email_account: { id: annes.id } })
    expect(identityOf(followed.json().email_account, 'sales@shared.example')?.verified).toBe(true)
    // B's link now fails: the address is A's.
    expect(await fieldErrors(await verify(b.member.key, bToken ?? ''))).toEqual({
      token: 'This address is in use by another email account.',
    })

    const before = await emailCounts()
    expect(await deliver({ from: CONTACT, to: 'sales@shared.example', subject: 'To sales', text: 'x' })).toBe(250)
    expect(await emailCounts()).toEqual({ ...before, [a.id]: (before[a.id] ?? 0) + 1 })

    // B's claim stays, unverified and useless, and does not stop B's user changing the rest of the account.
    const edited = await call(ctx.app, b.member.key, 'PUT', `/email_account/${account.id}/`, {
      body: { smtp: { port: 2525 } },
    })
    expect(edited.statusCode, edited.body).toBe(200)
    expect(identityOf(edited.json(), 'sales@shared.example')?.verified).toBe(false)
  })
})

describe('the link emailed to an identity', () => {
  let account: EmailAccountView
  let token: string

  beforeAll(async () => {
    account = await createAccount(a.member.key, {
      email: 'al@owner-a.example',
      identities: [
        { name: 'Al', email: 'al@owner-a.example' },
        { name: 'Deals', email: 'deals@owner-a.example' },
      ],
    })
    ;[token = ''] = await linksTo('deals@owner-a.example')
  })

  it('says who asked and links to the web app', () => {
    const mail = sink.received.find((m) => m.rcptTo.includes('deals@owner-a.example'))
    expect(mail?.parsed.subject).toBe('Confirm your address for Leadline')
    expect(mail?.parsed.text).toContain(`${ctx.config.appUrl}/verify-email?token=${token}`)
    expect(mail?.parsed.text).toContain('deals@owner-a.example')
  })

  it("is refused to another user, even the account's admin, and stays usable", async () => {
    expect(await fieldErrors(await verify(a.admin.key, token))).toEqual({
      token: 'This link verifies an address of another user’s email account: sign in as that user to follow it.',
    })
    expect(Object.keys(await fieldErrors(await verify(b.member.key, token)))).toEqual(['token'])
  })

  it('verifies the identity once: a reused token is refused', async () => {
    const res = await verify(a.member.key, token)
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json().email).toBe('deals@owner-a.example')
    expect(identityOf(res.json().email_account, 'deals@owner-a.example')).toEqual({
      name: 'Deals',
      email: 'deals@owner-a.example',
      verified: true,
    })
    expect(identityOf(res.json().email_account, 'al@owner-a.example')?.verified).toBe(false)
    expect(await fieldErrors(await verify(a.member.key, token))).toEqual({
      token:
        'This link is not valid: it was used already, or a newer one replaced it. Send a new link from the email account.',
    })
    const me = await call(ctx.app, a.member.key, 'GET', '/me/')
    const mine = me.json<{ email_accounts: EmailAccountView[] }>().email_accounts.find((x) => x.id === account.id)
    expect(mine && identityOf(mine, 'deals@owner-a.example')?.verified).toBe(true)
  })

  it('then lets the user send as it', async () => {
    const res = await call(ctx.app, a.member.key, 'POST', '/activity/email/', {
      body: {
        lead_id: leads[a.id],
        status: 'outbox',
        sender: 'Deals <deals@owner-a.example>',
        to: [CONTACT],
        subject: 'Offer',
        body_text: 'Hi',
      },
    })
    expect(res.statusCode, res.body).toBe(200)
  })

  it('expires after a day; another is sent on request, at most one a minute, and replaces the one before', async () => {
    const [first = ''] = await linksTo('al@owner-a.example')
    const resend = () =>
      call(ctx.app, a.member.key, 'POST', `/email_account/${account.id}/send_verification/`, {
        body: { email: 'AL@owner-a.example' },
      })
    const soon = await resend()
    expect(soon.statusCode, soon.body).toBe(429)
    expect(Number(soon.headers['retry-after'])).toBeGreaterThan(0)

    ctx.clock.advance(25 * 3_600_000)
    expect(await fieldErrors(await verify(a.member.key, first))).toEqual({
      token: 'This link has expired. Send a new one from the email account.',
    })
    const again = await resend()
    expect(again.statusCode, again.body).toBe(200)
    const [, second = ''] = await linksTo('al@owner-a.example')
    expect(second).not.toBe(first)
    expect(Object.keys(await fieldErrors(await verify(a.member.key, first)))).toEqual(['token'])
    const res = await verify(a.member.key, second)
    expect(res.statusCode, res.body).toBe(200)
    expect(identityOf(res.json().email_account, 'al@owner-a.example')?.verified).toBe(true)

    // A verified address, or one the account does not have, gets no link.
    expect(await fieldErrors(await resend())).toEqual({ email: 'This address is verified already.' })
    expect(
      await fieldErrors(
        await call(ctx.app, a.member.key, 'POST', `/email_account/${account.id}/send_verification/`, {
          body: { email: 'nobody@owner-a.example' },
        }),
      ),
    ).toEqual({ email: 'Not an address of this email account.' })
    // Another organization's account is not found.
    const elsewhere = await call(ctx.app, b.admin.key, 'POST', `/email_account/${account.id}/send_verification/`, {
      body: { email: 'al@owner-a.example' },
    })
    expect(elsewhere.statusCode).toBe(404)
  })

  it('keeps no token in the outbox once sent', async () => {
    const rows = await ctx.database.db
      .selectFrom('outbox')
      .select(['payload', 'status'])
      .where('kind', '=', 'email_verify')
      .execute()
    expect(rows.length).toBeGreaterThan(0)
    for (const row of rows) {
      expect(row.status).toBe('delivered')
      expect(JSON.parse(row.payload)).toMatchObject({ token: null })
    }
  })
})

describe('OpenAPI', () => {
  it('documents following a link, resending one, and each identity’s verified state', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json()
    const verifyRoute = doc.paths['/api/v1/email_account/verify_identity/'].post
    expect(Object.keys(verifyRoute.requestBody.content['application/json'].schema.properties)).toEqual(['token'])
    const answer = verifyRoute.responses['200'].content['application/json'].schema
    expect(Object.keys(answer.properties)).toEqual(['email', 'email_account'])
    expect(Object.keys(answer.properties.email_account.properties.identities.items.properties)).toEqual([
      'name',
      'email',
      'verified',
    ])
    const resend = doc.paths['/api/v1/email_account/{id}/send_verification/'].post
    expect(Object.keys(resend.requestBody.content['application/json'].schema.properties)).toEqual(['email'])
    expect(resend.description).toContain('429')
  })
})
