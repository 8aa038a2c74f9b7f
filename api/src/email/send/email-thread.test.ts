import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { EventContext } from '../../integrations/events/event-repo.js'
import { formatTimestamp } from '../../platform/data/time.js'
import { CONTACT_ADDRESS, emailScene, REP_ADDRESS, type EmailScene } from '../../tooling/test-support/email-scene.js'
import { call, createTestContext, type TestContext } from '../../tooling/test-support/test-app.js'
import { recordIncomingEmail, type IncomingEmailInput } from './email-store.js'
import { normalizeSubject } from './email-thread.js'
import { outboxSink } from '../../integrations/outbox/outbox-writer.js'

// Threads: the subject normalizer's laws, and where received mail goes (by References, In-Reply-To, subject, never
// across leads), stored once per Message-ID.

describe('normalizeSubject', () => {
  const prefix = fc.constantFrom(
    'Re:',
    'RE:',
    're :',
    'Fwd:',
    'FW:',
    'AW:',
    'WG:',
    'SV:',
    'VS:',
    'Antw:',
    'Réf:',
    'TR:',
    'Re[2]:',
    'RE [12]:',
  )

  it('strips any run of reply and forward prefixes, keeps tags, collapses whitespace', () => {
    expect(normalizeSubject('  RE: Fwd:AW:  [Acme]   price\tlist ')).toBe('[Acme] price list')
    expect(normalizeSubject('Re[3]: Réf: TR: Quote')).toBe('Quote')
    expect(normalizeSubject('Reply: not a prefix')).toBe('Reply: not a prefix')
    expect(normalizeSubject('Re:')).toBe('')
  })

  it('is idempotent, and "Re: " + s normalizes like s', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        const once = normalizeSubject(s)
        expect(normalizeSubject(once)).toBe(once)
        expect(normalizeSubject(`Re: ${s}`)).toBe(once)
      }),
    )
  })

  it('ignores any run of prefixes before any subject', () => {
    fc.assert(
      fc.property(fc.array(prefix, { maxLength: 5 }), fc.string(), (prefixes, s) => {
        expect(normalizeSubject(`${prefixes.join(' ')} ${s}`)).toBe(normalizeSubject(s))
      }),
    )
  })
})

describe('received mail in threads', () => {
  let ctx: TestContext
  let scene: EmailScene
  let otherLeadId: string

  beforeAll(async () => {
    ctx = await createTestContext()
    scene = await emailScene(ctx.app, ctx.database.db, ctx.org, { host: 'smtp.acme.example', port: 587 })
    const other = await call(ctx.app, ctx.org.member.key, 'POST', '/lead/', { body: { name: 'Other Co' } })
    otherLeadId = other.json<{ id: string }>().id
  })
  afterAll(async () => {
    await ctx.close()
  })

  function receive(input: Partial<IncomingEmailInput>) {
    const now = formatTimestamp(ctx.clock.now())
    const events: EventContext = {
      organizationId: ctx.org.id,
      userId: null,
      requestId: null,
      apiKeyId: null,
      now,
      sink: outboxSink(null),
    }
    return ctx.database.db.transaction().execute((tx) =>
      recordIncomingEmail(
        tx,
        {
          organizationId: ctx.org.id,
          leadId: scene.leadId,
          contactId: scene.contactId,
          userId: ctx.org.member.id,
          emailAccountId: scene.accountId,
          sender: CONTACT_ADDRESS,
          to: [REP_ADDRESS],
          cc: [],
          subject: 'Hello',
          bodyText: 'Hi',
          bodyHtml: null,
          messageId: null,
          inReplyTo: null,
          references: [],
          attachments: [],
          dateSent: now,
          now,
          ...input,
        },
        events,
      ),
    )
  }

  it('joins by References, then In-Reply-To, then subject; another lead gets its own', async () => {
    const first = await receive({ subject: 'Invoice 12', messageId: '<m1@client.example>' })
    const byReferences = await receive({
      subject: 'Unrelated words',
      messageId: '<m2@client.example>',
      references: ['<x@nowhere>', '<m1@client.example>'],
    })
    expect(byReferences.threadId).toBe(first.threadId)
    const byInReplyTo = await receive({
      subject: 'Other words',
      messageId: '<m3@client.example>',
      inReplyTo: '<m2@client.example>',
    })
    expect(byInReplyTo.threadId).toBe(first.threadId)
    const bySubject = await receive({ subject: 'SV: other WORDS', messageId: '<m4@client.example>' })
    expect(bySubject.threadId).toBe(first.threadId)
    const fresh = await receive({ subject: 'A new matter', messageId: '<m5@client.example>' })
    expect(fresh.threadId).not.toBe(first.threadId)
    // Another lead's mail naming these ids, with the same subject, starts its own thread.
    const elsewhere = await receive({
      leadId: otherLeadId,
      contactId: null,
      subject: 'Re: A new matter',
      messageId: '<m6@client.example>',
      inReplyTo: '<m5@client.example>',
    })
    expect(elsewhere.threadId).not.toBe(fresh.threadId)
    const email = await call(ctx.app, ctx.org.member.key, 'GET', `/activity/email/${byInReplyTo.activityId}/`)
    expect(email.json()).toMatchObject({
      status: 'inbox',
      direction: 'incoming',
      in_reply_to_id: byReferences.activityId,
      references: ['<m2@client.example>'],
      message_ids: ['<m3@client.example>'],
      envelope: { in_reply_to: '<m2@client.example>', message_id: '<m3@client.example>' },
    })
  })

  it('stores a Message-ID once: the same mail again answers the email stored first', async () => {
    const first = await receive({ subject: 'Twice', messageId: '<twice@client.example>' })
    const again = await receive({ subject: 'Twice', messageId: '<twice@client.example>' })
    expect(again).toEqual(first)
    const count = await ctx.database.db
      .selectFrom('email_message')
      .select('activity_id')
      .where('message_id', '=', '<twice@client.example>')
      .execute()
    expect(count).toEqual([{ activity_id: first.activityId }])
  })
})
