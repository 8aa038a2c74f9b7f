import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises'
import { connect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { DNSResolver } from 'mailauth'
import nodemailer, { type Transporter } from 'nodemailer'
import type Mail from 'nodemailer/lib/mailer'
import { sql } from 'kysely'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { loadConfig, type EmailReceiveConfig } from '../../platform/config.js'
import { serve } from '../../app/main.js'
import type { Dispatcher } from '../../integrations/outbox/outbox-dispatcher.js'
import { formatTimestamp } from '../../platform/data/time.js'
import {
  addEmailAccount,
  CONTACT_ADDRESS,
  emailDispatcher,
  emailScene,
  REP_ADDRESS,
  REP_IDENTITY,
  type EmailScene,
} from '../../tooling/test-support/email-scene.js'
import { startSmtpSink, type SmtpSink } from '../../tooling/test-support/smtp-sink.js'
import { call, createTestContext, createTestDatabase, type TestContext } from '../../tooling/test-support/test-app.js'
import { startEmailReceiver, type EmailReceiver } from './email-receiver.js'

// Mail handed to the receiver over real SMTP (nodemailer on loopback), as a sending mail server hands it over.

const MAX_MESSAGE = 200_000
const MAX_FILE = 50_000
const tlsFile = (name: string) => readFileSync(new URL(`../../tooling/test-support/tls/${name}`, import.meta.url))

let ctx: TestContext
let sink: SmtpSink
let scene: EmailScene
let dispatcher: Dispatcher
let receiver: EmailReceiver
let transport: Transporter
const logged: string[] = []

/**
 * The DNS the sender checks see: TXT records by name (`client.example`, `_dmarc.client.example`); any other name does
 * not exist. Each test that needs records sets them and clears them after.
 */
const txtRecords = new Map<string, string>()
const fakeDns: DNSResolver = (domain, rrtype) => {
  const record = rrtype === 'TXT' ? txtRecords.get(domain.toLowerCase()) : undefined
  if (record !== undefined) return Promise.resolve([[record]])
  return Promise.reject(Object.assign(new Error(`queryTxt ENOTFOUND ${domain}`), { code: 'ENOTFOUND' }))
}

/** Starts another receiver on the scene's database, with some of its settings changed. */
async function otherReceiver(
  config: Partial<EmailReceiveConfig>,
  more: { resolver?: DNSResolver; spoolDir?: string } = {},
): Promise<EmailReceiver> {
  return startEmailReceiver({
    db: ctx.database.db,
    clock: ctx.clock,
    config: { ...ctx.config.emailReceive, ...config },
    leadWebhookEnvUrl: null,
    host: '127.0.0.1',
    port: 0,
    log: { info: () => undefined, error: () => undefined },
    resolver: more.resolver ?? fakeDns,
    ...(more.spoolDir === undefined ? {} : { spoolDir: more.spoolDir }),
  })
}

beforeAll(async () => {
  ctx = await createTestContext({
    env: {
      LEADLINE_SMTP_MAX_MESSAGE_BYTES: String(MAX_MESSAGE),
      LEADLINE_EMAIL_ATTACHMENT_MAX_BYTES: String(MAX_FILE),
      // The sink the rep's email goes out through is on this machine.
      LEADLINE_OUTBOUND_ALLOW_PRIVATE: '1',
    },
  })
  sink = await startSmtpSink()
  scene = await emailScene(ctx.app, ctx.database.db, ctx.org, { host: 'localhost', port: sink.port })
  dispatcher = emailDispatcher(ctx)
  receiver = await startEmailReceiver({
    db: ctx.database.db,
    clock: ctx.clock,
    config: ctx.config.emailReceive,
    leadWebhookEnvUrl: null,
    host: '127.0.0.1',
    port: 0,
    log: {
      info: (_fields, line) => logged.push(line),
      error: (_fields, line) => logged.push(line),
    },
    resolver: fakeDns,
  })
  transport = nodemailer.createTransport({ host: '127.0.0.1', port: receiver.port, secure: false })
})
afterAll(async () => {
  transport.close()
  await receiver.close()
  await dispatcher.stop()
  await sink.close()
  await ctx.close()
})
beforeEach(() => {
  ctx.clock.advance(60_000)
})

const rep = () => ctx.org.member.key

interface Task {
  id: string
  _type: string
  object_id: string | null
  assigned_to: string | null
  lead_id: string
  contact_id: string | null
  is_complete: boolean
  emails?: string[]
  subject?: string
  body_preview?: string
}

interface ThreadEmail {
  id: string
  status: string
  direction: string
  sender: string
  subject: string
  attachments: { url: string; filename: string; content_type: string; size: number }[]
}

async function thread(id: string) {
  const res = await call(ctx.app, rep(), 'GET', `/activity/emailthread/${id}/`)
  expect(res.statusCode, res.body).toBe(200)
  return res.json<{ id: string; lead_id: string; contact_id: string | null; n_emails: number; emails: ThreadEmail[] }>()
}

async function tasksOfThread(threadId: string, type: string): Promise<Task[]> {
  const rows = await ctx.database.db
    .selectFrom('task')
    .select('id')
    .where('organization_id', '=', ctx.org.id)
    .where('object_id', '=', threadId)
    .where('type', '=', type)
    .orderBy('date_created')
    .execute()
  return Promise.all(
    rows.map(async (r) => (await call(ctx.app, ctx.org.admin.key, 'GET', `/task/${r.id}/`)).json<Task>()),
  )
}

/** The email stored last on the organization's leads. */
async function latestEmail() {
  return ctx.database.db
    .selectFrom('activity')
    .selectAll()
    .where('organization_id', '=', ctx.org.id)
    .where('type', '=', 'Email')
    .orderBy('date_created', 'desc')
    .orderBy('id', 'desc')
    .executeTakeFirstOrThrow()
}

/** What incoming mail may add: emails, tasks, files (in every organization). */
async function counts() {
  const db = ctx.database.db
  const count = async (table: 'activity' | 'task' | 'email_attachment' | 'email_thread') =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    )
  return {
    activities: await count('activity'),
    tasks: await count('task'),
    attachments: await count('email_attachment'),
    threads: await count('email_thread'),
  }
}

