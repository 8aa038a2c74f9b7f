import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { Dispatcher } from '../../integrations/outbox/outbox-dispatcher.js'
import {
  CONTACT_ADDRESS,
  emailDispatcher,
  emailScene,
  REP_ADDRESS,
  type EmailScene,
} from '../../tooling/test-support/email-scene.js'
import { startSmtpSink, type SmtpSink } from '../../tooling/test-support/smtp-sink.js'
import {
  basicAuth,
  call,
  createTestContext,
  type TestContext,
  type TestOrg,
} from '../../tooling/test-support/test-app.js'

// An email goes to exactly the recipients stored, and what is stored is what was asked (decision 0037): a control
// character in an address, a name, the sender, the subject or a file's name is a 400 naming the field, and nothing
// is stored or sent; a template's subject stays on one line whatever a contact's name holds; what reaches the
// sending layer with a control character anyway is not sent; and the SMTP envelope is the stored to, cc and bcc.

const INJECTED = 'injected-to@evil.test'
const NO_CONTROL = 'Must not contain line breaks or other control characters.'

let ctx: TestContext
let sink: SmtpSink
let org: TestOrg
let scene: EmailScene
let dispatcher: Dispatcher

beforeAll(async () => {
  ctx = await createTestContext({ env: { LEADLINE_OUTBOUND_ALLOW_PRIVATE: '1' } })
  sink = await startSmtpSink()
})
afterAll(async () => {
  await sink.close()
  await ctx.close()
})
beforeEach(async () => {
  sink.received.length = 0
  org = await ctx.createOrg('Headers')
  scene = await emailScene(ctx.app, ctx.database.db, org, { host: '127.0.0.1', port: sink.port })
  dispatcher = emailDispatcher(ctx)
})
afterEach(async () => {
  await dispatcher.stop()
})

interface Email {
  id: string
  status: string
  subject: string
  to: string[]
  error_message: string | null
}

const outbox = { status: 'outbox', sender: REP_ADDRESS, subject: 'Quote', to: [CONTACT_ADDRESS], body_text: 'Hello' }

const post = (body: Record<string, unknown>) =>
  call(ctx.app, org.member.key, 'POST', '/activity/email/', { body: { lead_id: scene.leadId, ...body } })

/** The organization's emails as stored. */
const storedEmails = () =>
  ctx.database.db
    .selectFrom('activity')
    .select(['id', 'data'])
    .where('organization_id', '=', org.id)
    .where('type', '=', 'Email')
    .orderBy('id')
    .execute()

