import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { formatTimestamp } from '../../platform/data/time.js'
import {
  CONTACT_ADDRESS,
  emailScene,
  REP_ADDRESS,
  REP_IDENTITY,
  type EmailScene,
} from '../../tooling/test-support/email-scene.js'
import { pathologicalHtml } from '../../tooling/test-support/pathological-html.js'
import { answeredWhileOthersWait } from '../../tooling/test-support/responsive.js'
import { call, createTestContext, type TestContext } from '../../tooling/test-support/test-app.js'

// /activity/email/ over HTTP: every field rule, each status on create, the moves of the state machine, threads.

let ctx: TestContext
let scene: EmailScene
let otherScene: EmailScene
const SMTP = { host: 'smtp.acme.example', port: 587 }

beforeAll(async () => {
  ctx = await createTestContext()
  scene = await emailScene(ctx.app, ctx.database.db, ctx.org, SMTP)
  otherScene = await emailScene(
    ctx.app,
    ctx.database.db,
    ctx.other,
    { host: 'smtp.globex.example', port: 587 },
    { rep: 'sam@globex.example', identity: 'sales@globex.example' },
  )
})
afterAll(async () => {
  await ctx.close()
})
beforeEach(() => {
  ctx.clock.advance(60_000)
})

const rep = () => ctx.org.member.key

interface Email {
  id: string
  status: string
  direction: string
  subject: string
  body_text: string
  body_html: string
  sender: string | null
  to: string[]
  thread_id: string
  date_created: string
  date_sent: string | null
  date_scheduled: string | null
  email_account_id: string | null
  template_id: string | null
  template_name: string | null
  [key: string]: unknown
}

async function post(body: Record<string, unknown>, key = rep()) {
  return call(ctx.app, key, 'POST', '/activity/email/', { body: { lead_id: scene.leadId, ...body } })
}

async function create(body: Record<string, unknown>): Promise<Email> {
  const res = await post(body)
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

async function put(id: string, body: Record<string, unknown>) {
  return call(ctx.app, rep(), 'PUT', `/activity/email/${id}/`, { body })
}

const fieldErrors = (res: { json: () => unknown }) =>
  (res.json() as { 'field-errors': Record<string, string> })['field-errors']

const draft = (extra: Record<string, unknown> = {}) =>
  create({
    status: 'draft',
    subject: 'Proposal',
    body_text: 'Hello there',
    sender: REP_ADDRESS,
    to: [CONTACT_ADDRESS],
    contact_id: scene.contactId,
    ...extra,
  })

const inOneHour = () => formatTimestamp(new Date(ctx.clock.now().getTime() + 3_600_000))

function sends(activityId: string) {
  return ctx.database.db
    .selectFrom('outbox')
    .select(['status', 'next_attempt_at', 'kind'])
    .where('ordering_key', '=', `email:${activityId}`)
    .orderBy('seq')
    .execute()
}

describe('POST /activity/email/', () => {
  it('keeps a draft as Close does, with timestamps without an offset, and the view’s extras', async () => {
    const email = await draft({ body_text: 'Hi Tess,\n\nSee <attached>.' })
    expect(email).toMatchObject({
      _type: 'Email',
      status: 'draft',
      direction: 'outgoing',
      subject: 'Proposal',
      body_text: 'Hi Tess,\n\nSee <attached>.',
      body_html: 'Hi Tess,<br><br>See &#60;attached&#62;.',
      body_preview: 'Hi Tess,\n\nSee <attached>.',
      sender: REP_ADDRESS,
      to: [CONTACT_ADDRESS],
      cc: [],
      bcc: [],
      user_id: ctx.org.member.id,
      contact_id: scene.contactId,
      opens: [],
      opens_summary: null,
      has_reply: false,
      need_smtp_credentials: false,
      bulk_email_action_id: null,
      message_ids: [],
      send_attempts: [],
      envelope: {
        from: [{ email: REP_ADDRESS, name: '' }],
        to: [{ email: CONTACT_ADDRESS, name: '' }],
        subject: 'Proposal',
        is_autoreply: false,
        reply_to: [],
      },
    })
    expect(email.thread_id).toMatch(/^acti_/)
    expect(email.date_created).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}$/)
    expect(email.date_updated).toMatch(/\.\d{6}$/)
    // Everything else keeps the offset.
    const read = await call(ctx.app, rep(), 'GET', `/activity/email/${email.id}/`)
    expect(read.json<Email>().date_created).toBe(`${email.date_created}+00:00`)
  })
})