/** The SMTP code a refusal came with (a refused recipient's when every recipient was refused). */
function smtpCode(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined
  const rejected: unknown = Reflect.get(error, 'rejectedErrors')
  const first: unknown = Array.isArray(rejected) ? rejected[0] : error
  const code: unknown = typeof first === 'object' && first !== null ? Reflect.get(first, 'responseCode') : undefined
  return typeof code === 'number' ? code : undefined
}

async function refusal(mail: Mail.Options): Promise<number | undefined> {
  try {
    await transport.sendMail(mail)
  } catch (error) {
    return smtpCode(error)
  }
  throw new Error('the message was accepted')
}

/** Sends an email from the rep to the contact through the API and the outbox; answers it as stored, sent. */
async function sentEmail(subject: string) {
  const res = await call(ctx.app, rep(), 'POST', '/activity/email/', {
    body: {
      lead_id: scene.leadId,
      contact_id: scene.contactId,
      status: 'outbox',
      sender: REP_ADDRESS,
      to: [CONTACT_ADDRESS],
      subject,
      body_text: 'Here is our proposal.',
      followup_date: formatTimestamp(new Date(ctx.clock.now().getTime() + 3 * 86_400_000)),
    },
  })
  expect(res.statusCode, res.body).toBe(200)
  await dispatcher.drain()
  const sent = await call(ctx.app, rep(), 'GET', `/activity/email/${res.json<{ id: string }>().id}/`)
  const email = sent.json<{ id: string; status: string; thread_id: string; message_ids: string[] }>()
  expect(email.status).toBe('sent')
  return email
}

