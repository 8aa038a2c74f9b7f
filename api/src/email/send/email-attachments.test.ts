import type { LightMyRequestResponse } from 'fastify'
import type { ParsedMail } from 'mailparser'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { insertEmailAttachments, listedAttachment, receivedFile } from '../attachments/email-attachment-repo.js'
import type { Dispatcher } from '../../integrations/outbox/outbox-dispatcher.js'
import { formatTimestamp } from '../../platform/data/time.js'
import {
  CONTACT_ADDRESS,
  emailDispatcher,
  emailScene,
  REP_ADDRESS,
  type EmailScene,
} from '../../tooling/test-support/email-scene.js'
import { startFileServer, type FileServer } from '../../tooling/test-support/file-server.js'
import { startSmtpSink, type SmtpSink } from '../../tooling/test-support/smtp-sink.js'
import {
  basicAuth,
  call,
  createTestContext,
  type TestContext,
  type TestOrg,
} from '../../tooling/test-support/test-app.js'
import { recordIncomingEmail } from './email-store.js'
import { outboxSink } from '../../integrations/outbox/outbox-writer.js'

// Files sent with emails (decision 0034): uploaded and listed by their URL, or fetched from an https URL when the
// email is sent; through the dispatcher to a real SMTP server, read back with mailparser. Limits are small here: a
// file up to 64 KiB, a message's files up to 100 KiB.

const FILE_LIMIT = 64 * 1024
const MESSAGE_LIMIT = 100 * 1024
const MAX_ATTEMPTS = 3

let ctx: TestContext
let sink: SmtpSink
let files: FileServer
let org: TestOrg
let scene: EmailScene
let dispatcher: Dispatcher

beforeAll(async () => {
  ctx = await createTestContext({
    env: {
      LEADLINE_OUTBOUND_ALLOW_PRIVATE: '1',
      LEADLINE_EMAIL_MAX_ATTEMPTS: String(MAX_ATTEMPTS),
      LEADLINE_EMAIL_ATTACHMENT_MAX_BYTES: String(FILE_LIMIT),
      LEADLINE_SMTP_MAX_MESSAGE_BYTES: String(MESSAGE_LIMIT),
    },
  })
  sink = await startSmtpSink({ tls: 'starttls' })
  files = await startFileServer()
})
afterAll(async () => {
  await files.close()
  await sink.close()
  await ctx.close()
})
beforeEach(async () => {
  sink.received.length = 0
  org = await ctx.createOrg('Attachers')
  scene = await emailScene(ctx.app, ctx.database.db, org, { host: 'localhost', port: sink.port })
  dispatcher = emailDispatcher(ctx)
})
afterEach(async () => {
  await dispatcher.stop()
})

interface Attachment {
  url: string
  filename: string
  content_type: string | null
  size: number
  content_id?: string | null
}
interface Email {
  id: string
  status: string
  attachments: Attachment[]
  error_message: string | null
  send_attempts: { date: string; error: string }[]
}
interface Uploaded {
  id: string
  url: string
  filename: string
  content_type: string
  size: number
}

async function uploadFile(bytes: Buffer, filename: string, contentType: string, key = org.member.key) {
  const res = await ctx.app.inject({
    method: 'POST',
    url: `/api/v1/email_attachment/?filename=${encodeURIComponent(filename)}`,
    headers: { authorization: basicAuth(key), 'content-type': contentType },
    payload: bytes,
  })
  expect(res.statusCode, res.body).toBe(200)
  return res.json<Uploaded>()
}

function post(body: Record<string, unknown>, key = org.member.key): Promise<LightMyRequestResponse> {
  return call(ctx.app, key, 'POST', '/activity/email/', {
    body: { lead_id: scene.leadId, sender: REP_ADDRESS, to: [CONTACT_ADDRESS], subject: 'Files', ...body },
  })
}

