import { createServer, type Server } from 'node:net'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { EmailAccountView } from '@leadline/shared/email-account-schema'
import { startSmtpSink, type SmtpSink } from '../../tooling/test-support/smtp-sink.js'
import { call, createTestContext, type TestContext, type TestOrg } from '../../tooling/test-support/test-app.js'

// `POST /email_account/{id}/send_test/` against a real SMTP server (smtp-server on loopback, AUTH required): one that
// takes the email, one that refuses it, and a port nothing listens on; and the account's `last_error` it leaves.

let ctx: TestContext
let guarded: TestContext
let sink: SmtpSink
let closedPort: number
let org: TestOrg
let serial = 0

/** A port that was free a moment ago: connecting to it is refused. */
async function freePort(): Promise<number> {
  const server: Server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => {
    server.close(() => {
      resolve()
    })
  })
  return port
}

beforeAll(async () => {
  ctx = await createTestContext({ env: { LEADLINE_OUTBOUND_ALLOW_PRIVATE: '1' } })
  sink = await startSmtpSink({ tls: 'none', users: { rey: 'rey-password' } })
  guarded = await createTestContext({ env: { LEADLINE_SMTP_ALLOW_HOSTS: `127.0.0.1:${String(sink.port)}` } })
  closedPort = await freePort()
})
afterAll(async () => {
  await sink.close()
  await guarded.close()
  await ctx.close()
})
beforeEach(async () => {
  sink.received.length = 0
  sink.answerWith(() => ({ accept: true }))
  org = await ctx.createOrg('Testers')
  serial += 1
})

async function addAccount(
  context: TestContext,
  key: string,
  smtp: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): Promise<EmailAccountView> {
  const res = await call(context.app, key, 'POST', '/email_account/', {
    body: {
      email: `rey${String(serial)}@testers.example`,
      ...extra,
      smtp: { host: 'localhost', port: sink.port, username: 'rey', password: 'rey-password', use_ssl: false, ...smtp },
    },
  })
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

async function sendTest(context: TestContext, key: string, id: string, body?: Record<string, unknown>) {
  const res = await call(
    context.app,
    key,
    'POST',
    `/email_account/${id}/send_test/`,
    body === undefined ? {} : { body },
  )
  return res
}

async function view(key: string, id: string): Promise<EmailAccountView> {
  const res = await call(ctx.app, key, 'GET', `/email_account/${id}/`)
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

describe('POST /email_account/{id}/send_test/', () => {
  it('sends through a server that takes it, to the account’s own address, and answers the server’s response', async () => {
    const account = await addAccount(ctx, org.admin.key, {}, { user_id: org.member.id })
    const res = await sendTest(ctx, org.admin.key, account.id)
    expect(res.statusCode, res.body).toBe(200)
    const answer = res.json()
    expect(answer).toEqual({ ok: true, response: expect.stringMatching(/^250 /) })
    expect(sink.received).toHaveLength(1)
    const mail = sink.received[0]
    expect(mail?.rcptTo).toEqual([account.email])
    expect(mail?.mailFrom).toBe(account.email)
    expect(mail?.user).toBe('rey')
    expect(mail?.parsed.subject).toBe('Leadline test email')
    expect((await view(org.admin.key, account.id)).last_error).toBeNull()
  })

  it('sends to `to` when given, and refuses what is not one address', async () => {
    const account = await addAccount(ctx, org.member.key, {})
    const res = await sendTest(ctx, org.member.key, account.id, { to: ' Ops <ops@testers.example> ' })
    expect(res.json(), res.body).toMatchObject({ ok: true })
    expect(sink.received.map((m) => m.rcptTo)).toEqual([['ops@testers.example']])
    for (const to of ['', 'not an address', 'a@x.example, b@x.example', 'a@x.example\r\nBcc: c@x.example']) {
      const bad = await sendTest(ctx, org.member.key, account.id, { to })
      expect(bad.statusCode, to).toBe(400)
      expect(bad.json()).toEqual({ errors: [], 'field-errors': { to: 'Enter one email address.' } })
    }
    expect(sink.received).toHaveLength(1)
  })

  it('answers the server’s refusal as ok: false, sets last_error, and a later success clears it', async () => {
    const account = await addAccount(ctx, org.admin.key, {})
    sink.answerWith(() => ({ accept: false, code: 550, message: 'Mailbox unavailable for tests' }))
    const refused = await sendTest(ctx, org.admin.key, account.id)
    expect(refused.statusCode, refused.body).toBe(200)
    const answer = refused.json()
    expect(answer.ok).toBe(false)
    expect(answer.error).toContain('550')
    expect(answer.error).toContain('Mailbox unavailable for tests')
    const failed = await view(org.admin.key, account.id)
    expect(failed.last_error).toEqual({ message: answer.error, date: expect.stringMatching(/\+00:00$/) })
    const list = await call(ctx.app, org.admin.key, 'GET', '/email_account/')
    expect(list.json().data[0].last_error).toEqual(failed.last_error)

    sink.answerWith(() => ({ accept: true }))
    expect((await sendTest(ctx, org.admin.key, account.id)).json()).toMatchObject({ ok: true })
    expect((await view(org.admin.key, account.id)).last_error).toBeNull()
  })

  it('answers a wrong password as the server’s refusal of the login', async () => {
    const account = await addAccount(ctx, org.admin.key, { password: 'wrong' })
    const answer = (await sendTest(ctx, org.admin.key, account.id)).json()
    expect(answer.ok).toBe(false)
    expect(answer.error).toContain('Invalid user name or password')
    expect(sink.received).toHaveLength(0)
  })

  it('answers a server that cannot be reached as ok: false with the connection error', async () => {
    const account = await addAccount(ctx, org.admin.key, { port: closedPort })
    const res = await sendTest(ctx, org.admin.key, account.id)
    expect(res.statusCode, res.body).toBe(200)
    const answer = res.json()
    expect(answer.ok).toBe(false)
    expect(answer.error).toMatch(/ECONNREFUSED/)
    expect((await view(org.admin.key, account.id)).last_error?.message).toBe(answer.error)
  })

  it('follows the outbound guard: a private server is refused unless LEADLINE_SMTP_ALLOW_HOSTS names it', async () => {
    const guardedOrg = await guarded.createOrg('Guarded')
    const listed = await addAccount(guarded, guardedOrg.admin.key, { host: '127.0.0.1' })
    expect((await sendTest(guarded, guardedOrg.admin.key, listed.id)).json()).toMatchObject({ ok: true })
    const other = await addAccount(
      guarded,
      guardedOrg.admin.key,
      { host: 'localhost' },
      { email: `other${String(serial)}@guarded.example`, user_id: guardedOrg.member.id },
    )
    const answer = (await sendTest(guarded, guardedOrg.admin.key, other.id)).json()
    expect(answer).toEqual({ ok: false, error: 'refused: localhost resolves to 127.0.0.1, a private address' })
    expect(sink.received).toHaveLength(1)
  })

  it('is for the account’s user or an admin: another user gets 403, another organization 404', async () => {
    const account = await addAccount(ctx, org.admin.key, {}, { user_id: org.admin.id })
    const res = await sendTest(ctx, org.member.key, account.id)
    expect(res.statusCode, res.body).toBe(403)
    expect(res.json()).toEqual({ error: 'Only an admin can manage the email accounts of other users.' })
    const elsewhere = await sendTest(ctx, ctx.other.admin.key, account.id)
    expect(elsewhere.statusCode).toBe(404)
    expect(sink.received).toHaveLength(0)
  })
})