describe('a reply from a contact', () => {
  let proposal: { id: string; thread_id: string; message_ids: string[] }
  let taskId: string

  it('joins the thread of the email it answers, with its files, clears its follow-up and makes one task', async () => {
    proposal = await sentEmail('Proposal')
    expect(await tasksOfThread(proposal.thread_id, 'email_followup')).toHaveLength(1)
    const [messageId] = proposal.message_ids
    const pdf = Buffer.from('%PDF-1.4 signed contract')

    const info = await transport.sendMail({
      from: '"Tess Mail" <Tess@Client.example>',
      to: REP_ADDRESS,
      subject: 'Re: Proposal',
      text: 'Signed, see attached.\n\n> Here is our proposal.',
      html: '<p>Signed, see attached.</p>',
      inReplyTo: messageId,
      references: [messageId ?? ''],
      attachments: [{ filename: 'contract.pdf', content: pdf, contentType: 'application/pdf' }],
    })
    expect(info.accepted).toEqual([REP_ADDRESS])

    const shown = await thread(proposal.thread_id)
    expect(shown.n_emails).toBe(2)
    expect(shown.contact_id).toBe(scene.contactId)
    const [reply] = shown.emails
    expect(reply).toMatchObject({
      status: 'inbox',
      direction: 'incoming',
      sender: '"Tess Mail" <Tess@client.example>',
      subject: 'Re: Proposal',
    })
    expect(reply?.attachments).toEqual([
      {
        url: expect.stringMatching(/^\/api\/v1\/email_attachment\/attach_\w{43}\/$/),
        filename: 'contract.pdf',
        content_type: 'application/pdf',
        size: pdf.length,
        content_id: null,
      },
    ])
    const file = await call(ctx.app, rep(), 'GET', (reply?.attachments[0]?.url ?? '').replace('/api/v1', ''))
    expect(file.statusCode).toBe(200)
    expect(file.rawPayload.equals(pdf)).toBe(true)

    const stored = await call(ctx.app, rep(), 'GET', `/activity/email/${reply?.id ?? ''}/`)
    expect(stored.json()).toMatchObject({
      lead_id: scene.leadId,
      contact_id: scene.contactId,
      user_id: ctx.org.member.id,
      email_account_id: scene.accountId,
      to: [REP_ADDRESS],
      body_text: 'Signed, see attached.\n\n> Here is our proposal.',
      body_html: '<p>Signed, see attached.</p>',
      message_ids: [info.messageId],
    })

    expect(await tasksOfThread(proposal.thread_id, 'email_followup')).toEqual([])
    const tasks = await tasksOfThread(proposal.thread_id, 'incoming_email')
    expect(tasks).toMatchObject([
      {
        assigned_to: ctx.org.member.id,
        lead_id: scene.leadId,
        contact_id: scene.contactId,
        is_complete: false,
        emails: [reply?.id],
        subject: 'Re: Proposal',
        body_preview: 'Signed, see attached.\n\n> Here is our proposal.',
      },
    ])
    taskId = tasks[0]?.id ?? ''
    const events = await call(ctx.app, rep(), 'GET', '/event/', { query: { object_id: taskId } })
    expect(events.json<{ data: { action: string; user_id: string | null }[] }>().data).toMatchObject([
      { action: 'created', user_id: null },
    ])
  })

  it('updates that task with a second unread email of the thread, and makes a new one once it is done', async () => {
    const first = await latestEmail()
    await transport.sendMail({
      from: CONTACT_ADDRESS,
      to: `"Acme Sales" <${REP_IDENTITY}>`,
      subject: 'Re: Proposal (countersigned)',
      text: 'One more thing.',
      references: proposal.message_ids,
    })
    const second = await latestEmail()
    expect(second.thread_id).toBe(proposal.thread_id)
    expect(await tasksOfThread(proposal.thread_id, 'incoming_email')).toMatchObject([
      {
        id: taskId,
        emails: [first.id, second.id],
        subject: 'Re: Proposal (countersigned)',
        body_preview: 'One more thing.',
      },
    ])

    const done = await call(ctx.app, rep(), 'PUT', `/task/${taskId}/`, { body: { is_complete: true } })
    expect(done.statusCode, done.body).toBe(200)
    await transport.sendMail({
      from: CONTACT_ADDRESS,
      to: REP_ADDRESS,
      subject: 'Re: Proposal',
      text: 'And another.',
      references: proposal.message_ids,
    })
    const third = await latestEmail()
    const tasks = await tasksOfThread(proposal.thread_id, 'incoming_email')
    expect(tasks.map((t) => [t.is_complete, t.emails])).toEqual([
      [true, [first.id, second.id]],
      [false, [third.id]],
    ])
  })

  it('is stored once when the same message comes again', async () => {
    const before = await counts()
    const mail = {
      from: CONTACT_ADDRESS,
      to: REP_ADDRESS,
      subject: 'Twice',
      text: 'x',
      messageId: '<twice@client.example>',
    }
    await transport.sendMail(mail)
    const once = await counts()
    expect(once.activities).toBe(before.activities + 1)
    await transport.sendMail(mail)
    expect(await counts()).toEqual(once)
  })
})

describe('a message from someone who is no contact', () => {
  it('lands on the lead of the thread whose Message-ID it answers', async () => {
    const proposal = await sentEmail('Terms')
    await transport.sendMail({
      from: 'Boss <boss@client.example>',
      to: REP_ADDRESS,
      subject: 'Re: Terms',
      text: 'I approve.',
      inReplyTo: proposal.message_ids[0],
    })
    const email = await latestEmail()
    expect(email).toMatchObject({ lead_id: scene.leadId, contact_id: null, thread_id: proposal.thread_id })
    expect((await thread(proposal.thread_id)).emails[0]?.sender).toBe('"Boss" <boss@client.example>')
  })

  it('is accepted and not stored when it answers nothing known', async () => {
    const before = await counts()
    const info = await transport.sendMail({
      from: 'stranger@nowhere.example',
      to: REP_ADDRESS,
      subject: 'Buy now',
      text: 'Offer',
      inReplyTo: '<unknown@nowhere.example>',
    })
    expect(info.accepted).toEqual([REP_ADDRESS])
    expect(await counts()).toEqual(before)
    expect(logged.at(-1)).toBe('incoming email accepted, not stored (unknown-sender)')
  })

  it('is not stored when it is from one of the organization’s own addresses', async () => {
    const before = await counts()
    await transport.sendMail({ from: REP_IDENTITY, to: REP_ADDRESS, subject: 'Note to self', text: 'x' })
    expect(await counts()).toEqual(before)
    expect(logged.at(-1)).toBe('incoming email accepted, not stored (own-address)')
  })
})