describe('each status on create', () => {
  it('inbox: an email received, incoming, which needs a sender', async () => {
    const email = await create({
      status: 'inbox',
      subject: 'Question',
      body_html: '<p>Is it <b>ready</b>?</p>',
      sender: `"Tess Mail" <${CONTACT_ADDRESS}>`,
      to: [REP_ADDRESS],
    })
    expect(email).toMatchObject({ status: 'inbox', direction: 'incoming', body_text: 'Is it ready?' })
    expect(email.date_sent).not.toBeNull()
    expect(email.envelope).toMatchObject({ from: [{ email: CONTACT_ADDRESS, name: 'Tess Mail' }] })
    expect(fieldErrors(await post({ status: 'inbox', subject: 'No sender' }))).toEqual({
      sender: 'This field is required.',
    })
  })

  it('sent: sent elsewhere, nothing to send; the sender defaults to the address of the email’s user', async () => {
    const email = await create({
      status: 'sent',
      subject: 'Logged',
      body_text: 'Sent from my phone',
      to: [CONTACT_ADDRESS],
    })
    expect(email).toMatchObject({
      status: 'sent',
      direction: 'outgoing',
      sender: expect.stringMatching(/^rep-.*@example\.com$/),
    })
    expect(email.date_sent).toBe(email.date_created)
    expect(await sends(email.id)).toEqual([])
    // An admin may log a colleague's email (decision 0037); the sender is then the colleague's address.
    const logged = await post({ status: 'sent', subject: 'For the rep', user_id: ctx.org.member.id }, ctx.org.admin.key)
    expect(logged.statusCode, logged.body).toBe(200)
    const forRep = logged.json<Email>()
    expect(forRep.sender).toMatch(/^rep-.*@example\.com$/)
    expect(forRep.user_id).toBe(ctx.org.member.id)
    expect(forRep.created_by).toBe(ctx.org.admin.id)
  })

  it('outbox: goes through the sender’s account, after send_in seconds', async () => {
    const email = await create({
      status: 'outbox',
      subject: 'Now',
      body_text: 'Hi',
      sender: `Acme Sales <${REP_IDENTITY}>`,
      to: [CONTACT_ADDRESS],
      send_in: 30,
    })
    expect(email).toMatchObject({ status: 'outbox', email_account_id: scene.accountId })
    const [send] = await sends(email.id)
    expect(send).toMatchObject({ kind: 'email_send', status: 'pending' })
    expect(Date.parse(send?.next_attempt_at ?? '') - Date.parse(`${email.date_created}Z`)).toBe(30_000)
  })

  it('scheduled: needs a date in the future, and is sent then', async () => {
    const at = inOneHour()
    const email = await create({
      status: 'scheduled',
      subject: 'Later',
      sender: REP_ADDRESS,
      to: [CONTACT_ADDRESS],
      date_scheduled: at,
    })
    expect(email.date_scheduled).toBe(at.replace('+00:00', ''))
    expect(await sends(email.id)).toEqual([{ kind: 'email_send', status: 'pending', next_attempt_at: at }])
    const base = { status: 'scheduled', sender: REP_ADDRESS, to: [CONTACT_ADDRESS] }
    expect(fieldErrors(await post(base))).toEqual({ date_scheduled: 'Required to schedule a message.' })
    expect(fieldErrors(await post({ ...base, date_scheduled: '2020-01-01T00:00:00Z' }))).toEqual({
      date_scheduled: 'Must be in the future.',
    })
  })
})

