import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { deleteEmailAccount } from '../accounts/email-account-repo.js'
import { createOutboundClient } from '../../integrations/outbound/outbound-client.js'
import { createDispatcher, type Dispatcher } from '../../integrations/outbox/outbox-dispatcher.js'
import { formatTimestamp } from '../../platform/data/time.js'
import {
  addEmailAccount,
  CONTACT_ADDRESS,
  emailDispatcher,
  emailScene,
  REP_ADDRESS,
  type EmailScene,
} from '../../tooling/test-support/email-scene.js'
import { SINK_CERT, startSmtpSink, type SmtpSink } from '../../tooling/test-support/smtp-sink.js'
import { call, createTestContext, type TestContext, type TestOrg } from '../../tooling/test-support/test-app.js'
import { EMAIL_SEND_KIND, emailSendHandler } from './email-send.js'
import { recordIncomingEmail } from './email-store.js'
import { outboxSink } from '../../integrations/outbox/outbox-writer.js'

// Sending through the dispatcher to a real SMTP server (smtp-server on loopback, STARTTLS with a certificate the
// sender is told to trust, AUTH required), read back with mailparser.

const MAX_ATTEMPTS = 3

let ctx: TestContext
let sink: SmtpSink
let org: TestOrg
let scene: EmailScene
let dispatcher: Dispatcher

beforeAll(async () => {
  ctx = await createTestContext({
    env: { LEADLINE_OUTBOUND_ALLOW_PRIVATE: '1', LEADLINE_EMAIL_MAX_ATTEMPTS: String(MAX_ATTEMPTS) },
  })
  sink = await startSmtpSink({ tls: 'starttls', users: { rey: 'rey-password' } })
})
afterAll(async () => {
  await sink.close()
  await ctx.close()
})
beforeEach(async () => {
  sink.received.length = 0
  sink.answerWith(() => ({ accept: true }))
  org = await ctx.createOrg('Mailers')
  scene = await emailScene(ctx.app, ctx.database.db, org, {
    host: 'localhost',
    port: sink.port,
    username: 'rey',
    password: 'rey-password',
  })
  dispatcher = emailDispatcher(ctx)
})
afterEach(async () => {
  await dispatcher.stop()
})

interface Email {
  id: string
  status: string
  thread_id: string
  date_sent: string | null
  activity_at: string
  message_ids: string[]
  references: string[]
  error_message: string | null
  send_attempts: { date: string; error: string }[]
  [key: string]: unknown
}