describe('a message for several organizations', () => {
  it('is stored in each, on the lead of its contact there, through the account it came to', async () => {
    const elsewhere = await addEmailAccount(ctx.database.db, {
      organizationId: ctx.other.id,
      userId: ctx.other.member.id,
      email: 'sam@globex.example',
      smtp: { host: sink.host, port: sink.port },
    })
    const lead = await call(ctx.app, ctx.other.member.key, 'POST', '/lead/', {
      body: { name: 'Client at Globex', contacts: [{ name: 'Tess', emails: [{ email: CONTACT_ADDRESS }] }] },
    })
    await transport.sendMail({
      from: CONTACT_ADDRESS,
      to: ['sam@globex.example', REP_ADDRESS],
      subject: 'To you both',
      text: 'Hello',
    })
    const theirs = await ctx.database.db
      .selectFrom('activity')
      .selectAll()
      .where('organization_id', '=', ctx.other.id)
      .where('type', '=', 'Email')
      .execute()
    expect(theirs).toMatchObject([{ lead_id: lead.json<{ id: string }>().id, user_id: ctx.other.member.id }])
    expect(JSON.parse(theirs[0]?.data ?? '{}')).toMatchObject({ email_account_id: elsewhere, subject: 'To you both' })
    expect(await latestEmail()).toMatchObject({ lead_id: scene.leadId, user_id: ctx.org.member.id })
  })
})

describe('refusals store nothing', () => {
  it('refuses a recipient who is no organization’s address with 550', async () => {
    const before = await counts()
    expect(await refusal({ from: CONTACT_ADDRESS, to: 'nobody@acme.example', subject: 'x', text: 'x' })).toBe(550)
    expect(await counts()).toEqual(before)
  })

  it('refuses a message over the size limit with 552, announced or not', async () => {
    const before = await counts()
    const big = 'x'.repeat(MAX_MESSAGE + 1000)
    expect(await refusal({ from: CONTACT_ADDRESS, to: REP_ADDRESS, subject: 'Big', text: big })).toBe(552)
    // A sender that does not declare the size is refused once the data is over the limit.
    const lines = await conversation(receiver.port, [
      'EHLO sender.example',
      `MAIL FROM:<${CONTACT_ADDRESS}>`,
      `RCPT TO:<${REP_ADDRESS}>`,
      'DATA',
      `From: ${CONTACT_ADDRESS}\r\nTo: ${REP_ADDRESS}\r\nSubject: Big\r\n\r\n${'y'.repeat(MAX_MESSAGE + 10)}\r\n.`,
      'QUIT',
    ])
    expect(lines.at(-2)).toMatch(/^552 /)
    expect(await counts()).toEqual(before)
  })

  it('refuses a message with a file over the limit with 552', async () => {
    const before = await counts()
    const code = await refusal({
      from: CONTACT_ADDRESS,
      to: REP_ADDRESS,
      subject: 'Files',
      text: 'x',
      attachments: [
        { filename: 'small.txt', content: 'small' },
        { filename: 'large.bin', content: Buffer.alloc(MAX_FILE + 1, 7) },
      ],
    })
    expect(code).toBe(552)
    expect(await counts()).toEqual(before)
  })

  it('refuses a message without a From address with 550', async () => {
    const before = await counts()
    const envelope = { from: CONTACT_ADDRESS, to: [REP_ADDRESS] }
    expect(await refusal({ envelope, raw: `To: ${REP_ADDRESS}\r\nSubject: Who?\r\n\r\nNo sender.\r\n` })).toBe(550)
    expect(await refusal({ envelope, raw: `From: somebody\r\nTo: ${REP_ADDRESS}\r\n\r\nNo address.\r\n` })).toBe(550)
    expect(await counts()).toEqual(before)
  })
})

describe('a failure while storing', () => {
  it('leaves nothing half-stored and tells the sender to try again later (451)', async () => {
    const db = ctx.database.db
    // The email goes in first, then its file, which the database now refuses: the email must go too.
    if (ctx.database.dialect === 'sqlite') {
      await sql`CREATE TRIGGER refuse_files BEFORE INSERT ON email_attachment BEGIN SELECT RAISE(ABORT, 'disk full'); END`.execute(
        db,
      )
    } else {
      await sql`CREATE FUNCTION refuse_files() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'disk full'; END $$`.execute(
        db,
      )
      await sql`CREATE TRIGGER refuse_files BEFORE INSERT ON email_attachment FOR EACH ROW EXECUTE FUNCTION refuse_files()`.execute(
        db,
      )
    }
    const before = await counts()
    try {
      const code = await refusal({
        from: CONTACT_ADDRESS,
        to: REP_ADDRESS,
        subject: 'With a file',
        text: 'x',
        attachments: [{ filename: 'a.txt', content: 'a' }],
      })
      expect(code).toBe(451)
      expect(await counts()).toEqual(before)
      expect(logged.at(-1)).toBe('incoming email: storing failed')
    } finally {
      await sql`DROP TRIGGER refuse_files${sql.raw(ctx.database.dialect === 'sqlite' ? '' : ' ON email_attachment')}`.execute(
        db,
      )
    }
    // Once the database takes it again, the sender's next try is stored.
    await transport.sendMail({
      from: CONTACT_ADDRESS,
      to: REP_ADDRESS,
      subject: 'With a file',
      text: 'x',
      attachments: [{ filename: 'a.txt', content: 'a' }],
    })
    expect((await counts()).attachments).toBe(before.attachments + 1)
  })
})

