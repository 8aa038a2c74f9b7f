import { describe, expect, it } from 'vitest'
import type { Contact } from '@leadline/shared/contact-schema'
import type { PhoneNumber } from '@leadline/shared/phone-number-schema'
import { smsFixture } from './phone-fixture'
import {
  defaultSender,
  recipientKey,
  recipientsOf,
  senderLabel,
  sendingNumbers,
  smsBodyOf,
  type SmsDraft,
} from './sms-draft'

function contact(id: string, name: string, phones: [string, string][]): Contact {
  return {
    id,
    organization_id: 'orga_1',
    lead_id: 'lead_1',
    name,
    display_name: name,
    title: '',
    emails: [],
    phones: phones.map(([phone, formatted]) => ({ type: 'mobile', phone, phone_formatted: formatted, country: 'US' })),
    urls: [],
    custom: {},
    created_by: null,
    updated_by: null,
    date_created: '2026-03-01T10:00:00.000000+00:00',
    date_updated: '2026-03-01T10:00:00.000000+00:00',
  }
}

function number(value: string, userId: string | null, label: string | null = null): PhoneNumber {
  return {
    id: `phon_${value}`,
    organization_id: 'orga_1',
    number: value,
    number_formatted: `f${value}`,
    label,
    type: 'internal',
    user_id: userId,
    is_group_number: false,
    sms_enabled: true,
    date_created: '2026-03-01T10:00:00.000000+00:00',
    date_updated: '2026-03-01T10:00:00.000000+00:00',
  }
}

const contacts = [
  contact('cont_1', 'Ann Smith', [
    ['+14155550100', '+1 415-555-0100'],
    ['+14155550101', '+1 415-555-0101'],
  ]),
  contact('cont_2', '', [['+442079460000', '+44 20 7946 0000']]),
  contact('cont_3', 'No Phone', []),
]

describe('recipientsOf', () => {
  it('offers every phone of every contact, labelled with the contact’s name', () => {
    expect(recipientsOf(contacts).map((r) => [r.label, r.name, r.contactId, r.phone])).toEqual([
      ['Ann Smith — +1 415-555-0100 (mobile)', 'Ann Smith', 'cont_1', '+14155550100'],
      ['Ann Smith — +1 415-555-0101 (mobile)', 'Ann Smith', 'cont_1', '+14155550101'],
      ['Unnamed contact — +44 20 7946 0000 (mobile)', 'Unnamed contact', 'cont_2', '+442079460000'],
    ])
    expect(new Set(recipientsOf(contacts).map((r) => r.key)).size).toBe(3)
  })

  it('keeps a draft’s recipient that its contact no longer lists', () => {
    const draft = smsFixture('acti_1', { status: 'draft', contact_id: 'cont_9', remote_phone: '+15550001111' })
    const recipients = recipientsOf(contacts, { ...draft, remote_phone_formatted: '+1 555-000-1111' })
    expect(recipients).toHaveLength(4)
    expect(recipients.at(-1)).toEqual({
      key: recipientKey('cont_9', '+15550001111'),
      contactId: 'cont_9',
      phone: '+15550001111',
      label: 'Ann Smith — +1 555-000-1111',
      name: 'Ann Smith',
    })
    // One still listed is not offered twice.
    expect(recipientsOf(contacts, smsFixture('acti_2', { contact_id: 'cont_1' }))).toHaveLength(3)
  })
})

describe('defaultSender', () => {
  const numbers = [number('+14155550198', null), number('+14155550199', 'user_2')]
  it('is the draft’s number, else the user’s own, else the first', () => {
    expect(defaultSender(numbers, 'user_2', smsFixture('a', { local_phone: '+14155550198' }))).toBe('+14155550198')
    expect(defaultSender(numbers, 'user_2')).toBe('+14155550199')
    expect(defaultSender(numbers, 'user_1')).toBe('+14155550198')
    expect(defaultSender([], 'user_1')).toBe('')
  })

  it('never starts on a colleague’s direct line, and offers only shared lines and the user’s own', () => {
    const colleagueFirst = [number('+14155550199', 'user_2'), number('+14155550198', null)]
    expect(defaultSender(colleagueFirst, 'user_1')).toBe('+14155550198')
    expect(defaultSender([number('+14155550199', 'user_2')], 'user_1')).toBe('')
    expect(sendingNumbers(colleagueFirst, 'user_1').map((n) => n.number)).toEqual(['+14155550198'])
    expect(sendingNumbers(colleagueFirst, 'user_2').map((n) => n.number)).toEqual(['+14155550199', '+14155550198'])
  })

  it('labels a number with its label when it has one', () => {
    expect(senderLabel(number('+1', null))).toBe('f+1')
    expect(senderLabel(number('+1', null, 'Sales line'))).toBe('f+1 (Sales line)')
  })
})

describe('smsBodyOf', () => {
  const [ann] = recipientsOf(contacts)
  const now = new Date('2026-03-02T10:00:00Z')
  const draft: SmsDraft = { recipient: ann, from: '+14155550199', text: 'Hi Ann', mode: 'send', sendAt: '' }

  it('sends now through the outbox, after the undo window', () => {
    expect(smsBodyOf(draft, now)).toEqual({
      ok: true,
      body: {
        contact_id: 'cont_1',
        remote_phone: '+14155550100',
        local_phone: '+14155550199',
        text: 'Hi Ann',
        status: 'outbox',
        send_in: 5,
      },
    })
  })

  it('schedules for a time to come', () => {
    expect(smsBodyOf({ ...draft, mode: 'schedule', sendAt: '2026-03-02T11:00:00.000Z' }, now)).toEqual({
      ok: true,
      body: {
        contact_id: 'cont_1',
        remote_phone: '+14155550100',
        local_phone: '+14155550199',
        text: 'Hi Ann',
        status: 'scheduled',
        date_scheduled: '2026-03-02T11:00:00.000Z',
      },
    })
    expect(smsBodyOf({ ...draft, mode: 'schedule', sendAt: '' }, now)).toEqual({
      ok: false,
      errors: { date_scheduled: 'Pick a date and time.' },
    })
    expect(smsBodyOf({ ...draft, mode: 'schedule', sendAt: '2026-03-02T10:00:00.000Z' }, now)).toEqual({
      ok: false,
      errors: { date_scheduled: 'Pick a time in the future.' },
    })
  })

  it('asks for a recipient, a sender and a text', () => {
    expect(smsBodyOf({ ...draft, recipient: undefined, from: '', text: ' \n' }, now)).toEqual({
      ok: false,
      errors: {
        remote_phone: 'Choose whom to text.',
        local_phone: 'Choose a number to send from.',
        text: 'Write a message first.',
      },
    })
  })
})
