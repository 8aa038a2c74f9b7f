import { describe, expect, it } from 'vitest'
import { emailFixture } from '../email/email-fixture'
import { smsFixture } from '../phone/phone-fixture'
import {
  activityStyle,
  activityTypeLabel,
  timelineItems,
  unknownActivityText,
  type TimelineItem,
} from './activity-display'

const ids = (item: TimelineItem) =>
  'messages' in item
    ? item.messages.map((m) => m.id)
    : 'emails' in item
      ? item.emails.map((e) => e.id)
      : item.activity.id

describe('activityStyle', () => {
  it('keeps the known types’ labels', () => {
    expect(activityStyle('Created').label).toBe('Created')
    expect(activityStyle('Note').label).toBe('Note')
    expect(activityStyle('LeadStatusChange').label).toBe('Status')
  })

  it('gives a type it does not know a plain style and a readable label', () => {
    expect(activityStyle('Meeting')).toEqual({
      label: 'Meeting',
      badge: 'bg-slate-100 text-slate-700',
      border: 'border-l-slate-300',
    })
    expect(activityStyle('EmailThread').label).toBe('Email thread')
    expect(activityStyle('constructor').label).toBe('constructor')
    expect(activityStyle('').label).toBe('Activity')
  })
})

describe('activityTypeLabel', () => {
  it('splits camel case and keeps acronyms', () => {
    expect(activityTypeLabel('Meeting')).toBe('Meeting')
    expect(activityTypeLabel('CustomActivityInstance')).toBe('Custom activity instance')
    expect(activityTypeLabel('SMS')).toBe('SMS')
    expect(activityTypeLabel('OpportunityStatusChange')).toBe('Opportunity status change')
  })
})

describe('unknownActivityText', () => {
  it('reads the first text field such activities carry', () => {
    expect(unknownActivityText({ _type: 'Email', subject: 'Proposal', body_text: 'Hi' })).toBe('Proposal')
    expect(unknownActivityText({ _type: 'Call', note: 'Left a voicemail', duration: 30 })).toBe('Left a voicemail')
    expect(unknownActivityText({ _type: 'Call', note: '', duration: 30 })).toBeUndefined()
    expect(unknownActivityText({ _type: 'Call', note: 42 })).toBeUndefined()
  })
})

describe('timelineItems', () => {
  it('gathers each contact’s messages into one conversation where its newest stands', () => {
    const note = (id: string) => ({ ...smsFixture(id), _type: 'Note' as const, note: id, note_html: id })
    const items = timelineItems([
      smsFixture('sms3', { contact_id: 'cont_1' }),
      note('note2'),
      smsFixture('sms2', { contact_id: 'cont_2' }),
      smsFixture('sms1', { contact_id: 'cont_1' }),
      smsFixture('sms0', { contact_id: null, remote_phone: '+15550001111' }),
      note('note1'),
      smsFixture('sms-1', { contact_id: null, remote_phone: '+15550001111' }),
    ])
    expect(items.map(ids)).toEqual([['sms3', 'sms1'], 'note2', ['sms2'], ['sms0', 'sms-1'], 'note1'])
    expect(new Set(items.map((item) => item.key)).size).toBe(items.length)
  })

  it('gathers each thread’s emails into one entry where its newest stands, apart from texts', () => {
    const items = timelineItems([
      emailFixture('e3', { thread_id: 'acti_t1' }),
      smsFixture('sms1', { contact_id: 'cont_1' }),
      emailFixture('e2', { thread_id: 'acti_t2' }),
      emailFixture('e1', { thread_id: 'acti_t1' }),
      emailFixture('e0', { thread_id: null }),
    ])
    expect(items.map(ids)).toEqual([['e3', 'e1'], ['sms1'], ['e2'], ['e0']])
    expect(new Set(items.map((item) => item.key)).size).toBe(items.length)
  })
})