/** Speaks SMTP line by line (each command once the previous answer is complete); answers every reply line. */
async function conversation(port: number, commands: string[]): Promise<string[]> {
  const socket = connect(port, '127.0.0.1')
  const replies: string[] = []
  let buffer = ''
  let pending: { resolve: () => void; reject: (error: Error) => void } | undefined
  const answered = () =>
    new Promise<void>((resolve, reject) => {
      pending = { resolve, reject }
    })
  socket.on('error', (error) => pending?.reject(error))
  socket.on('data', (chunk: Buffer) => {
    buffer += chunk.toString()
    const complete = buffer.split('\r\n')
    buffer = complete.pop() ?? ''
    replies.push(...complete)
    // A reply is complete at its last line: `250 OK` rather than `250-…`.
    if (complete.some((line) => /^\d{3} /.test(line))) pending?.resolve()
  })
  try {
    await answered()
    for (const command of commands) {
      const next = answered()
      socket.write(`${command}\r\n`)
      await next
    }
  } finally {
    socket.destroy()
  }
  return replies
}

describe('STARTTLS', () => {
  it('is offered with the operator’s certificate, and mail arrives over it', async () => {
    const tlsReceiver = await startEmailReceiver({
      db: ctx.database.db,
      clock: ctx.clock,
      config: { ...ctx.config.emailReceive, tls: { certFile: '', keyFile: '' } },
      leadWebhookEnvUrl: null,
      host: '127.0.0.1',
      port: 0,
      log: { info: () => undefined, error: () => undefined },
      resolver: fakeDns,
    }).catch(() => undefined)
    // Files that cannot be read stop it from starting.
    expect(tlsReceiver).toBeUndefined()

    const dir = new URL('../../tooling/test-support/tls/', import.meta.url).pathname
    const secure = await startEmailReceiver({
      db: ctx.database.db,
      clock: ctx.clock,
      config: {
        ...ctx.config.emailReceive,
        tls: { certFile: `${dir}self-signed-cert.pem`, keyFile: `${dir}self-signed-key.pem` },
      },
      leadWebhookEnvUrl: null,
      host: '127.0.0.1',
      port: 0,
      log: { info: () => undefined, error: () => undefined },
      resolver: fakeDns,
    })
    const tlsTransport = nodemailer.createTransport({
      host: '127.0.0.1',
      port: secure.port,
      requireTLS: true,
      tls: { ca: tlsFile('self-signed-cert.pem') },
    })
    try {
      const info = await tlsTransport.sendMail({ from: CONTACT_ADDRESS, to: REP_ADDRESS, subject: 'Secure', text: 'x' })
      expect(info.accepted).toEqual([REP_ADDRESS])
      expect(JSON.parse((await latestEmail()).data)).toMatchObject({ subject: 'Secure' })
    } finally {
      tlsTransport.close()
      await secure.close()
    }
    // Without a certificate it is not offered at all.
    const plain = nodemailer.createTransport({ host: '127.0.0.1', port: receiver.port, requireTLS: true })
    await expect(plain.sendMail({ from: CONTACT_ADDRESS, to: REP_ADDRESS, subject: 'x', text: 'x' })).rejects.toThrow(
      /STARTTLS/,
    )
    plain.close()
  })
})

describe('leadline serve', () => {
  it('receives mail only when LEADLINE_SMTP_RECEIVE_PORT is set, and stops receiving when closed', async () => {
    const database = await createTestDatabase()
    const free = await freePort()
    const server = await serve({
      config: loadConfig({ DATABASE_URL: database.url, LOG_LEVEL: 'silent', LEADLINE_SMTP_RECEIVE_PORT: String(free) }),
      port: 0,
      host: '127.0.0.1',
    })
    try {
      expect(server.emailReceiver?.port).toBe(free)
      expect(await conversation(free, ['QUIT'])).toEqual([
        expect.stringMatching(/^220 /),
        expect.stringMatching(/^221 /),
      ])
    } finally {
      await server.close()
    }
    await expect(conversation(free, ['QUIT'])).rejects.toThrow(/ECONNREFUSED/)
    const without = await serve({
      config: loadConfig({ DATABASE_URL: database.url, LOG_LEVEL: 'silent' }),
      port: 0,
      host: '127.0.0.1',
    })
    expect(without.emailReceiver).toBeUndefined()
    await without.close()
    await database.drop()
  })
})

/** A port nothing listens on just now. */
async function freePort(): Promise<number> {
  const { createServer } = await import('node:net')
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  await new Promise((resolve) => server.close(resolve))
  if (address === null || typeof address === 'string') throw new Error('no port')
  return address.port
}

/** Connects and reads the server's first reply; the socket stays open until the test destroys it. */
async function firstReply(port: number): Promise<{ socket: Socket; reply: string }> {
  const socket = connect(port, '127.0.0.1')
  const reply = await new Promise<string>((resolve, reject) => {
    let buffer = ''
    socket.on('error', reject)
    socket.on('data', (chunk: Buffer) => {
      buffer += chunk.toString()
      if (buffer.includes('\r\n')) resolve(buffer.split('\r\n')[0] ?? '')
    })
  })
  return { socket, reply }
}

