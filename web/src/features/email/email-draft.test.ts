import { describe, expect, it } from 'vitest'
import type { Contact } from '@leadline/shared/contact-schema'
import { emailFixture } from './email-fixture'
import {
  composerFields,
  contactAddresses,
  contactOf,
  defaultSender,
  emailBodyOf,
  replySubject,
  resendBody,
  senderOptions,
  type EmailDraft,
} from './email-draft'

const now = new Date('2026-03-02T10:00:00Z')

const draft = (extra: Partial<EmailDraft> = {}): EmailDraft => ({
  sender: '"Casey Closer" <casey@journey.test>',
  to: [{ name: 'Ann Smith', email: 'ann@example.com' }],
  cc: [],
  bcc: [{ name: '', email: 'boss@journey.test' }],
  subject: 'Proposal',
  body: 'Hi **Ann**',
  attachments: [],
  contactId: 'cont_1',
  templateId: undefined,
  inReplyToId: undefined,
  ...extra,
})

const plan = {
  url: '/api/v1/email_attachment/emlatt_1/',
  filename: 'plan.pdf',
  content_type: 'application/pdf',
  size: 2048,
}
const notes = { url: '/api/v1/email_attachment/emlatt_2/', filename: 'notes.txt', content_type: 'text/plain', size: 12 }

function contact(id: string, name: string, emails: string[]): Contact {
  return {
    id,
    organization_id: 'orga_1',
    lead_id: 'lead_1',
    name,
    display_name: name,
    title: '',
    emails: emails.map((email) => ({ type: 'office', email, email_lower: email.toLowerCase() })),
    phones: [],
    urls: [],
    custom: {},
    created_by: null,
    updated_by: null,
    date_created: '2026-03-01T10:00:00.000000+00:00',
    date_updated: '2026-03-01T10:00:00.000000+00:00',
  }
}

describe('emailBodyOf', () => {
  it('sends after the undo window, with both parts and the addresses as the API takes them', () => {
    expect(emailBodyOf(draft({ templateId: 'tmpl_1' }), { kind: 'send' }, now)).toEqual({
      ok: true,
      body: {
        status: 'outbox',
        send_in: 5,
        sender: '"Casey Closer" <casey@journey.test>',
        to: ['"Ann Smith" <ann@example.com>'],
        cc: [],
        bcc: ['boss@journey.test'],
        subject: 'Proposal',
        body_text: 'Hi Ann',
        body_html: '<p>Hi <strong>Ann</strong></p>',
        attachments: [],
        contact_id: 'cont_1',
        template_id: 'tmpl_1',
      },
    })
  })

  it('carries the uploaded files, in the order they were chosen', () => {
    const attachments: EmailDraft['attachments'] = [
      { key: 'new-2', state: 'attached', file: notes },
      { key: 'saved-0', state: 'attached', file: plan },
    ]
    const sent = emailBodyOf(draft({ attachments }), { kind: 'send' }, now)
    expect(sent.ok && sent.body.attachments).toEqual([notes, plan])
    const kept = emailBodyOf(draft({ attachments: attachments.slice(1) }), { kind: 'draft' }, now)
    expect(kept.ok && kept.body.attachments).toEqual([plan])
  })

  it('waits for a file still uploading, to send and to keep a draft', () => {
    const attachments: EmailDraft['attachments'] = [
      { key: 'saved-0', state: 'attached', file: plan },
      { key: 'new-1', state: 'uploading', filename: 'big.zip', size: 9_000_000 },
    ]
    for (const action of [{ kind: 'send' }, { kind: 'draft' }] as const)
      expect(emailBodyOf(draft({ attachments }), action, now)).toEqual({
        ok: false,
        errors: { attachments: 'Wait until the files have uploaded.' },
      })
  })

  it('schedules at a time to come, and asks for one otherwise', () => {
    const at = '2026-03-03T09:30:00.000Z'
    const scheduled = emailBodyOf(draft({ inReplyToId: 'acti_1' }), { kind: 'schedule', sendAt: at }, now)
    expect(scheduled).toMatchObject({
      ok: true,
      body: { status: 'scheduled', date_scheduled: at, in_reply_to_id: 'acti_1' },
    })
    expect(scheduled.ok && 'send_in' in scheduled.body).toBe(false)
    expect(emailBodyOf(draft(), { kind: 'schedule', sendAt: '' }, now)).toEqual({
      ok: false,
      errors: { date_scheduled: 'Pick a date and time.' },
    })
    expect(emailBodyOf(draft(), { kind: 'schedule', sendAt: '2026-03-02T09:59:00.000Z' }, now)).toEqual({
      ok: false,
      errors: { date_scheduled: 'Pick a time in the future.' },
    })
  })

  it('needs a sender, a recipient and a subject to send, and nothing to keep a draft', () => {
    const empty = draft({ sender: '', to: [], bcc: [], subject: ' ', body: '', contactId: undefined })
    expect(emailBodyOf(empty, { kind: 'send' }, now)).toEqual({
      ok: false,
      errors: {
        sender: 'Choose an address to send from.',
        to: 'Add at least one recipient.',
        subject: 'Write a subject.',
      },
    })
    expect(emailBodyOf(empty, { kind: 'draft' }, now)).toEqual({
      ok: true,
      body: { status: 'draft', to: [], cc: [], bcc: [], subject: ' ', body_text: '', body_html: '', attachments: [] },
    })
  })
})

