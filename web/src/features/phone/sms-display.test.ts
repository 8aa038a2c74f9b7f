import { describe, expect, it } from 'vitest'
import { smsFixture } from './phone-fixture'
import { conversationName, conversationOrder, messageState } from './sms-display'

const format = (timestamp: string) => `<${timestamp.slice(0, 16)}>`

describe('messageState', () => {
  it('says each status in words, with the instant it is about', () => {
    expect(messageState(smsFixture('a', { status: 'sent', date_sent: '2026-03-02T10:00:05+00:00' }), format)).toEqual({
      label: 'Sent',
      tone: 'plain',
      at: '2026-03-02T10:00:05+00:00',
    })
    expect(messageState(smsFixture('a', { status: 'inbox', direction: 'inbound' }), format)).toMatchObject({
      label: 'Received',
      at: '2026-03-02T10:00:00.000000+00:00',
    })
    expect(messageState(smsFixture('a', { status: 'draft' }), format)).toEqual({ label: 'Draft', tone: 'pending' })
    expect(
      messageState(smsFixture('a', { status: 'scheduled', date_scheduled: '2026-03-05T09:30:00+00:00' }), format),
    ).toEqual({ label: 'Scheduled for <2026-03-05T09:30>', tone: 'pending' })
    expect(messageState(smsFixture('a', { status: 'outbox' }), format)).toEqual({ label: 'Sending…', tone: 'pending' })
  })

  it('shows why a send failed: the last attempt while it is retried, the error once given up', () => {
    const attempts = [
      { date: '2026-03-02T10:00:05+00:00', error: 'timeout' },
      { date: '2026-03-02T10:00:35+00:00', error: 'provider said 503' },
    ]
    expect(messageState(smsFixture('a', { status: 'outbox', send_attempts: attempts }), format)).toEqual({
      label: 'Sending… (last try failed: provider said 503)',
      tone: 'error',
    })
    expect(
      messageState(
        smsFixture('a', { status: 'error', error_message: 'Number unreachable', send_attempts: attempts }),
        format,
      ),
    ).toEqual({ label: 'Failed to send: Number unreachable', tone: 'error' })
    expect(messageState(smsFixture('a', { status: 'error', send_attempts: attempts }), format).label).toBe(
      'Failed to send: provider said 503',
    )
    expect(messageState(smsFixture('a', { status: 'error' }), format).label).toBe('Failed to send: not sent')
  })
})

describe('conversationOrder', () => {
  it('reads oldest first by when each was sent, is due or was received; drafts last', () => {
    const messages = [
      smsFixture('draft', { status: 'draft', activity_at: '2026-03-01T08:00:00+00:00' }),
      smsFixture('later', { status: 'scheduled', date_scheduled: '2026-03-09T08:00:00+00:00' }),
      smsFixture('reply', { status: 'inbox', direction: 'inbound', activity_at: '2026-03-02T11:00:00+00:00' }),
      // Written first, sent after the reply came in: it stands where it was sent.
      smsFixture('sent', {
        status: 'sent',
        activity_at: '2026-03-02T09:00:00+00:00',
        date_sent: '2026-03-02T12:00:00.000000+00:00',
      }),
      smsFixture('first', { status: 'sent', date_sent: '2026-03-02T10:00:00Z' }),
    ]
    expect(conversationOrder(messages).map((m) => m.id)).toEqual(['first', 'reply', 'sent', 'later', 'draft'])
  })
})

describe('conversationName', () => {
  it('is the contact, else the number', () => {
    expect(conversationName([smsFixture('a', { contact_name: null }), smsFixture('b')])).toBe('Ann Smith')
    expect(conversationName([smsFixture('a', { contact_name: null })])).toBe('+1 415-555-0100')
    expect(conversationName([smsFixture('a', { contact_name: null, remote_phone_formatted: null })])).toBe(
      '+14155550100',
    )
  })
})