async function create(body: Record<string, unknown>): Promise<Email> {
  const res = await post(body)
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

async function update(id: string, body: Record<string, unknown>): Promise<Email> {
  const res = await call(ctx.app, org.member.key, 'PUT', `/activity/email/${id}/`, { body })
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

async function read(id: string): Promise<Email> {
  const res = await call(ctx.app, org.member.key, 'GET', `/activity/email/${id}/`)
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

/** The files stored for the organization: id, the email each is in, its name. */
function storedFiles(organizationId = org.id) {
  return ctx.database.db
    .selectFrom('email_attachment')
    .select(['id', 'activity_id', 'filename', 'content'])
    .where('organization_id', '=', organizationId)
    .orderBy('date_created')
    .orderBy('id')
    .execute()
}

const idOf = (url: string) => /\/email_attachment\/([^/]+)\/$/.exec(url)?.[1] ?? ''
const fieldErrors = (res: LightMyRequestResponse) =>
  res.json<{ 'field-errors': Record<string, string> }>()['field-errors']

function onlyMail(): ParsedMail {
  expect(sink.received).toHaveLength(1)
  const [mail] = sink.received
  if (mail === undefined) throw new Error('nothing arrived')
  return mail.parsed
}

/** An email received from the contact, with one file stored as incoming mail stores it. */
async function receivedWithFile(content: Buffer, filename: string) {
  const file = receivedFile({ filename, contentType: 'image/png', contentId: 'logo@client', content })
  const now = formatTimestamp(ctx.clock.now())
  const events = { organizationId: org.id, userId: null, requestId: null, apiKeyId: null, now, sink: outboxSink(null) }
  const stored = await ctx.database.db.transaction().execute(async (tx) => {
    const email = await recordIncomingEmail(
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
        subject: 'Our logo',
        bodyText: 'Attached.',
        bodyHtml: null,
        messageId: `<logo-${file.id}@client.example>`,
        inReplyTo: null,
        references: [],
        attachments: [listedAttachment(file)],
        dateSent: now,
        now,
      },
      events,
    )
    await insertEmailAttachments(tx, { organizationId: org.id, activityId: email.activityId, now }, [file])
    return email
  })
  return { emailId: stored.activityId, attachment: listedAttachment(file) }
}

describe('a file uploaded and sent', () => {
  it('arrives with its name, type and exact bytes; the email lists the stored file’s own fields', async () => {
    const bytes = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 7) % 256))
    const file = await uploadFile(bytes, 'Angebot «2026».pdf', 'application/pdf')
    const draft = await create({
      status: 'draft',
      body_text: 'Here it is.',
      // The name, type and size given are not the file's: the stored file's win.
      attachments: [{ url: file.url, filename: 'lie.exe', content_type: 'application/x-msdownload', size: 1 }],
    })
    expect(draft.attachments).toEqual([
      { url: file.url, filename: 'Angebot «2026».pdf', content_type: 'application/pdf', size: 3000, content_id: null },
    ])
    expect((await storedFiles()).map((f) => [f.id, f.activity_id])).toEqual([[file.id, draft.id]])

    await update(draft.id, { status: 'outbox' })
    expect(await dispatcher.drain()).toBe(1)
    const parsed = onlyMail()
    expect(parsed.text?.trim()).toBe('Here it is.')
    expect(parsed.attachments).toHaveLength(1)
    const [arrived] = parsed.attachments
    expect(arrived?.filename).toBe('Angebot «2026».pdf')
    expect(arrived?.contentType).toBe('application/pdf')
    expect(arrived?.content.equals(bytes)).toBe(true)
    expect((await read(draft.id)).status).toBe('sent')
  })

  it('keeps the Content-ID of an inline image, for the HTML that shows it', async () => {
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex')
    const file = await uploadFile(png, 'logo.png', 'image/png')
    await create({
      status: 'outbox',
      body_html: '<p>Our logo: <img src="cid:logo@acme"></p>',
      attachments: [{ url: file.url, filename: 'logo.png', size: png.length, content_id: 'logo@acme' }],
    })
    await dispatcher.drain()
    const [arrived] = onlyMail().attachments
    expect(arrived?.cid).toBe('logo@acme')
    expect(arrived?.content.equals(png)).toBe(true)
  })

  it('sends several files, an upload and one fetched from an https URL, in the order listed', async () => {
    const uploaded = await uploadFile(Buffer.from('first'), 'first.txt', 'text/plain')
    const fetched = Buffer.from([0xca, 0xfe, 0xba, 0xbe, 0x00, 0x01])
    files.serve('/files/second.bin', { status: 200, body: fetched, headers: { 'content-type': 'application/x-other' } })
    const email = await create({
      status: 'outbox',
      attachments: [
        { url: uploaded.url, filename: 'first.txt', size: 5 },
        {
          url: `${files.origin}/files/second.bin`,
          filename: 'second.bin',
          content_type: 'application/octet-stream',
          size: 6,
        },
      ],
    })
    expect(await dispatcher.drain()).toBe(1)
    const arrived = onlyMail().attachments
    expect(arrived.map((a) => [a.filename, a.contentType, a.content.toString('hex')])).toEqual([
      ['first.txt', 'text/plain', Buffer.from('first').toString('hex')],
      ['second.bin', 'application/octet-stream', fetched.toString('hex')],
    ])
    expect((await read(email.id)).status).toBe('sent')
  })
})