describe('control characters are refused on the way in', () => {
  it('in every address, name, sender, subject and file name: a 400 naming the field, nothing stored or sent', async () => {
    const file = { url: 'https://files.example/q.pdf', filename: 'q.pdf', size: 3 }
    const cases: [Record<string, unknown>, string][] = [
      [{ to: [`x@example.com\r\nBcc: ${INJECTED}`] }, 'to.0'],
      [{ to: [CONTACT_ADDRESS], cc: [`x@example.com\nBcc: ${INJECTED}`] }, 'cc.0'],
      [{ bcc: [CONTACT_ADDRESS, `x@example.com\rBcc: ${INJECTED}`] }, 'bcc.1'],
      [{ to: [`"Tess\r\nBcc: ${INJECTED}" <${CONTACT_ADDRESS}>`] }, 'to.0'],
      [{ to: [`Tess\tMail <${CONTACT_ADDRESS}>`] }, 'to.0'],
      [{ to: [`Tess\u2028Bcc: ${INJECTED} <${CONTACT_ADDRESS}>`] }, 'to.0'],
      [{ to: [`Tess\u2029 <${CONTACT_ADDRESS}>`] }, 'to.0'],
      [{ to: [`Tess\u0085Bcc: ${INJECTED} <${CONTACT_ADDRESS}>`] }, 'to.0'],
      [{ to: [`Tess\u007f <${CONTACT_ADDRESS}>`] }, 'to.0'],
      [{ sender: `Rey\r\nBcc: ${INJECTED} <${REP_ADDRESS}>` }, 'sender'],
      [{ subject: `Quote\r\nBcc: ${INJECTED}` }, 'subject'],
      [{ subject: 'Quote\u2028Bcc: x' }, 'subject'],
      [{ attachments: [{ ...file, filename: 'q.pdf\r\nContent-Type: text/html' }] }, 'attachments.0.filename'],
      [{ attachments: [{ ...file, content_type: 'application/pdf\r\nX: y' }] }, 'attachments.0.content_type'],
    ]
    for (const [change, field] of cases) {
      for (const status of ['outbox', 'draft']) {
        const res = await post({ ...outbox, ...change, status })
        expect(res.statusCode, `${field}: ${res.body}`).toBe(400)
        expect(res.json<{ 'field-errors': Record<string, string> }>()['field-errors']).toEqual({ [field]: NO_CONTROL })
      }
    }
    // NUL is refused before this check, in every text field (it cannot be stored as sent).
    const nul = await post({ ...outbox, to: [`${CONTACT_ADDRESS}\u0000`] })
    expect(nul.statusCode, nul.body).toBe(400)
    expect(Object.keys(nul.json<{ 'field-errors': Record<string, string> }>()['field-errors'])).toEqual(['to.0'])
    expect(await storedEmails()).toEqual([])
    ctx.clock.advance(60_000)
    await dispatcher.drain()
    expect(sink.received).toEqual([])
  })

  it('a group, whose name shows while another address receives, is not an address', async () => {
    const res = await post({ ...outbox, to: [`x@example.com Bcc: ${INJECTED};`] })
    expect(res.statusCode, res.body).toBe(400)
    expect(res.json<{ 'field-errors': Record<string, string> }>()['field-errors']).toEqual({
      'to.0': 'Enter a valid email address.',
    })
    expect(await storedEmails()).toEqual([])
  })

  it('PUT refuses them in a draft, which stays as it was', async () => {
    const draft = (await post({ ...outbox, status: 'draft' })).json<Email>()
    const before = await storedEmails()
    for (const [body, field] of [
      [{ to: [`x@example.com\r\nBcc: ${INJECTED}`] }, 'to.0'],
      [{ subject: 'Quote\nBcc: x', status: 'outbox' }, 'subject'],
    ] as const) {
      const res = await call(ctx.app, org.member.key, 'PUT', `/activity/email/${draft.id}/`, { body })
      expect(res.statusCode, res.body).toBe(400)
      expect(res.json<{ 'field-errors': Record<string, string> }>()['field-errors']).toEqual({ [field]: NO_CONTROL })
    }
    expect(await storedEmails()).toEqual(before)
  })

  it('in a template’s subject, and an uploaded file’s name', async () => {
    const template = await call(ctx.app, org.member.key, 'POST', '/email_template/', {
      body: { name: 'Bad', subject: `Hi\r\nBcc: ${INJECTED}`, body: '<p>Hi</p>' },
    })
    expect(template.statusCode, template.body).toBe(400)
    expect(template.json<{ 'field-errors': Record<string, string> }>()['field-errors']).toEqual({ subject: NO_CONTROL })
    for (const filename of ['a\r\nb.pdf', 'a\u2028b.pdf']) {
      const upload = await ctx.app.inject({
        method: 'POST',
        url: `/api/v1/email_attachment/?filename=${encodeURIComponent(filename)}`,
        headers: { authorization: basicAuth(org.member.key), 'content-type': 'application/pdf' },
        payload: Buffer.from('%PDF'),
      })
      expect(upload.statusCode, upload.body).toBe(400)
      expect(upload.json<{ 'field-errors': Record<string, string> }>()['field-errors']).toEqual({
        filename: NO_CONTROL,
      })
    }
  })

  it('a template’s subject rendered with a name that holds line breaks stays on one line', async () => {
    const res = await call(ctx.app, org.member.key, 'PUT', `/contact/${scene.contactId}/`, {
      body: { name: `Tess\r\nBcc: ${INJECTED}\u2028Mail` },
    })
    expect(res.statusCode, res.body).toBe(200)
    const email = await post({ ...outbox, subject: undefined, template_id: scene.templateId, body_text: undefined })
    expect(email.statusCode, email.body).toBe(200)
    const subject = email.json<Email>().subject
    expect(subject).toMatch(/^Hello Tess/)
    expect(subject).not.toMatch(/[\p{Cc}\u2028\u2029]/u)
    ctx.clock.advance(60_000)
    await dispatcher.drain()
    expect(sink.received.map((m) => [m.rcptTo, m.parsed.subject])).toEqual([[[CONTACT_ADDRESS], subject]])
  })
})

describe('what is sent is what is stored', () => {
  it('the envelope is exactly the stored to, cc and bcc', async () => {
    const email = await post({
      ...outbox,
      to: [`Tess Mail <${CONTACT_ADDRESS}>`, 'second@client.example'],
      cc: ['"Carl, Copied" <carl@client.example>'],
      bcc: ['hidden@client.example'],
    })
    expect(email.statusCode, email.body).toBe(200)
    ctx.clock.advance(60_000)
    await dispatcher.drain()
    expect(sink.received).toHaveLength(1)
    const [mail] = sink.received
    expect(mail?.mailFrom).toBe(REP_ADDRESS)
    expect(mail?.rcptTo).toEqual([
      CONTACT_ADDRESS,
      'second@client.example',
      'carl@client.example',
      'hidden@client.example',
    ])
    expect(mail?.raw).not.toMatch(/hidden@client\.example/)
  })

  it('a stored email whose headers would carry a control character is not sent', async () => {
    const draft = (await post({ ...outbox, status: 'draft' })).json<Email>()
    // Stored by a way in that did not check (an older version, an import): the sending layer is the last guard.
    const row = await ctx.database.db
      .selectFrom('activity')
      .select('data')
      .where('id', '=', draft.id)
      .executeTakeFirstOrThrow()
    const data = { ...(JSON.parse(row.data) as Record<string, unknown>), to: [`x@example.com\r\nBcc: ${INJECTED}`] }
    await ctx.database.db
      .updateTable('activity')
      .set({ data: JSON.stringify(data) })
      .where('id', '=', draft.id)
      .execute()
    const res = await call(ctx.app, org.member.key, 'PUT', `/activity/email/${draft.id}/`, {
      body: { status: 'outbox' },
    })
    expect(res.statusCode, res.body).toBe(200)
    ctx.clock.advance(60_000)
    await dispatcher.drain()
    expect(sink.received).toEqual([])
    const after = await call(ctx.app, org.member.key, 'GET', `/activity/email/${draft.id}/`)
    expect(after.json()).toMatchObject({
      status: 'error',
      error_message: 'Not sent: the email’s to.0 holds a line break or another control character.',
    })
  })
})
