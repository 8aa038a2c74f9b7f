import type { AddressInfo } from 'node:net'
import { performance } from 'node:perf_hooks'
import { SMTPServer } from 'smtp-server'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { EMAIL_SEND_KIND, emailSendHandler } from '../../email/send/email-send.js'
import { createOutboundClient, type Resolver } from '../outbound/outbound-client.js'
import { createDispatcher, type Dispatcher } from '../outbox/outbox-dispatcher.js'
import { httpSmsProvider } from '../../telephony/sms/sms-provider.js'
import { CONTACT_ADDRESS, emailScene, REP_ADDRESS, type EmailScene } from '../../tooling/test-support/email-scene.js'
import { CONTACT_PHONE, INTERNAL_PHONE, smsDispatcher, smsScene } from '../../tooling/test-support/sms-scene.js'
import { call, createTestContext, type TestContext, type TestOrg } from '../../tooling/test-support/test-app.js'

// A send has one deadline, half the outbox lease (decision 0037): an SMTP server that answers each command just
// within the socket's timeout, or a name (an SMTP server's, a text gateway's) that never resolves, cannot stretch a
// send past it, so no other process can claim the row and send the message again while this one is still at it.

const LEASE_SECONDS = 4
const DEADLINE_MS = (LEASE_SECONDS * 1000) / 2
const RCPT_DELAY_MS = 1500

let ctx: TestContext
let server: SMTPServer
let port: number
let received: string[]
let org: TestOrg
let dispatcher: Dispatcher | undefined

beforeAll(async () => {
  ctx = await createTestContext({
    env: { LEADLINE_OUTBOUND_ALLOW_PRIVATE: '1', LEADLINE_OUTBOX_LEASE_SECONDS: String(LEASE_SECONDS) },
  })
  // Each RCPT TO is answered after 1.5 s: within any one step's timeout (2 s), but four of them take 6 s.
  server = new SMTPServer({
    logger: false,
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onRcptTo(_address, _session, callback) {
      setTimeout(callback, RCPT_DELAY_MS)
    },
    onData(stream, session, callback) {
      stream.resume()
      stream.on('end', () => {
        received.push(...session.envelope.rcptTo.map((r) => r.address))
        callback()
      })
    },
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  port = (server.server.address() as AddressInfo).port
})
afterAll(async () => {
  await new Promise<void>((resolve) => {
    server.close(resolve)
  })
  await ctx.close()
})
beforeEach(() => {
  received = []
})
afterEach(async () => {
  await dispatcher?.stop()
})

function senderWith(resolve?: Resolver): Dispatcher {
  const { db, dialect } = ctx.database
  return createDispatcher({
    db,
    dialect,
    clock: ctx.clock,
    config: ctx.config,
    random: () => 0.5,
    handlers: {
      [EMAIL_SEND_KIND]: emailSendHandler({
        db,
        dialect,
        clock: ctx.clock,
        config: ctx.config,
        ...(resolve === undefined ? {} : { resolve }),
      }),
    },
  })
}

async function sendOne(scene: EmailScene, to: string[]): Promise<string> {
  const res = await call(ctx.app, org.member.key, 'POST', '/activity/email/', {
    body: { lead_id: scene.leadId, status: 'outbox', sender: REP_ADDRESS, to, subject: 'Slow', body_text: 'Hi' },
  })
  expect(res.statusCode, res.body).toBe(200)
  return res.json<{ id: string }>().id
}

async function emailOf(id: string) {
  const res = await call(ctx.app, org.member.key, 'GET', `/activity/email/${id}/`)
  return res.json<{ status: string; send_attempts: { error: string }[] }>()
}

describe('a send has one deadline, well within its lease', () => {
  it('an SMTP server that answers slowly is cut off at the deadline, and nothing is delivered', async () => {
    org = await ctx.createOrg('Slow SMTP')
    const scene = await emailScene(ctx.app, ctx.database.db, org, { host: '127.0.0.1', port })
    const id = await sendOne(scene, [CONTACT_ADDRESS, 'b@client.example', 'c@client.example', 'd@client.example'])
    const sender = senderWith()
    dispatcher = sender
    ctx.clock.advance(1000)
    const started = performance.now()
    expect(await sender.drain()).toBe(1)
    const took = performance.now() - started
    expect(took).toBeLessThan(LEASE_SECONDS * 1000)
    expect(received).toEqual([])
    const email = await emailOf(id)
    expect(email.status).toBe('outbox')
    expect(email.send_attempts.at(-1)?.error).toMatch(/cut off/)
  })

  it('a name that never resolves is cut off at the deadline', async () => {
    org = await ctx.createOrg('Silent DNS')
    const scene = await emailScene(ctx.app, ctx.database.db, org, { host: 'mail.silent.example', port })
    const id = await sendOne(scene, [CONTACT_ADDRESS])
    let asked = 0
    const sender = senderWith(() => {
      asked += 1
      return new Promise(() => {
        // Never answers.
      })
    })
    dispatcher = sender
    ctx.clock.advance(1000)
    const started = performance.now()
    expect(await sender.drain()).toBe(1)
    const took = performance.now() - started
    expect(asked).toBe(1)
    expect(took).toBeGreaterThanOrEqual(DEADLINE_MS - 100)
    expect(took).toBeLessThan(LEASE_SECONDS * 1000)
    const email = await emailOf(id)
    expect(email.status).toBe('outbox')
    expect(email.send_attempts.at(-1)?.error).toMatch(/^Looking up mail\.silent\.example took longer than/)
  })

  it('a text gateway whose name never resolves is cut off at the deadline', async () => {
    org = await ctx.createOrg('Silent gateway')
    const scene = await smsScene(ctx.app, org)
    const res = await call(ctx.app, org.member.key, 'POST', '/activity/sms/', {
      body: {
        lead_id: scene.leadId,
        status: 'outbox',
        local_phone: INTERNAL_PHONE,
        remote_phone: CONTACT_PHONE,
        text: 'Hi',
      },
    })
    expect(res.statusCode, res.body).toBe(200)
    const never: Resolver = () =>
      new Promise(() => {
        // Never answers.
      })
    const provider = httpSmsProvider({
      url: 'https://gateway.silent.example/sms',
      keyHex: '00'.repeat(32),
      client: createOutboundClient({ allowPrivate: true, resolve: never }),
    })
    const sender = smsDispatcher(ctx, provider)
    dispatcher = sender
    ctx.clock.advance(1000)
    const started = performance.now()
    expect(await sender.drain()).toBe(1)
    expect(performance.now() - started).toBeLessThan(LEASE_SECONDS * 1000)
    const sms = await call(ctx.app, org.member.key, 'GET', `/activity/sms/${res.json<{ id: string }>().id}/`)
    expect(sms.json()).toMatchObject({
      status: 'outbox',
      send_attempts: [{ error: expect.stringMatching(/no answer within/) }],
    })
  })
})