describe('a file fetched from an https URL', () => {
  const listed = (path: string, filename = 'report.pdf') => ({
    url: `${files.origin}${path}`,
    filename,
    content_type: 'application/pdf',
    size: 10,
  })

  it.each([404, 410, 403])('fails the email at once, naming the file, when the server answers %i', async (status) => {
    files.serve(`/gone-${String(status)}.pdf`, { status })
    const email = await create({ status: 'outbox', attachments: [listed(`/gone-${String(status)}.pdf`)] })
    expect(await dispatcher.drain()).toBe(1)
    const failed = await read(email.id)
    expect(failed.status).toBe('error')
    expect(failed.error_message).toBe(
      `The attachment "report.pdf" could not be fetched from ${files.origin}/gone-${String(status)}.pdf: answered ${String(status)}.`,
    )
    expect(sink.received).toEqual([])
  })

  it('retries an email whose file server fails (500), and sends it once the file comes', async () => {
    files.serve('/flaky.pdf', { status: 500 })
    const email = await create({ status: 'outbox', attachments: [listed('/flaky.pdf')] })
    expect(await dispatcher.drain()).toBe(1)
    const waiting = await read(email.id)
    expect(waiting.status).toBe('outbox')
    expect(waiting.send_attempts).toEqual([
      { date: expect.any(String), error: expect.stringContaining('"report.pdf" could not be fetched') },
    ])
    expect(waiting.send_attempts[0]?.error).toContain('answered 500')
    expect(sink.received).toEqual([])
    const pdf = Buffer.from('%PDF-1.7 ok')
    files.serve('/flaky.pdf', { status: 200, body: pdf })
    ctx.clock.advance(31_000)
    expect(await dispatcher.drain()).toBe(1)
    expect(onlyMail().attachments[0]?.content.equals(pdf)).toBe(true)
    expect((await read(email.id)).status).toBe('sent')
  })

  it('retries a network failure, and fails after the last attempt', async () => {
    const closed = await startFileServer()
    await closed.close()
    const email = await create({
      status: 'outbox',
      attachments: [{ ...listed('/x.pdf'), url: `${closed.origin}/x.pdf` }],
    })
    for (const wait of [0, 31_000, 61_000]) {
      ctx.clock.advance(wait)
      expect(await dispatcher.drain()).toBe(1)
    }
    const failed = await read(email.id)
    expect(failed.status).toBe('error')
    expect(failed.send_attempts).toHaveLength(MAX_ATTEMPTS)
    expect(failed.error_message).toMatch(/^The attachment "report.pdf" could not be fetched from .*ECONNREFUSED/)
  })

  it('fails the email at once for a file over the limit, declared or not', async () => {
    files.serve('/big.bin', { status: 200, body: Buffer.alloc(FILE_LIMIT + 1) })
    files.serve('/big-stream.bin', { status: 200, body: Buffer.alloc(FILE_LIMIT + 1), chunked: true })
    for (const path of ['/big.bin', '/big-stream.bin']) {
      const email = await create({ status: 'outbox', attachments: [listed(path, 'video.bin')] })
      expect(await dispatcher.drain()).toBe(1)
      expect(await read(email.id)).toMatchObject({
        status: 'error',
        error_message: 'The attachment "video.bin" is larger than 64 KiB, the limit of a file.',
      })
    }
    expect(sink.received).toEqual([])
  })

  it('fails the email at once when its files add up to more than a message may carry', async () => {
    const half = Buffer.alloc(60 * 1024, 1)
    const uploaded = await uploadFile(half, 'one.bin', 'application/octet-stream')
    files.serve('/two.bin', { status: 200, body: half })
    const email = await create({
      status: 'outbox',
      attachments: [{ url: uploaded.url, filename: 'one.bin', size: half.length }, listed('/two.bin', 'two.bin')],
    })
    expect(await dispatcher.drain()).toBe(1)
    expect(await read(email.id)).toMatchObject({
      status: 'error',
      error_message: 'The attachments add up to more than 100 KiB, the limit of a message.',
    })
    expect(sink.received).toEqual([])
  })

  it('fails the email at once when a redirect is answered, never following it', async () => {
    files.serve('/moved.pdf', { status: 302, headers: { location: `${files.origin}/elsewhere.pdf` } })
    files.serve('/elsewhere.pdf', { status: 200, body: Buffer.from('%PDF') })
    const email = await create({ status: 'outbox', attachments: [listed('/moved.pdf')] })
    await dispatcher.drain()
    expect((await read(email.id)).error_message).toContain('redirects are not followed')
    expect(files.requests).not.toContain('/elsewhere.pdf')
  })
})