describe('validation', () => {
  const outbox = { status: 'outbox', subject: 'Hi', sender: REP_ADDRESS, to: [CONTACT_ADDRESS] }

  it('refuses send_in of 60 and send_in without outbox', async () => {
    const res = await post({ ...outbox, send_in: 60 })
    expect(res.statusCode).toBe(400)
    expect(Object.keys(fieldErrors(res))).toEqual(['send_in'])
    expect(fieldErrors(await post({ status: 'draft', send_in: 5 }))).toEqual({ send_in: 'Only with status outbox.' })
  })

  it('checks every address, naming the one that is wrong', async () => {
    const res = await post({
      ...outbox,
      sender: 'not an address',
      to: [CONTACT_ADDRESS, 'tess@'],
      cc: ['ok@client.example'],
      bcc: ['a@b@c'],
    })
    expect(fieldErrors(res)).toEqual({
      sender: 'Enter a valid email address.',
      'to.1': 'Enter a valid email address.',
      'bcc.0': 'Enter a valid email address.',
    })
  })

  it('takes attachments on https only', async () => {
    const file = { filename: 'quote.pdf', content_type: 'application/pdf', size: 1200 }
    const res = await post({ status: 'draft', attachments: [{ ...file, url: 'http://files.example/q.pdf' }] })
    expect(fieldErrors(res)).toEqual({ 'attachments.0.url': 'Must be an https:// URL or a file uploaded.' })
    const email = await create({ status: 'draft', attachments: [{ ...file, url: 'https://files.example/q.pdf' }] })
    expect(email.attachments).toEqual([{ ...file, url: 'https://files.example/q.pdf' }])
  })

  it('needs a recipient and a sender one of the user’s accounts sends as, to send', async () => {
    expect(fieldErrors(await post({ ...outbox, to: [] }))).toEqual({ to: 'Add at least one recipient.' })
    expect(fieldErrors(await post({ ...outbox, sender: 'someone@else.example' }))).toEqual({
      sender: 'None of the email accounts of the email’s user sends as someone@else.example.',
    })
    // The rep's address is not the admin's to send as.
    expect(fieldErrors(await post(outbox, ctx.org.admin.key))).toEqual({
      sender: `None of the email accounts of the email’s user sends as ${REP_ADDRESS}.`,
    })
    expect(fieldErrors(await post({ ...outbox, sender: null }))).toEqual({ sender: 'This field is required.' })
  })

  it('refuses another organization’s lead, contact, user and email', async () => {
    expect(fieldErrors(await post({ status: 'draft', lead_id: otherScene.leadId }))).toEqual({
      lead_id: 'Object does not exist.',
    })
    expect(fieldErrors(await post({ status: 'draft', contact_id: otherScene.contactId }))).toEqual({
      contact_id: 'Not a contact of this lead.',
    })
    expect(fieldErrors(await post({ status: 'draft', user_id: ctx.other.member.id }))).toEqual({
      user_id: 'Not a user of your organization.',
    })
    const theirs = await call(ctx.app, ctx.other.member.key, 'POST', '/activity/email/', {
      body: { lead_id: otherScene.leadId, status: 'sent', subject: 'Theirs' },
    })
    expect(fieldErrors(await post({ status: 'draft', in_reply_to_id: theirs.json<Email>().id }))).toEqual({
      in_reply_to_id: 'Not an email of this lead.',
    })
    expect((await call(ctx.app, rep(), 'GET', `/activity/email/${theirs.json<Email>().id}/`)).statusCode).toBe(404)
    expect((await put(theirs.json<Email>().id, { subject: 'Mine' })).statusCode).toBe(404)
    expect((await call(ctx.app, rep(), 'DELETE', `/activity/email/${theirs.json<Email>().id}/`)).statusCode).toBe(404)
  })

  it('refuses an unknown template, and a follow-up date on an email received', async () => {
    expect(fieldErrors(await post({ status: 'draft', template_id: 'tmpl_nope' }))).toEqual({
      template_id: 'Not a template of your organization you may use.',
    })
    expect(fieldErrors(await post({ status: 'draft', template_id: otherScene.templateId }))).toHaveProperty(
      'template_id',
    )
    expect(fieldErrors(await post({ status: 'inbox', sender: CONTACT_ADDRESS, followup_date: inOneHour() }))).toEqual({
      followup_date: 'Only an email sent (or to be sent) has a followup_date.',
    })
    expect(fieldErrors(await post({ status: 'draft', followup_date: 'next week' }))).toHaveProperty('followup_date')
  })

  it('renders a template given without a body, its subject too when none is given', async () => {
    const email = await create({ status: 'draft', template_id: scene.templateId, contact_id: scene.contactId })
    expect(email).toMatchObject({
      subject: 'Hello Tess',
      body_html: '<p>Hi Tess, this is Rey.</p>',
      body_text: 'Hi Tess, this is Rey.',
      template_id: scene.templateId,
      template_name: 'Intro',
    })
    const own = await create({ status: 'draft', template_id: scene.templateId, subject: 'Mine', body_text: 'My words' })
    expect(own).toMatchObject({ subject: 'Mine', body_text: 'My words', template_name: 'Intro' })
  })

  it('carries the template’s files, unless the request names the email’s own', async () => {
    const file = { url: 'https://files.acme.example/deck.pdf', filename: 'deck.pdf', content_type: 'application/pdf' }
    const made = await call(ctx.app, rep(), 'POST', '/email_template/', {
      body: { name: 'With deck', subject: 'Deck', body: '<p>Attached.</p>', attachments: [{ ...file, size: 2048 }] },
    })
    expect(made.statusCode, made.body).toBe(200)
    const templateId = made.json<{ id: string }>().id
    const carried = await create({ status: 'draft', template_id: templateId })
    expect(carried.attachments).toEqual([{ ...file, size: 2048 }])
    const without = await create({ status: 'draft', template_id: templateId, attachments: [] })
    expect(without.attachments).toEqual([])
  })
})