describe('connection limits', () => {
  it('answers 421 to a connection past maxClients, and takes one again once another has gone', async () => {
    const limited = await otherReceiver({ maxClients: 2, maxClientsPerAddress: 10 })
    const open: Socket[] = []
    try {
      for (let i = 0; i < 2; i++) {
        const { socket, reply } = await firstReply(limited.port)
        open.push(socket)
        expect(reply).toMatch(/^220 /)
      }
      const third = await firstReply(limited.port)
      third.socket.destroy()
      expect(third.reply).toMatch(/^421 /)
      await new Promise<void>((resolve) => {
        open.shift()?.once('close', resolve).end('QUIT\r\n')
      })
      const again = await firstReply(limited.port)
      open.push(again.socket)
      expect(again.reply).toMatch(/^220 /)
    } finally {
      for (const socket of open) socket.destroy()
      await limited.close()
    }
  })

  it('answers 421 to an address past its own limit, and takes it again once one of its connections has gone', async () => {
    const limited = await otherReceiver({ maxClients: 100, maxClientsPerAddress: 2 })
    const open: Socket[] = []
    try {
      for (let i = 0; i < 2; i++) {
        const { socket, reply } = await firstReply(limited.port)
        open.push(socket)
        expect(reply).toMatch(/^220 /)
      }
      const third = await firstReply(limited.port)
      third.socket.destroy()
      expect(third.reply).toMatch(/^421 4\.7\.0 Too many connections from your address/)
      await new Promise<void>((resolve) => {
        open.shift()?.once('close', resolve).end('QUIT\r\n')
      })
      // The server counts the connection gone once its own side has closed too: the next one is let in.
      const again = await conversation(limited.port, ['QUIT'])
      expect(again[0]).toMatch(/^220 /)
    } finally {
      for (const socket of open) socket.destroy()
      await limited.close()
    }
  })
})

describe('the rate of messages', () => {
  it('answers 451 past the messages one address may send in a window, and takes them again in the next', async () => {
    const limited = await otherReceiver({ rateMessages: 2, rateWindowSeconds: 600 })
    const sender = nodemailer.createTransport({ host: '127.0.0.1', port: limited.port, secure: false })
    const mail = { from: CONTACT_ADDRESS, to: REP_ADDRESS, subject: 'Rate', text: 'x' }
    try {
      await sender.sendMail(mail)
      await sender.sendMail(mail)
      const before = await counts()
      const code = await sender.sendMail(mail).then(
        () => undefined,
        (error: unknown) => smtpCode(error),
      )
      expect(code).toBe(451)
      expect(await counts()).toEqual(before)
      ctx.clock.advance(600_000)
      const info = await sender.sendMail(mail)
      expect(info.accepted).toEqual([REP_ADDRESS])
    } finally {
      sender.close()
      await limited.close()
    }
  })
})