async function create(body: Record<string, unknown>): Promise<Email> {
  const res = await call(ctx.app, org.member.key, 'POST', '/activity/email/', {
    body: { lead_id: scene.leadId, contact_id: scene.contactId, sender: `Rey Rep <${REP_ADDRESS}>`, ...body },
  })
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

async function read(id: string): Promise<Email> {
  const res = await call(ctx.app, org.member.key, 'GET', `/activity/email/${id}/`)
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

function followups() {
  return ctx.database.db
    .selectFrom('task')
    .selectAll()
    .where('organization_id', '=', org.id)
    .where('type', '=', 'email_followup')
    .execute()
}

/** A dispatcher whose email sender has the outbound guard on, and lets through the SMTP servers `allowed` names. */
function guardedDispatcher(allowed: string[] = []) {
  return createDispatcher({
    db: ctx.database.db,
    dialect: ctx.database.dialect,
    clock: ctx.clock,
    config: ctx.config,
    client: createOutboundClient({ allowPrivate: true }),
    random: () => 0.5,
    handlers: {
      [EMAIL_SEND_KIND]: emailSendHandler({
        db: ctx.database.db,
        dialect: ctx.database.dialect,
        clock: ctx.clock,
        config: {
          ...ctx.config,
          outboundAllowPrivate: false,
          email: { ...ctx.config.email, allowedSmtpServers: new Set(allowed) },
        },
        tls: { ca: SINK_CERT },
      }),
    },
  })
}

describe('sending over SMTP', () => {
  it('hands the message to the server with its headers, Bcc only in the envelope, both parts', async () => {
    const email = await create({
      status: 'outbox',
      subject: 'Our proposal',
      body_text: 'Hi Tess,\nhere it is.',
      to: [`Tess Mail <${CONTACT_ADDRESS}>`],
      cc: ['boss@client.example'],
      bcc: ['archive@acme.example'],
    })
    expect(await dispatcher.drain()).toBe(1)
    expect(sink.received).toHaveLength(1)
    const [mail] = sink.received
    if (mail === undefined) throw new Error('nothing arrived')
    expect(mail.secure).toBe(true)
    expect(mail.user).toBe('rey')
    expect(mail.mailFrom).toBe(REP_ADDRESS)
    expect(mail.rcptTo.sort()).toEqual(['archive@acme.example', 'boss@client.example', CONTACT_ADDRESS])
    const { parsed } = mail
    expect(parsed.from?.value).toEqual([{ address: REP_ADDRESS, name: 'Rey Rep' }])
    const addresses = (field: typeof parsed.to) => (Array.isArray(field) ? field : field === undefined ? [] : [field])
    expect(addresses(parsed.to).flatMap((a) => a.value)).toEqual([{ address: CONTACT_ADDRESS, name: 'Tess Mail' }])
    expect(addresses(parsed.cc).flatMap((a) => a.value)).toEqual([{ address: 'boss@client.example', name: '' }])
    expect(parsed.subject).toBe('Our proposal')
    expect(parsed.messageId).toBe(`<${email.id}@acme.example>`)
    expect(parsed.text?.trim()).toBe('Hi Tess,\nhere it is.')
    expect(parsed.html).toBe('Hi Tess,<br>here it is.')
    expect(parsed.headers.get('content-type')).toMatchObject({ value: 'multipart/alternative' })
    expect(parsed.headers.has('date')).toBe(true)
    expect(parsed.headers.has('bcc')).toBe(false)
    expect(mail.raw).not.toContain('archive@acme.example')
    expect(parsed.inReplyTo).toBeUndefined()

    const sent = await read(email.id)
    expect(sent).toMatchObject({ status: 'sent', message_ids: [`<${email.id}@acme.example>`], send_attempts: [] })
    expect(sent.date_sent).not.toBeNull()
    expect(sent.activity_at).toBe(sent.date_sent)
    const events = await call(ctx.app, org.member.key, 'GET', '/event/', { query: { object_id: email.id } })
    expect(events.json<{ data: { action: string }[] }>().data.map((e) => e.action)).toEqual(['sent', 'created'])
  })

  it('sends a reply with In-Reply-To and References of what it answers, in the same thread', async () => {
    const first = await create({ status: 'outbox', subject: 'Question', body_text: 'One', to: [CONTACT_ADDRESS] })
    await dispatcher.drain()
    const reply = await create({
      status: 'outbox',
      subject: 'Re: Question',
      body_text: 'Two',
      to: [CONTACT_ADDRESS],
      in_reply_to_id: first.id,
    })
    await dispatcher.drain()
    const parsed = sink.received[1]?.parsed
    const firstId = `<${first.id}@acme.example>`
    expect(parsed?.inReplyTo).toBe(firstId)
    expect(parsed?.references).toBe(firstId)
    const stored = await read(reply.id)
    expect(stored).toMatchObject({ thread_id: first.thread_id, references: [firstId] })
    expect((stored.envelope as { in_reply_to: string }).in_reply_to).toBe(firstId)
  })

  it('sends a scheduled email once its time has come, not before', async () => {
    const at = new Date(ctx.clock.now().getTime() + 3_600_000)
    const email = await create({
      status: 'scheduled',
      subject: 'Later',
      to: [CONTACT_ADDRESS],
      date_scheduled: formatTimestamp(at),
    })
    expect(await dispatcher.drain()).toBe(0)
    expect(sink.received).toEqual([])
    ctx.clock.set(new Date(at.getTime() + 1_000))
    expect(await dispatcher.drain()).toBe(1)
    expect(sink.received.map((m) => m.parsed.subject)).toEqual(['Later'])
    expect((await read(email.id)).status).toBe('sent')
  })

  it('retries a refused send with backoff, recording each refusal, then marks the email error', async () => {
    sink.answerWith((_mail, index) =>
      index === 0
        ? { accept: false, code: 451, message: 'Try again later' }
        : { accept: false, code: 550, message: 'Mailbox unavailable' },
    )
    const email = await create({ status: 'outbox', subject: 'Refused', to: [CONTACT_ADDRESS] })
    expect(await dispatcher.drain()).toBe(1)
    let now = await read(email.id)
    expect(now.status).toBe('outbox')
    expect(now.send_attempts).toEqual([{ date: expect.any(String), error: expect.stringContaining('451') }])
    // Not before the first retry's time (30 s, the jitter fixed at none)…
    ctx.clock.advance(20_000)
    expect(await dispatcher.drain()).toBe(0)
    ctx.clock.advance(11_000)
    expect(await dispatcher.drain()).toBe(1)
    // …the next one about twice as long after.
    ctx.clock.advance(61_000)
    expect(await dispatcher.drain()).toBe(1)
    now = await read(email.id)
    expect(now.status).toBe('error')
    expect(now.send_attempts.map((a) => a.error.slice(0, 3))).toEqual(['451', '550', '550'])
    expect(now.error_message).toContain('550')
    expect(now.error_message).toContain('Mailbox unavailable')
    // The account shows the last failure until a send goes through.
    const account = async () =>
      (await call(ctx.app, org.member.key, 'GET', `/email_account/${scene.accountId}/`)).json().last_error
    expect(await account()).toEqual({ message: now.send_attempts[2]?.error, date: expect.any(String) })
    sink.answerWith(() => ({ accept: true }))
    await create({ status: 'outbox', subject: 'Taken', to: [CONTACT_ADDRESS] })
    expect(await dispatcher.drain()).toBe(1)
    expect(await account()).toBeNull()
    ctx.clock.advance(3_600_000)
    expect(await dispatcher.drain()).toBe(0)
    const rows = await ctx.database.db
      .selectFrom('outbox_attempt')
      .select('error')
      .where('outbox_id', 'in', (eb) =>
        eb.selectFrom('outbox').select('id').where('ordering_key', '=', `email:${email.id}`),
      )
      .execute()
    expect(rows).toHaveLength(MAX_ATTEMPTS)
  })

  it('fails at once, with a clear message, when the account was deleted since', async () => {
    const email = await create({ status: 'outbox', subject: 'Orphan', to: [CONTACT_ADDRESS] })
    await deleteEmailAccount(ctx.database.db, org.id, scene.accountId)
    expect(await dispatcher.drain()).toBe(1)
    const failed = await read(email.id)
    expect(failed).toMatchObject({
      status: 'error',
      error_message: 'The email account this email was to be sent through no longer exists.',
    })
    expect(sink.received).toEqual([])
  })

  it('fails at once when the SMTP host is a private address and the outbound guard is on', async () => {
    const guarded = guardedDispatcher([`localhost:${String(sink.port + 1)}`, `127.0.0.1:${String(sink.port)}`])
    const email = await create({ status: 'outbox', subject: 'Inside', to: [CONTACT_ADDRESS] })
    expect(await guarded.drain()).toBe(1)
    await guarded.stop()
    expect(await read(email.id)).toMatchObject({
      status: 'error',
      error_message: expect.stringMatching(/^refused: localhost resolves to .*, a private address$/),
    })
    expect(sink.received).toEqual([])
  })

  it('sends through a private SMTP server the installation allows by host and port (LEADLINE_SMTP_ALLOW_HOSTS)', async () => {
    const allowing = guardedDispatcher([`localhost:${String(sink.port)}`])
    const email = await create({ status: 'outbox', subject: 'Relayed', to: [CONTACT_ADDRESS] })
    expect(await allowing.drain()).toBe(1)
    await allowing.stop()
    expect((await read(email.id)).status).toBe('sent')
    expect(sink.received.map((m) => m.parsed.subject)).toEqual(['Relayed'])
  })

  it('speaks implicit TLS to an account with use_ssl, and refuses a certificate it does not trust', async () => {
    const secure = await startSmtpSink({ tls: 'implicit' })
    try {
      await addEmailAccount(ctx.database.db, {
        organizationId: org.id,
        userId: org.member.id,
        email: 'secure@acme.example',
        smtp: { host: 'localhost', port: secure.port, useSsl: true },
      })
      const email = await create({
        status: 'outbox',
        sender: 'secure@acme.example',
        subject: 'Sealed',
        to: [CONTACT_ADDRESS],
      })
      expect(await dispatcher.drain()).toBe(1)
      expect(secure.received.map((m) => [m.parsed.subject, m.secure])).toEqual([['Sealed', true]])
      expect((await read(email.id)).status).toBe('sent')

      const untrusting = createDispatcher({
        db: ctx.database.db,
        dialect: ctx.database.dialect,
        clock: ctx.clock,
        config: ctx.config,
        random: () => 0.5,
        handlers: {
          [EMAIL_SEND_KIND]: emailSendHandler({
            db: ctx.database.db,
            dialect: ctx.database.dialect,
            clock: ctx.clock,
            config: ctx.config,
          }),
        },
      })
      const doubted = await create({
        status: 'outbox',
        sender: 'secure@acme.example',
        subject: 'Doubted',
        to: [CONTACT_ADDRESS],
      })
      expect(await untrusting.drain()).toBe(1)
      await untrusting.stop()
      const stored = await read(doubted.id)
      expect(stored.status).toBe('outbox')
      expect(stored.send_attempts[0]?.error).toMatch(/certificate/i)
      expect(secure.received).toHaveLength(1)
    } finally {
      await secure.close()
    }
  })
})

describe('follow-ups', () => {
  it('makes an email_followup task when the email is sent; a reply in the thread removes it', async () => {
    const followupDate = formatTimestamp(new Date(ctx.clock.now().getTime() + 3 * 86_400_000))
    const email = await create({
      status: 'outbox',
      subject: 'Checking in',
      body_text: 'Any news?',
      to: [CONTACT_ADDRESS],
      followup_date: followupDate,
    })
    expect(await followups()).toEqual([])
    await dispatcher.drain()
    const [task] = await followups()
    expect(task).toMatchObject({
      assigned_to: org.member.id,
      date: followupDate,
      lead_id: scene.leadId,
      contact_id: scene.contactId,
      object_type: 'emailthread',
      object_id: email.thread_id,
    })
    const view = await call(ctx.app, org.member.key, 'GET', `/task/${task?.id ?? ''}/`)
    expect(view.json()).toMatchObject({
      _type: 'email_followup',
      email_id: email.id,
      subject: 'Checking in',
      body_preview: 'Any news?',
    })

    const now = formatTimestamp(ctx.clock.now())
    const stored = await ctx.database.db.transaction().execute((tx) =>
      recordIncomingEmail(
        tx,
        {
          organizationId: org.id,
          leadId: scene.leadId,
          contactId: scene.contactId,
          userId: org.member.id,
          emailAccountId: scene.accountId,
          sender: CONTACT_ADDRESS,
          to: [REP_ADDRESS],
          cc: [],
          subject: 'Some other words',
          bodyText: 'Yes!\n\nOn Monday, Rey wrote:\n> Any news?',
          bodyHtml: null,
          messageId: '<answer-1@client.example>',
          inReplyTo: null,
          references: [`<${email.id}@acme.example>`],
          attachments: [],
          dateSent: now,
          now,
        },
        { organizationId: org.id, userId: null, requestId: null, apiKeyId: null, now, sink: outboxSink(null) },
      ),
    )
    expect(stored.threadId).toBe(email.thread_id)
    expect(await followups()).toEqual([])
    const answer = await read(stored.activityId)
    expect(answer).toMatchObject({
      status: 'inbox',
      direction: 'incoming',
      body_text_quoted: [
        { text: 'Yes!\n', expand: true },
        { text: 'On Monday, Rey wrote:\n> Any news?', expand: false },
      ],
    })
    expect((await read(email.id)).has_reply).toBe(true)
  })

  it('makes the task at once for an email created sent, and deletes it with the email', async () => {
    const followupDate = formatTimestamp(new Date(ctx.clock.now().getTime() + 86_400_000))
    const email = await create({
      status: 'sent',
      subject: 'Logged',
      to: [CONTACT_ADDRESS],
      followup_date: followupDate,
    })
    expect((await followups()).map((t) => [t.object_id, t.date])).toEqual([[email.thread_id, followupDate]])
    // Deleting the email takes its follow-up with it.
    const deleted = await call(ctx.app, org.member.key, 'DELETE', `/activity/email/${email.id}/`)
    expect(deleted.statusCode).toBe(200)
    expect(await followups()).toEqual([])
  })
})