describe('PUT /activity/email/{id}/', () => {
  it('changes a draft’s content only; a non-draft refuses a change, not what it already says', async () => {
    const email = await draft()
    const edited = await put(email.id, { subject: 'Proposal v2', body_html: '<p>New</p>', cc: ['boss@client.example'] })
    expect(edited.statusCode, edited.body).toBe(200)
    expect(edited.json()).toMatchObject({ subject: 'Proposal v2', body_text: 'New', cc: ['boss@client.example'] })
    expect(edited.json<Email>().date_updated).toMatch(/\.\d{6}$/)
    const sent = await create({ status: 'sent', subject: 'Done', to: [CONTACT_ADDRESS] })
    const res = await put(sent.id, { subject: 'Changed', to: [CONTACT_ADDRESS] })
    expect(fieldErrors(res)).toEqual({ subject: 'Only a draft can be changed; this email is sent.' })
    const echo = await put(sent.id, { subject: 'Done', to: [CONTACT_ADDRESS], sender: sent.sender })
    expect(echo.statusCode, echo.body).toBe(200)
  })

  it('sends a draft, takes it back to draft (cancelling the send), and schedules it', async () => {
    const email = await draft()
    const out = await put(email.id, { status: 'outbox', send_in: 20 })
    expect(out.json()).toMatchObject({ status: 'outbox', email_account_id: scene.accountId })
    const back = await put(email.id, { status: 'draft' })
    expect(back.json()).toMatchObject({ status: 'draft' })
    const at = inOneHour()
    const later = await put(email.id, { status: 'scheduled', date_scheduled: at })
    expect(later.json()).toMatchObject({ status: 'scheduled' })
    expect((await sends(email.id)).map((s) => s.status)).toEqual(['cancelled', 'pending'])
  })

  it('refuses every move the state machine does not have', async () => {
    const sent = await create({ status: 'sent', subject: 'Done' })
    expect(fieldErrors(await put(sent.id, { status: 'draft' }))).toEqual({
      status: 'Cannot change the status from sent to draft: a sent message keeps its status.',
    })
    const email = await draft()
    expect(fieldErrors(await put(email.id, { status: 'sent' }))).toEqual({
      status: 'Cannot change the status from draft to sent: a draft message can only become scheduled or outbox.',
    })
    expect(fieldErrors(await put(email.id, { status: 'scheduled' }))).toEqual({
      date_scheduled: 'Required to schedule a message.',
    })
    const bare = await create({ status: 'draft', subject: 'Nobody' })
    expect(fieldErrors(await put(bare.id, { status: 'outbox' }))).toEqual({
      to: 'Add at least one recipient.',
      sender: 'This field is required.',
    })
  })

  it('refuses, from each status, every status it cannot become', async () => {
    const allowed: Record<string, string[]> = {
      draft: ['scheduled', 'outbox'],
      scheduled: ['draft'],
      outbox: ['draft'],
    }
    const statuses = ['inbox', 'draft', 'scheduled', 'outbox', 'sent', 'error']
    for (const from of ['inbox', 'draft', 'scheduled', 'outbox', 'sent']) {
      const email = await create({
        status: from,
        subject: `From ${from}`,
        sender: from === 'inbox' ? CONTACT_ADDRESS : REP_ADDRESS,
        to: [CONTACT_ADDRESS],
        ...(from === 'scheduled' ? { date_scheduled: inOneHour() } : {}),
      })
      for (const to of statuses.filter((s) => s !== from && !(allowed[from] ?? []).includes(s))) {
        const res = await put(email.id, { status: to })
        expect(res.statusCode, `${from} → ${to}`).toBe(400)
        expect(Object.keys(fieldErrors(res)), `${from} → ${to}`).toEqual(['status'])
      }
    }
  })

  it('moves a draft to the thread of its new subject', async () => {
    const first = await draft({ subject: 'Pricing' })
    const other = await draft({ subject: 'Contract' })
    const moved = await put(other.id, { subject: 'RE: pricing' })
    expect(moved.json<Email>().thread_id).toBe(first.thread_id)
    const gone = await ctx.database.db
      .selectFrom('email_thread')
      .select('id')
      .where('id', '=', other.thread_id)
      .execute()
    expect(gone).toEqual([])
  })
})

