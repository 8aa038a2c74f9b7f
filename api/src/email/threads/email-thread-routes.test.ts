import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { recordActivity, type ActivityData } from '../../crm/activities/activity-repo.js'
import { emailAttachmentUrl, insertEmailAttachments, receivedFile } from '../attachments/email-attachment-repo.js'
import { newId } from '../../platform/security/ids.js'
import { CONTACT_ADDRESS, emailScene, REP_ADDRESS } from '../../tooling/test-support/email-scene.js'
import { formatTimestamp } from '../../platform/data/time.js'
import {
  call,
  createTestContext,
  type TestContext,
  type TestEvent,
  type TestOrg,
} from '../../tooling/test-support/test-app.js'

// Threads are read from their emails; the emails here are stored as the email module stores them (rows), so these
// tests need nothing but the storage of migration 0022.

let ctx: TestContext
interface Lead {
  id: string
  contacts: { id: string }[]
}
let lead: Lead
let otherLead: Lead
let foreignLead: Lead

async function newLead(org: TestOrg, name: string): Promise<Lead> {
  const res = await call(ctx.app, org.member.key, 'POST', '/lead/', {
    body: { name, contacts: [{ name: `${name} One` }, { name: `${name} Two` }] },
  })
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

beforeAll(async () => {
  ctx = await createTestContext()
  lead = await newLead(ctx.org, 'Threads Co')
  otherLead = await newLead(ctx.org, 'Elsewhere Inc')
  foreignLead = await newLead(ctx.other, 'Foreign Ltd')
})
afterAll(async () => {
  await ctx.close()
})

const rep = () => ctx.org.member.key

async function newThread(org: TestOrg, leadId: string, subject: string): Promise<string> {
  const id = newId('activity')
  const now = formatTimestamp(ctx.clock.now())
  await ctx.database.db
    .insertInto('email_thread')
    .values({
      id,
      organization_id: org.id,
      lead_id: leadId,
      subject,
      subject_key: subject.toLowerCase(),
      date_created: now,
      date_updated: now,
    })
    .execute()
  return id
}

interface EmailInput {
  threadId: string
  leadId: string
  userId: string
  contactId?: string | null
  sender: string
  to: string[]
  cc?: string[]
  bcc?: string[]
  subject: string
  direction?: 'incoming' | 'outgoing'
  status?: 'inbox' | 'sent' | 'draft'
  text?: string
  messageId?: string
}

/** Stores an email a minute after the previous one, its Message-ID recorded, as the email module does. */
async function storeEmail(org: TestOrg, input: EmailInput): Promise<string> {
  ctx.clock.advance(60_000)
  const now = formatTimestamp(ctx.clock.now())
  const direction = input.direction ?? 'incoming'
  const data: ActivityData['Email'] = {
    direction,
    status: input.status ?? (direction === 'incoming' ? 'inbox' : 'sent'),
    subject: input.subject,
    body_text: input.text ?? `About ${input.subject}`,
    body_html: `<p>${input.text ?? input.subject}</p>`,
    sender: input.sender,
    to: input.to,
    cc: input.cc ?? [],
    bcc: input.bcc ?? [],
    attachments: [],
    date_scheduled: null,
    date_sent: now,
    email_account_id: null,
    template_id: null,
    template_name: null,
    in_reply_to_id: null,
    message_ids: input.messageId === undefined ? [] : [input.messageId],
    references: [],
    followup_date: null,
    send_attempts: [],
    error_message: null,
    activity_at: now,
  }
  const id = await recordActivity(
    ctx.database.db,
    {
      organizationId: org.id,
      leadId: input.leadId,
      contactId: input.contactId ?? null,
      userId: input.userId,
      type: 'Email',
      data,
      now,
      threadId: input.threadId,
    },
    null,
  )
  if (input.messageId !== undefined) {
    await ctx.database.db
      .insertInto('email_message')
      .values({ organization_id: org.id, message_id: input.messageId, activity_id: id, thread_id: input.threadId })
      .execute()
  }
  return id
}

interface Thread {
  id: string
  _type: string
  lead_id: string
  contact_id: string | null
  user_id: string | null
  date_created: string
  activity_at: string
  latest_normalized_subject: string
  n_emails: number
  participants: { email: string; name: string }[]
  users: string[]
  emails?: Record<string, unknown>[]
}

async function list(path: string, query: Record<string, string> = {}, key = rep()) {
  const res = await call(ctx.app, key, 'GET', path, { query })
  expect(res.statusCode, res.body).toBe(200)
  return res.json<{ has_more: boolean; data: (Thread & Record<string, unknown>)[] }>()
}

describe('/activity/emailthread/', () => {
  let pricing: string
  let welcome: string
  let pricingEmails: string[]
  let welcomeEmail: string
  let elsewhere: string

  beforeAll(async () => {
    const [one, two] = lead.contacts
    pricing = await newThread(ctx.org, lead.id, 'Pricing')
    welcome = await newThread(ctx.org, lead.id, 'Welcome')
    elsewhere = await newThread(ctx.org, otherLead.id, 'Elsewhere')
    pricingEmails = [
      await storeEmail(ctx.org, {
        threadId: pricing,
        leadId: lead.id,
        userId: ctx.org.admin.id,
        contactId: one?.id,
        direction: 'outgoing',
        sender: '"Ada Admin" <ada@acme.test>',
        to: ['"Pat Buyer" <pat@threads.test>'],
        cc: ['sam@threads.test'],
        bcc: ['hidden@acme.test'],
        subject: 'Pricing',
        messageId: '<pricing-1@acme.test>',
      }),
    ]
    welcomeEmail = await storeEmail(ctx.org, {
      threadId: welcome,
      leadId: lead.id,
      userId: ctx.org.admin.id,
      contactId: one?.id,
      direction: 'outgoing',
      sender: 'ada@acme.test',
      to: ['pat@threads.test'],
      subject: 'Welcome',
    })
    pricingEmails.unshift(
      await storeEmail(ctx.org, {
        threadId: pricing,
        leadId: lead.id,
        userId: ctx.org.member.id,
        contactId: two?.id,
        sender: 'Sam Buyer <SAM@threads.test>',
        to: ['rey@acme.test', 'Pat <pat@threads.test>'],
        subject: 'Re: Pricing',
        text: 'Sounds good, send the contract.',
        messageId: '<pricing-2@threads.test>',
      }),
    )
    await storeEmail(ctx.org, {
      threadId: elsewhere,
      leadId: otherLead.id,
      userId: ctx.org.admin.id,
      sender: 'ada@acme.test',
      to: ['x@elsewhere.test'],
      subject: 'Elsewhere',
    })
  })

  it('shows a thread from its emails: the latest one’s contact, user and dates, every participant once', async () => {
    const res = await call(ctx.app, rep(), 'GET', `/activity/emailthread/${pricing}/`)
    expect(res.statusCode, res.body).toBe(200)
    const thread = res.json<Thread & Record<string, unknown>>()
    const emails = await Promise.all(
      pricingEmails.map(
        async (id) =>
          await ctx.database.db.selectFrom('activity').selectAll().where('id', '=', id).executeTakeFirstOrThrow(),
      ),
    )
    expect(thread).toMatchObject({
      id: pricing,
      _type: 'EmailThread',
      organization_id: ctx.org.id,
      lead_id: lead.id,
      contact_id: lead.contacts[1]?.id,
      user_id: ctx.org.member.id,
      date_created: emails[0]?.date_created,
      activity_at: emails[0]?.date_created,
      latest_normalized_subject: 'Pricing',
      n_emails: 2,
      users: [ctx.org.member.id, ctx.org.admin.id],
    })
    // The sender's address is compared ignoring case; a name given anywhere is kept; Bcc is nobody's business.
    expect(thread.participants).toEqual([
      { email: 'sam@threads.test', name: 'Sam Buyer' },
      { email: 'rey@acme.test', name: '' },
      { email: 'pat@threads.test', name: 'Pat' },
      { email: 'ada@acme.test', name: 'Ada Admin' },
    ])
    expect(thread.emails?.map((e) => e.id)).toEqual(pricingEmails)
    expect(thread.emails?.[0]).toEqual({
      id: pricingEmails[0],
      _type: 'Email',
      status: 'inbox',
      direction: 'incoming',
      sender: 'Sam Buyer <SAM@threads.test>',
      to: ['rey@acme.test', 'Pat <pat@threads.test>'],
      cc: [],
      subject: 'Re: Pricing',
      body_preview: 'Sounds good, send the contract.',
      date_created: emails[0]?.date_created,
      date_sent: emails[0]?.date_created,
      activity_at: emails[0]?.date_created,
      attachments: [],
      user_id: ctx.org.member.id,
    })
  })

  it('lists threads, the one with the newest email first, and filters them', async () => {
    expect((await list('/activity/emailthread/')).data.map((t) => t.id)).toEqual([elsewhere, pricing, welcome])
    expect((await list('/activity/emailthread/', { lead_id: lead.id })).data.map((t) => t.id)).toEqual([
      pricing,
      welcome,
    ])
    // A thread with any email of the user, or with the contact.
    expect((await list('/activity/emailthread/', { user_id: ctx.org.member.id })).data.map((t) => t.id)).toEqual([
      pricing,
    ])
    expect(
      (await list('/activity/emailthread/', { contact_id: lead.contacts[0]?.id ?? '' })).data.map((t) => t.id),
    ).toEqual([pricing, welcome])
    // Dates are the latest email's.
    const [, pricingView, welcomeView] = (await list('/activity/emailthread/')).data
    expect(
      (await list('/activity/emailthread/', { date_created__lt: pricingView?.date_created ?? '' })).data.map(
        (t) => t.id,
      ),
    ).toEqual([welcome])
    expect(
      (
        await list('/activity/emailthread/', {
          date_created__gt: welcomeView?.date_created ?? '',
          lead_id: lead.id,
        })
      ).data.map((t) => t.id),
    ).toEqual([pricing])
  })

  it('pages threads', async () => {
    const first = await list('/activity/emailthread/', { _limit: '2' })
    const second = await list('/activity/emailthread/', { _limit: '2', _skip: '2' })
    expect(first.has_more).toBe(true)
    expect(second.has_more).toBe(false)
    expect([...first.data, ...second.data].map((t) => t.id)).toEqual([elsewhere, pricing, welcome])
  })

  it('refuses bad filters with field errors', async () => {
    for (const [query, field] of [
      [{ date_created__gt: 'yesterday' }, 'date_created__gt'],
      [{ _limit: '101' }, '_limit'],
    ] as const) {
      const res = await call(ctx.app, rep(), 'GET', '/activity/emailthread/', { query })
      expect(res.statusCode).toBe(400)
      expect(Object.keys(res.json<{ 'field-errors': object }>()['field-errors'])).toEqual([field])
    }
  })

  it('keeps each organization’s threads to itself', async () => {
    const foreign = await newThread(ctx.other, foreignLead.id, 'Foreign')
    await storeEmail(ctx.other, {
      threadId: foreign,
      leadId: foreignLead.id,
      userId: ctx.other.admin.id,
      sender: 'x@foreign.test',
      to: ['y@globex.test'],
      subject: 'Foreign',
    })
    expect((await call(ctx.app, rep(), 'GET', `/activity/emailthread/${foreign}/`)).statusCode).toBe(404)
    expect((await call(ctx.app, rep(), 'DELETE', `/activity/emailthread/${foreign}/`)).statusCode).toBe(404)
    expect((await list('/activity/emailthread/')).data.map((t) => t.id)).not.toContain(foreign)
    expect((await list('/activity/emailthread/', {}, ctx.other.member.key)).data.map((t) => t.id)).toEqual([foreign])
    expect((await call(ctx.app, rep(), 'GET', '/activity/emailthread/acti_nope/')).statusCode).toBe(404)
    expect((await call(ctx.app, undefined, 'GET', `/activity/emailthread/${pricing}/`)).statusCode).toBe(401)
  })

  it('deletes a thread with every email in it, their files and Message-IDs, and says so for each email', async () => {
    const thread = await newThread(ctx.org, lead.id, 'Doomed')
    const ids = [
      await storeEmail(ctx.org, {
        threadId: thread,
        leadId: lead.id,
        userId: ctx.org.member.id,
        sender: 'pat@threads.test',
        to: ['rey@acme.test'],
        subject: 'Doomed',
        messageId: '<doomed-1@threads.test>',
      }),
      await storeEmail(ctx.org, {
        threadId: thread,
        leadId: lead.id,
        userId: ctx.org.member.id,
        direction: 'outgoing',
        sender: 'rey@acme.test',
        to: ['pat@threads.test'],
        subject: 'Re: Doomed',
      }),
    ]
    const file = receivedFile({
      filename: 'a.txt',
      contentType: 'text/plain',
      contentId: null,
      content: Buffer.from('x'),
    })
    await insertEmailAttachments(
      ctx.database.db,
      { organizationId: ctx.org.id, activityId: ids[0] ?? '', now: formatTimestamp(ctx.clock.now()) },
      [file],
    )

    const res = await call(ctx.app, rep(), 'DELETE', `/activity/emailthread/${thread}/`)
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toEqual({})
    expect((await call(ctx.app, rep(), 'GET', `/activity/emailthread/${thread}/`)).statusCode).toBe(404)
    const db = ctx.database.db
    expect(await db.selectFrom('activity').select('id').where('thread_id', '=', thread).execute()).toEqual([])
    expect(await db.selectFrom('email_message').select('message_id').where('thread_id', '=', thread).execute()).toEqual(
      [],
    )
    expect(await db.selectFrom('email_attachment').select('id').where('id', '=', file.id).execute()).toEqual([])
    for (const id of ids) {
      const events = await call(ctx.app, rep(), 'GET', '/event/', { query: { object_id: id } })
      expect(events.json<{ data: TestEvent[] }>().data.map((e) => [e.object_type, e.action])).toEqual([
        ['activity.email', 'deleted'],
      ])
    }
    // The other threads of the lead are untouched.
    expect((await list('/activity/emailthread/', { lead_id: lead.id })).data.map((t) => t.id)).toEqual([
      pricing,
      welcome,
    ])
  })

  it('cancels the send an email of the thread is waiting for, with the email', async () => {
    const scene = await emailScene(ctx.app, ctx.database.db, ctx.org, { host: 'smtp.acme.example', port: 587 })
    const res = await call(ctx.app, rep(), 'POST', '/activity/email/', {
      body: {
        lead_id: scene.leadId,
        status: 'scheduled',
        date_scheduled: formatTimestamp(new Date(ctx.clock.now().getTime() + 3_600_000)),
        sender: REP_ADDRESS,
        to: [CONTACT_ADDRESS],
        subject: 'Later',
        body_text: 'In an hour.',
      },
    })
    expect(res.statusCode, res.body).toBe(200)
    const email = res.json<{ id: string; thread_id: string }>()
    const send = () =>
      ctx.database.db
        .selectFrom('outbox')
        .select('status')
        .where('ordering_key', '=', `email:${email.id}`)
        .executeTakeFirstOrThrow()
    expect(await send()).toEqual({ status: 'pending' })

    expect((await call(ctx.app, rep(), 'DELETE', `/activity/emailthread/${email.thread_id}/`)).statusCode).toBe(200)
    expect(await send()).toEqual({ status: 'cancelled' })
    expect((await call(ctx.app, rep(), 'GET', `/activity/email/${email.id}/`)).statusCode).toBe(404)
    expect((await call(ctx.app, rep(), 'GET', `/activity/emailthread/${email.thread_id}/`)).statusCode).toBe(404)
  })

  describe('GET /activity/?thread_emails=', () => {
    let noteId: string
    beforeAll(async () => {
      ctx.clock.advance(60_000)
      const res = await call(ctx.app, rep(), 'POST', '/activity/note/', { body: { lead_id: lead.id, note: 'Met' } })
      noteId = res.json<{ id: string }>().id
    })

    const ofLead = (query: Record<string, string>) => list('/activity/', { lead_id: lead.id, ...query })
    const shape = (data: Record<string, unknown>[]) => data.map((a) => [a._type, a.id])

    it('shows an Email per message without it', async () => {
      const { data } = await ofLead({ _type__in: 'Email,Note' })
      expect(shape(data)).toEqual([
        ['Note', noteId],
        ['Email', pricingEmails[0]],
        ['Email', welcomeEmail],
        ['Email', pricingEmails[1]],
      ])
    })

    it('shows threads where their latest email would be with `true`, each with its emails', async () => {
      const { data } = await ofLead({ thread_emails: 'true', _type__in: 'Email,Note' })
      expect(shape(data)).toEqual([
        ['Note', noteId],
        ['EmailThread', pricing],
        ['EmailThread', welcome],
      ])
      expect(data[1]?.emails?.map((e) => e.id)).toEqual(pricingEmails)
      const all = await ofLead({ thread_emails: 'true' })
      expect(all.data.filter((a) => a._type === 'Email')).toEqual([])
      expect(all.data.map((a) => a._type)).toContain('Created')
    })

    it('leaves the emails out with `only`', async () => {
      const { data } = await ofLead({ thread_emails: 'only', _type: 'Email' })
      expect(shape(data)).toEqual([
        ['EmailThread', pricing],
        ['EmailThread', welcome],
      ])
      expect(data.map((t) => Object.hasOwn(t, 'emails'))).toEqual([false, false])
      expect(data[0]?.n_emails).toBe(2)
    })

    it('lists threads for `_type=EmailThread`, and none when the types asked for have no emails', async () => {
      expect(shape((await ofLead({ _type: 'EmailThread' })).data)).toEqual([
        ['EmailThread', pricing],
        ['EmailThread', welcome],
      ])
      expect(shape((await ofLead({ _type: 'Note', thread_emails: 'true' })).data)).toEqual([['Note', noteId]])
    })

    it('pages activities and threads together', async () => {
      const whole = await list('/activity/', { thread_emails: 'true' })
      const walked: Record<string, unknown>[] = []
      for (let skip = 0; ; skip += 2) {
        const page = await list('/activity/', { thread_emails: 'true', _limit: '2', _skip: String(skip) })
        walked.push(...page.data)
        if (!page.has_more) break
      }
      expect(shape(walked)).toEqual(shape(whole.data))
      expect(shape(whole.data)).toContainEqual(['EmailThread', elsewhere])
      const dates = whole.data.map((a) => a.date_created)
      expect(dates).toEqual([...dates].sort().reverse())
    })

    it('applies the date filters to a thread’s latest email', async () => {
      const { data } = await ofLead({ thread_emails: 'only', _type: 'Email' })
      const { data: older } = await ofLead({
        thread_emails: 'only',
        date_created__lt: data[0]?.date_created ?? '',
      })
      expect(shape(older).filter(([type]) => type === 'EmailThread')).toEqual([['EmailThread', welcome]])
    })

    it('refuses another value', async () => {
      const res = await call(ctx.app, rep(), 'GET', '/activity/', { query: { thread_emails: 'yes' } })
      expect(res.statusCode).toBe(400)
      expect(Object.keys(res.json<{ 'field-errors': object }>()['field-errors'])).toEqual(['thread_emails'])
    })
  })
})

describe('GET /email_attachment/{id}/', () => {
  let emailId: string
  beforeAll(async () => {
    const thread = await newThread(ctx.org, otherLead.id, 'Files')
    emailId = await storeEmail(ctx.org, {
      threadId: thread,
      leadId: otherLead.id,
      userId: ctx.org.member.id,
      sender: 'x@elsewhere.test',
      to: ['rey@acme.test'],
      subject: 'Files',
    })
  })

  async function stored(filename: string, contentType: string, content: Buffer) {
    const file = receivedFile({ filename, contentType, contentId: null, content })
    await insertEmailAttachments(
      ctx.database.db,
      { organizationId: ctx.org.id, activityId: emailId, now: formatTimestamp(ctx.clock.now()) },
      [file],
    )
    return file
  }

  it('serves the file as a download, never as a page', async () => {
    const bytes = Buffer.from([0x25, 0x50, 0x44, 0x46, 0x00, 0xff, 0x10])
    const file = await stored('Angebot «2026».pdf', 'application/pdf', bytes)
    const res = await call(ctx.app, rep(), 'GET', emailAttachmentUrl(file.id).replace('/api/v1', ''))
    expect(res.statusCode, res.body).toBe(200)
    expect(res.rawPayload.equals(bytes)).toBe(true)
    expect(res.headers['content-type']).toBe('application/pdf')
    expect(res.headers['content-disposition']).toBe(
      `attachment; filename="Angebot _2026_.pdf"; filename*=UTF-8''Angebot%20%C2%AB2026%C2%BB.pdf`,
    )
    expect(res.headers['x-content-type-options']).toBe('nosniff')
    expect(res.headers['content-security-policy']).toBe("default-src 'none'; sandbox")
  })

  it('serves a type that is not a plain media type as bytes, and a quote in a name harmlessly', async () => {
    const file = await stored('x"; filename=evil.html', 'text/html; charset=utf-8\r\nX-Evil: 1', Buffer.from('<b>'))
    const res = await call(ctx.app, rep(), 'GET', `/email_attachment/${file.id}/`)
    expect(res.headers['content-type']).toBe('application/octet-stream')
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="x_; filename=evil.html"; filename\*=/)
  })

  it('is the organization’s own', async () => {
    const file = await stored('a.txt', 'text/plain', Buffer.from('a'))
    expect((await call(ctx.app, ctx.other.admin.key, 'GET', `/email_attachment/${file.id}/`)).statusCode).toBe(404)
    expect((await call(ctx.app, undefined, 'GET', `/email_attachment/${file.id}/`)).statusCode).toBe(401)
    expect((await call(ctx.app, rep(), 'GET', '/email_attachment/attach_nope/')).statusCode).toBe(404)
  })
})