describe('binding files to emails', () => {
  it('copies a received file for an email that forwards it; deleting the received email leaves the copy', async () => {
    const logo = Buffer.from('a small png, as it were')
    const received = await receivedWithFile(logo, 'logo.png')
    const forward = await create({
      status: 'draft',
      subject: 'Fwd: Our logo',
      attachments: [received.attachment],
    })
    const [copy] = forward.attachments
    expect(copy).toEqual({
      url: expect.stringMatching(/^\/api\/v1\/email_attachment\/attach_\w+\/$/),
      filename: 'logo.png',
      content_type: 'image/png',
      size: logo.length,
      content_id: 'logo@client',
    })
    expect(copy?.url).not.toBe(received.attachment.url)
    const deleted = await call(ctx.app, org.member.key, 'DELETE', `/activity/email/${received.emailId}/`)
    expect(deleted.statusCode).toBe(200)
    expect((await storedFiles()).map((f) => [f.id, f.activity_id])).toEqual([[idOf(copy?.url ?? ''), forward.id]])

    await update(forward.id, { status: 'outbox' })
    await dispatcher.drain()
    const [arrived] = onlyMail().attachments
    expect(arrived?.filename).toBe('logo.png')
    expect(arrived?.content.equals(logo)).toBe(true)
  })

  it('copies a failed email’s files for the copy sent again (Try again), which outlive its deletion', async () => {
    const file = await uploadFile(Buffer.from('terms'), 'terms.txt', 'text/plain')
    sink.answerWith(() => ({ accept: false, code: 550, message: 'No such user' }))
    const failed = await create({ status: 'outbox', attachments: [{ url: file.url, filename: 'terms.txt', size: 5 }] })
    for (const wait of [0, 31_000, 61_000]) {
      ctx.clock.advance(wait)
      await dispatcher.drain()
    }
    expect((await read(failed.id)).status).toBe('error')
    sink.answerWith(() => ({ accept: true }))

    const again = await create({ status: 'outbox', attachments: failed.attachments })
    expect(again.attachments[0]?.url).not.toBe(file.url)
    expect((await call(ctx.app, org.member.key, 'DELETE', `/activity/email/${failed.id}/`)).statusCode).toBe(200)
    expect(await dispatcher.drain()).toBe(1)
    expect(onlyMail().attachments.map((a) => [a.filename, a.content.toString()])).toEqual([['terms.txt', 'terms']])
    expect((await storedFiles()).map((f) => f.activity_id)).toEqual([again.id])
  })

  it('binds an upload to the first email that lists it and copies it for a second', async () => {
    const file = await uploadFile(Buffer.from('shared'), 'shared.txt', 'text/plain')
    const listed = [{ url: file.url, filename: 'shared.txt', size: 6 }]
    const first = await create({ status: 'draft', attachments: listed })
    const second = await create({ status: 'draft', attachments: listed })
    expect(first.attachments[0]?.url).toBe(file.url)
    expect(second.attachments[0]?.url).not.toBe(file.url)
    const stored = await storedFiles()
    expect(stored.map((f) => [f.activity_id, f.filename, f.content])).toEqual([
      [first.id, 'shared.txt', Buffer.from('shared').toString('base64')],
      [second.id, 'shared.txt', Buffer.from('shared').toString('base64')],
    ])
    // Deleting an email deletes its files.
    expect((await call(ctx.app, org.member.key, 'DELETE', `/activity/email/${first.id}/`)).statusCode).toBe(200)
    expect((await storedFiles()).map((f) => f.activity_id)).toEqual([second.id])
  })

  it('deletes a file a draft update drops, keeps the ones it still lists, and binds the ones it adds', async () => {
    const a = await uploadFile(Buffer.from('a'), 'a.txt', 'text/plain')
    const b = await uploadFile(Buffer.from('b'), 'b.txt', 'text/plain')
    const c = await uploadFile(Buffer.from('c'), 'c.txt', 'text/plain')
    const as = (f: Uploaded) => ({ url: f.url, filename: f.filename, size: f.size })
    const draft = await create({ status: 'draft', attachments: [as(a), as(b)] })
    // An update that leaves attachments out changes none of them.
    await update(draft.id, { subject: 'Still two' })
    expect((await storedFiles()).map((f) => f.id)).toEqual([a.id, b.id, c.id])
    const changed = await update(draft.id, { attachments: [as(b), as(c)] })
    expect(changed.attachments.map((x) => x.filename)).toEqual(['b.txt', 'c.txt'])
    expect((await storedFiles()).map((f) => [f.id, f.activity_id])).toEqual([
      [b.id, draft.id],
      [c.id, draft.id],
    ])
    await update(draft.id, { attachments: [] })
    expect(await storedFiles()).toEqual([])
  })

  it('takes an email’s own attachments sent back as they are as no change, once it is no draft', async () => {
    const file = await uploadFile(Buffer.from('kept'), 'kept.txt', 'text/plain')
    const email = await create({ status: 'sent', attachments: [{ url: file.url, filename: 'kept.txt', size: 4 }] })
    const again = await update(email.id, { attachments: email.attachments })
    expect(again.attachments).toEqual(email.attachments)
    const other = await uploadFile(Buffer.from('new'), 'new.txt', 'text/plain')
    const refused = await call(ctx.app, org.member.key, 'PUT', `/activity/email/${email.id}/`, {
      body: { attachments: [{ url: other.url, filename: 'new.txt', size: 3 }] },
    })
    expect(refused.statusCode).toBe(400)
    expect(fieldErrors(refused)).toEqual({ attachments: 'Only a draft can be changed; this email is sent.' })
    expect((await storedFiles()).map((f) => [f.id, f.activity_id])).toEqual([
      [file.id, email.id],
      [other.id, null],
    ])
  })

  it('refuses another organization’s file, or one that does not exist, and writes nothing', async () => {
    const foreign = await uploadFile(Buffer.from('theirs'), 'theirs.txt', 'text/plain', ctx.other.member.key)
    const mine = await uploadFile(Buffer.from('mine'), 'mine.txt', 'text/plain')
    const before = await call(ctx.app, org.member.key, 'GET', '/activity/email/', { query: { lead_id: scene.leadId } })
    const res = await post({
      status: 'draft',
      attachments: [
        { url: mine.url, filename: 'mine.txt', size: 4 },
        { url: foreign.url, filename: 'theirs.txt', size: 6 },
        { url: '/api/v1/email_attachment/attach_nothing/', filename: 'none.txt', size: 1 },
        { url: 'http://files.example.com/plain.txt', filename: 'plain.txt', size: 1 },
      ],
    })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual({
      errors: [],
      'field-errors': {
        'attachments.1.url': 'Not a file of your organization.',
        'attachments.2.url': 'Not a file of your organization.',
        'attachments.3.url': 'Must be an https:// URL or a file uploaded.',
      },
    })
    const after = await call(ctx.app, org.member.key, 'GET', '/activity/email/', { query: { lead_id: scene.leadId } })
    expect(after.json()).toEqual(before.json())
    expect((await storedFiles()).map((f) => [f.id, f.activity_id])).toEqual([[mine.id, null]])
    expect((await storedFiles(ctx.other.id)).map((f) => [f.id, f.activity_id])).toEqual([[foreign.id, null]])
  })
})