describe('lists, one, delete', () => {
  it('lists emails by lead, user and contact, and in /activity/', async () => {
    const mine = await draft({ subject: 'Listed' })
    const list = async (query: Record<string, string>) =>
      (await call(ctx.app, rep(), 'GET', '/activity/email/', { query })).json<{ data: Email[] }>().data.map((e) => e.id)
    expect(await list({ lead_id: scene.leadId })).toContain(mine.id)
    expect(await list({ lead_id: otherScene.leadId })).toEqual([])
    expect(await list({ user_id: ctx.org.admin.id })).not.toContain(mine.id)
    expect(await list({ contact_id: scene.contactId })).toContain(mine.id)
    expect(await list({ date_created__gt: `${mine.date_created}+00:00` })).not.toContain(mine.id)
    expect(await list({ date_created__lt: `${mine.date_created}+00:00` })).not.toContain(mine.id)
    const all = await call(ctx.app, rep(), 'GET', '/activity/', { query: { _type: 'Email', lead_id: scene.leadId } })
    const found = all.json<{ data: Email[] }>().data.find((e) => e.id === mine.id)
    expect(found).toMatchObject({ _type: 'Email', subject: 'Listed', date_created: `${mine.date_created}+00:00` })
    const lead = await call(ctx.app, rep(), 'GET', '/activity/', { query: { lead_id: scene.leadId } })
    expect(lead.json<{ data: Email[] }>().data.map((e) => e.id)).toContain(mine.id)
  })

  it('deletes an email, cancelling its waiting send; its emptied thread goes too', async () => {
    const email = await create({
      status: 'outbox',
      subject: 'Delete me soon',
      sender: REP_ADDRESS,
      to: [CONTACT_ADDRESS],
      send_in: 30,
    })
    const res = await call(ctx.app, rep(), 'DELETE', `/activity/email/${email.id}/`)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({})
    expect((await sends(email.id)).map((s) => s.status)).toEqual(['cancelled'])
    const thread = await ctx.database.db
      .selectFrom('email_thread')
      .select('id')
      .where('id', '=', email.thread_id)
      .execute()
    expect(thread).toEqual([])
    expect((await call(ctx.app, rep(), 'GET', `/activity/email/${email.id}/`)).statusCode).toBe(404)
  })
})

describe('threads', () => {
  it('joins a reply by in_reply_to_id, then by subject; other leads never share one', async () => {
    const first = await create({ status: 'sent', subject: 'Kickoff', to: [CONTACT_ADDRESS] })
    const reply = await create({
      status: 'inbox',
      subject: 'Re: Kickoff',
      sender: CONTACT_ADDRESS,
      in_reply_to_id: first.id,
    })
    expect(reply.thread_id).toBe(first.thread_id)
    expect(reply.in_reply_to_id).toBe(first.id)
    const bySubject = await create({ status: 'sent', subject: 'AW: Re[2]:  FWD: kickoff' })
    expect(bySubject.thread_id).toBe(first.thread_id)
    const otherLead = await call(ctx.app, rep(), 'POST', '/lead/', { body: { name: 'Elsewhere Co' } })
    const elsewhere = await post({ status: 'sent', subject: 'Kickoff', lead_id: otherLead.json<{ id: string }>().id })
    expect(elsewhere.json<Email>().thread_id).not.toBe(first.thread_id)
    // The reply makes the first one answered.
    const read = await call(ctx.app, rep(), 'GET', `/activity/email/${first.id}/`)
    expect(read.json()).toMatchObject({ has_reply: true })
  })
})

describe('hostile HTML', () => {
  // As long as the API takes (900,000 characters, in a request of at most 1 MiB); each of these cost a backtracking
  // pattern minutes, and held every other request meanwhile.
  const fitting = Object.entries(pathologicalHtml(899_000)).map(([name, html]): [string, string] => {
    const escaped = JSON.stringify(html).length
    return [name, escaped < 1_000_000 ? html : html.slice(0, Math.floor((html.length * 1_000_000) / escaped))]
  })
  it.each(fitting)(
    'a body of %s is stored and read back quickly, while other requests are answered',
    async (_name, html) => {
      const { response, ms, longestMeMs } = await answeredWhileOthersWait(ctx.app, rep(), () =>
        post({ status: 'inbox', subject: 'Hostile', body_html: html, sender: CONTACT_ADDRESS, to: [REP_ADDRESS] }),
      )
      expect(response.statusCode, response.body.slice(0, 300)).toBe(200)
      expect(response.json<Email>().body_html).toBe(html)
      expect(ms).toBeLessThan(10_000)
      expect(longestMeMs).toBeLessThan(1_000)
    },
  )
})