describe('the composer’s starting point', () => {
  const contacts = contactAddresses([
    contact('cont_1', 'Ann Smith', ['ann@example.com', 'ann@home.example']),
    contact('cont_2', 'Bo Jones', ['bo@example.com']),
  ])

  it('offers every contact’s addresses and knows the contact of a recipient', () => {
    expect(contacts.map((c) => [c.contactId, c.address.email])).toEqual([
      ['cont_1', 'ann@example.com'],
      ['cont_1', 'ann@home.example'],
      ['cont_2', 'bo@example.com'],
    ])
    expect(
      contactOf(
        [
          { name: '', email: 'x@y.zz' },
          { name: '', email: 'BO@example.com' },
        ],
        contacts,
      ),
    ).toBe('cont_2')
    expect(contactOf([{ name: '', email: 'x@y.zz' }], contacts)).toBeUndefined()
  })

  it('writes a new email to the first contact, a reply to its sender with Re:, and carries a draft on', () => {
    expect(composerFields(contacts, undefined, undefined)).toMatchObject({
      to: [{ name: 'Ann Smith', email: 'ann@example.com' }],
      subject: '',
      attachments: [],
      contactId: 'cont_1',
      inReplyToId: undefined,
    })
    const received = emailFixture('acti_in', {
      direction: 'incoming',
      status: 'inbox',
      sender: 'Bo Jones <bo@example.com>',
      to: ['casey@journey.test'],
      subject: 'RE: Proposal',
      contact_id: 'cont_2',
    })
    expect(composerFields(contacts, undefined, received)).toMatchObject({
      to: [{ name: 'Bo Jones', email: 'bo@example.com' }],
      subject: 'RE: Proposal',
      contactId: 'cont_2',
      inReplyToId: 'acti_in',
    })
    const sent = emailFixture('acti_out', { subject: 'Proposal' })
    expect(composerFields(contacts, undefined, sent)).toMatchObject({
      to: [{ name: 'Ann Smith', email: 'ann@example.com' }],
      subject: 'Re: Proposal',
    })
    // The API lists a file's `content_id` too; a PUT names the file by the fields it takes.
    const withContentId = { ...plan, content_id: null }
    const saved = emailFixture('acti_d', {
      status: 'draft',
      cc: ['bo@example.com'],
      body_html: '<p>Hi <strong>Ann</strong></p>',
      body_text: 'Hi Ann',
      template_id: 'tmpl_1',
      attachments: [withContentId, notes],
    })
    expect(composerFields(contacts, saved, undefined)).toEqual({
      to: [{ name: 'Ann Smith', email: 'ann@example.com' }],
      cc: [{ name: '', email: 'bo@example.com' }],
      bcc: [],
      subject: 'Proposal',
      body: 'Hi **Ann**',
      attachments: [
        { key: 'saved-0', state: 'attached', file: plan },
        { key: 'saved-1', state: 'attached', file: notes },
      ],
      contactId: 'cont_1',
      templateId: 'tmpl_1',
      inReplyToId: undefined,
    })
  })

  it('says Re: once', () => {
    expect(replySubject('Proposal')).toBe('Re: Proposal')
    expect(replySubject(' re: Proposal')).toBe('re: Proposal')
  })

  it('sends as each verified identity of each account once; a reply as the address it was written to', () => {
    const options = senderOptions([
      {
        id: 'emailacct_1',
        email: 'casey@journey.test',
        identities: [
          { name: 'Casey Closer', email: 'casey@journey.test', verified: true },
          // Not verified yet: not offered.
          { name: 'Deals', email: 'deals@journey.test', verified: false },
        ],
      },
      {
        id: 'emailacct_2',
        email: 'sales@journey.test',
        identities: [
          { name: 'Sales', email: 'sales@journey.test', verified: true },
          { name: 'Casey Closer', email: 'casey@journey.test', verified: true },
        ],
      },
      { id: 'emailacct_3', email: 'bare@journey.test', identities: [] },
    ])
    expect(options).toEqual([
      { value: '"Casey Closer" <casey@journey.test>', label: 'Casey Closer <casey@journey.test>' },
      { value: '"Sales" <sales@journey.test>', label: 'Sales <sales@journey.test>' },
      { value: 'bare@journey.test', label: 'bare@journey.test' },
    ])
    expect(defaultSender(options, undefined, undefined)).toBe('"Casey Closer" <casey@journey.test>')
    const toSales = emailFixture('acti_in', { direction: 'incoming', to: ['SALES@journey.test'] })
    expect(defaultSender(options, undefined, toSales)).toBe('"Sales" <sales@journey.test>')
    expect(defaultSender(options, emailFixture('acti_d', { sender: 'x@y.zz' }), toSales)).toBe('x@y.zz')
    expect(defaultSender([], undefined, undefined)).toBe('')
  })
})

describe('resendBody', () => {
  it('sends a failed email again as a copy into the outbox, in its thread, with its files and the undo window', () => {
    const failed = emailFixture('acti_failed', {
      status: 'error',
      sender: 'casey@journey.test',
      to: ['ann@example.com'],
      bcc: ['boss@journey.test'],
      subject: 'Re: Proposal',
      body_text: 'Hi',
      body_html: '<p>Hi</p>',
      contact_id: 'cont_1',
      in_reply_to_id: 'acti_first',
      template_id: null,
      attachments: [plan],
    })
    expect(resendBody(failed)).toEqual({
      lead_id: failed.lead_id,
      status: 'outbox',
      sender: 'casey@journey.test',
      to: ['ann@example.com'],
      cc: failed.cc,
      bcc: ['boss@journey.test'],
      subject: 'Re: Proposal',
      body_text: 'Hi',
      body_html: '<p>Hi</p>',
      attachments: [plan],
      contact_id: 'cont_1',
      in_reply_to_id: 'acti_first',
      send_in: 5,
    })
  })
})