describe('a large message', { timeout: 120_000 }, () => {
  const MiB = 1024 * 1024
  let spoolDir: string
  let large: EmailReceiver
  let sender: Transporter

  beforeAll(async () => {
    spoolDir = await mkdtemp(join(tmpdir(), 'leadline-spool-test-'))
    large = await otherReceiver({ maxMessageBytes: 25 * MiB, maxAttachmentBytes: 10 * MiB }, { spoolDir })
    sender = nodemailer.createTransport({ host: '127.0.0.1', port: large.port, secure: false })
  })
  afterAll(async () => {
    sender.close()
    await large.close()
    await rm(spoolDir, { recursive: true, force: true })
  })

  // Base64 makes its 15 MiB of files over 20 MiB on the wire.
  it('of 20 MiB is stored whole, its files byte for byte, and its spooled copy is gone', async () => {
    const files = [randomBytes(7.5 * MiB), randomBytes(7.5 * MiB)]
    const digest = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')
    const info = await sender.sendMail({
      from: CONTACT_ADDRESS,
      to: REP_ADDRESS,
      subject: 'Large files',
      text: 'Two large files.',
      attachments: files.map((content, i) => ({ filename: `part-${String(i + 1)}.bin`, content })),
    })
    expect(info.accepted).toEqual([REP_ADDRESS])
    const email = await latestEmail()
    expect(JSON.parse(email.data)).toMatchObject({ subject: 'Large files' })
    const view = await call(ctx.app, rep(), 'GET', `/activity/email/${email.id}/`)
    const attachments = view.json<{ attachments: { url: string; filename: string; size: number }[] }>().attachments
    expect(attachments.map((a) => [a.filename, a.size])).toEqual([
      ['part-1.bin', files[0]?.length],
      ['part-2.bin', files[1]?.length],
    ])
    for (const [i, attachment] of attachments.entries()) {
      const file = await call(ctx.app, rep(), 'GET', attachment.url.replace('/api/v1', ''))
      expect(digest(file.rawPayload)).toBe(digest(files[i] ?? Buffer.alloc(0)))
    }
    expect(await readdir(spoolDir)).toEqual([])
  })

  it('is written to the disk as it arrives, not held in memory', async () => {
    const socket = connect(large.port, '127.0.0.1')
    try {
      await new Promise<void>((resolve) =>
        socket.once('data', () => {
          resolve()
        }),
      )
      socket.write(`EHLO sender.example\r\nMAIL FROM:<${CONTACT_ADDRESS}>\r\nRCPT TO:<${REP_ADDRESS}>\r\nDATA\r\n`)
      const line = `${'z'.repeat(998)}\r\n`
      socket.write(`From: ${CONTACT_ADDRESS}\r\nTo: ${REP_ADDRESS}\r\nSubject: Slow\r\n\r\n${line.repeat(2048)}`)
      // While the sender is still sending (no final dot yet), its 2 MB so far are in a file.
      await vi.waitFor(
        async () => {
          const [dir] = await readdir(spoolDir)
          expect((await stat(join(spoolDir, dir ?? '', 'message.eml'))).size).toBeGreaterThanOrEqual(2_000_000)
        },
        { timeout: 10_000, interval: 20 },
      )
    } finally {
      socket.destroy()
    }
    // A sender that goes away mid-message leaves nothing behind.
    await vi.waitFor(
      async () => {
        expect(await readdir(spoolDir)).toEqual([])
      },
      { timeout: 10_000, interval: 20 },
    )
  })

  it('over the limit is refused with 552, nothing stored and nothing left on the disk', async () => {
    const before = await counts()
    const code = await sender
      .sendMail({
        from: CONTACT_ADDRESS,
        to: REP_ADDRESS,
        subject: 'Too large',
        text: 'x',
        // 21 MiB of files, 29 MiB in base64: each file under its limit, the message over its own.
        attachments: ['a', 'b', 'c'].map((name) => ({ filename: `${name}.bin`, content: randomBytes(7 * MiB) })),
      })
      .then(
        () => undefined,
        (error: unknown) => smtpCode(error),
      )
    expect(code).toBe(552)
    expect(await counts()).toEqual(before)
    expect(await readdir(spoolDir)).toEqual([])
  })
})

describe('the sender check', () => {
  interface Checked {
    id: string
    contact_id: string | null
    thread_id: string
    sender_check: { result: string; reason: string } | null
  }

  async function latestChecked(): Promise<Checked> {
    const res = await call(ctx.app, rep(), 'GET', `/activity/email/${(await latestEmail()).id}/`)
    expect(res.statusCode, res.body).toBe(200)
    return res.json<Checked>()
  }

  /** Runs `body` with these TXT records published, and none after. */
  async function withRecords(records: Record<string, string>, body: () => Promise<void>): Promise<void> {
    for (const [name, value] of Object.entries(records)) txtRecords.set(name, value)
    try {
      await body()
    } finally {
      txtRecords.clear()
    }
  }

  it('stores pass when the From domain’s SPF allows the sending address', async () => {
    await withRecords({ 'client.example': 'v=spf1 ip4:127.0.0.1 ip6:::1 -all' }, async () => {
      await transport.sendMail({ from: CONTACT_ADDRESS, to: REP_ADDRESS, subject: 'Checked', text: 'x' })
    })
    expect(await latestChecked()).toMatchObject({
      contact_id: scene.contactId,
      sender_check: { result: 'pass', reason: expect.stringMatching(/^SPF pass: client\.example allows /) },
    })
  })

  it('stores none when the domains publish nothing', async () => {
    await transport.sendMail({ from: CONTACT_ADDRESS, to: REP_ADDRESS, subject: 'Unchecked', text: 'x' })
    expect((await latestChecked()).sender_check).toEqual({
      result: 'none',
      reason: 'No DMARC policy for client.example; SPF none for client.example',
    })
  })

  it('stores fail when SPF disowns the sending address, which completes no follow-up', async () => {
    const proposal = await sentEmail('Forged reply')
    await withRecords({ 'client.example': 'v=spf1 ip4:192.0.2.1 -all' }, async () => {
      const info = await transport.sendMail({
        from: CONTACT_ADDRESS,
        to: REP_ADDRESS,
        subject: 'Re: Forged reply',
        text: 'Not really me.',
        inReplyTo: proposal.message_ids[0],
      })
      expect(info.accepted).toEqual([REP_ADDRESS])
    })
    const forged = await latestChecked()
    // It names the thread's Message-ID, so it joins that thread, but it is nobody's by its address.
    expect(forged).toMatchObject({
      thread_id: proposal.thread_id,
      contact_id: null,
      sender_check: {
        result: 'fail',
        reason: expect.stringMatching(/^SPF fail: client\.example does not allow .* to send its mail$/),
      },
    })
    expect(await tasksOfThread(proposal.thread_id, 'email_followup')).toMatchObject([{ is_complete: false }])
    // Its user sees it all the same, with the warning.
    expect(await tasksOfThread(proposal.thread_id, 'incoming_email')).toMatchObject([{ emails: [forged.id] }])
  })

  it('stores fail when DMARC finds neither SPF nor DKIM for the From domain', async () => {
    const records = {
      'client.example': 'v=spf1 ip4:192.0.2.1 -all',
      '_dmarc.client.example': 'v=DMARC1; p=reject',
      // The envelope's domain allows the address: SPF passes, for a domain that is not the From's.
      'bounces.example': 'v=spf1 ip4:127.0.0.1 ip6:::1 -all',
    }
    const proposal = await sentEmail('DMARC')
    await withRecords(records, async () => {
      await transport.sendMail({
        envelope: { from: 'x@bounces.example', to: [REP_ADDRESS] },
        from: CONTACT_ADDRESS,
        to: REP_ADDRESS,
        subject: 'Re: DMARC',
        text: 'x',
        references: proposal.message_ids,
      })
    })
    expect(await latestChecked()).toMatchObject({
      thread_id: proposal.thread_id,
      contact_id: null,
      sender_check: {
        result: 'fail',
        reason:
          'DMARC fail: client.example (policy reject) does not vouch for the message: neither SPF nor DKIM passed for it',
      },
    })
    expect(await tasksOfThread(proposal.thread_id, 'email_followup')).toMatchObject([{ is_complete: false }])
  })

  it('passes a forwarded reply whose DKIM signature holds though SPF fails, which clears the follow-up', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
    const spki = publicKey.export({ type: 'spki', format: 'der' }).toString('base64')
    const records = {
      // The forwarder's address is not the contact's domain's: SPF fails; the signature is what vouches.
      'client.example': 'v=spf1 ip4:192.0.2.1 -all',
      '_dmarc.client.example': 'v=DMARC1; p=reject',
      'mail._domainkey.client.example': `v=DKIM1; k=rsa; p=${spki}`,
    }
    const proposal = await sentEmail('Signed')
    const signing = nodemailer.createTransport({
      host: '127.0.0.1',
      port: receiver.port,
      secure: false,
      dkim: {
        domainName: 'client.example',
        keySelector: 'mail',
        privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      },
    })
    try {
      await withRecords(records, async () => {
        await signing.sendMail({
          from: CONTACT_ADDRESS,
          to: REP_ADDRESS,
          subject: 'Re: Signed',
          text: 'Signed and forwarded.',
          inReplyTo: proposal.message_ids[0],
        })
      })
    } finally {
      signing.close()
    }
    expect(await latestChecked()).toMatchObject({
      thread_id: proposal.thread_id,
      contact_id: scene.contactId,
      sender_check: { result: 'pass', reason: 'DMARC pass: client.example vouches for the message' },
    })
    expect(await tasksOfThread(proposal.thread_id, 'email_followup')).toEqual([])
  })

  it('fails a sender that names no thread: matched by its address alone it lands nowhere', async () => {
    const proposal = await sentEmail('By address')
    const before = await counts()
    await withRecords({ 'client.example': 'v=spf1 -all' }, async () => {
      await transport.sendMail({ from: CONTACT_ADDRESS, to: REP_ADDRESS, subject: 'Re: By address', text: 'x' })
    })
    expect(await counts()).toEqual(before)
    expect(logged.at(-1)).toBe('incoming email accepted, not stored (unknown-sender)')
    expect(await tasksOfThread(proposal.thread_id, 'email_followup')).toHaveLength(1)
  })

  it('is read-only', async () => {
    await withRecords({ 'client.example': 'v=spf1 -all' }, async () => {
      const proposal = await sentEmail('Read-only')
      await transport.sendMail({
        from: CONTACT_ADDRESS,
        to: REP_ADDRESS,
        subject: 'Re: Read-only',
        text: 'x',
        inReplyTo: proposal.message_ids[0],
      })
    })
    const forged = await latestChecked()
    const put = await call(ctx.app, rep(), 'PUT', `/activity/email/${forged.id}/`, {
      body: { sender_check: { result: 'pass', reason: 'trust me' } },
    })
    expect(put.statusCode, put.body).toBe(200)
    expect((await latestChecked()).sender_check).toMatchObject({ result: 'fail' })
  })

  it('answers 451 and stores nothing when the DNS does not answer in time', async () => {
    const silent: DNSResolver = () => new Promise(() => undefined)
    const slow = await otherReceiver({ senderCheckSeconds: 1 }, { resolver: silent })
    const sender = nodemailer.createTransport({ host: '127.0.0.1', port: slow.port, secure: false })
    const before = await counts()
    try {
      const code = await sender
        .sendMail({ from: CONTACT_ADDRESS, to: REP_ADDRESS, subject: 'Slow DNS', text: 'x' })
        .then(
          () => undefined,
          (error: unknown) => smtpCode(error),
        )
      expect(code).toBe(451)
      expect(await counts()).toEqual(before)
    } finally {
      sender.close()
      await slow.close()
    }
  })
})
