import { describe, expect, it } from 'vitest'
import { callHeadline, callParty, playableUrl } from './call-display'
import { callFixture } from './phone-fixture'

describe('callHeadline', () => {
  it('names the direction, and a status other than completed', () => {
    expect(callHeadline(callFixture())).toBe('Outbound call')
    expect(callHeadline(callFixture({ direction: 'inbound' }))).toBe('Inbound call')
    expect(callHeadline(callFixture({ status: 'busy', disposition: 'busy' }))).toBe('Outbound call · busy')
    expect(callHeadline(callFixture({ status: 'no-answer' }))).toBe('Outbound call · no answer')
  })

  it('tells a missed call and a voicemail apart from a call', () => {
    expect(callHeadline(callFixture({ direction: 'inbound', status: 'no-answer' }))).toBe('Missed call')
    expect(callHeadline(callFixture({ direction: 'inbound', status: 'completed', disposition: 'no-answer' }))).toBe(
      'Missed call',
    )
    expect(callHeadline(callFixture({ direction: 'inbound', voicemail_url: 'https://v.test/1.mp3' }))).toBe('Voicemail')
    expect(callHeadline(callFixture({ disposition: 'vm-left' }))).toBe('Left a voicemail')
  })
})

describe('callParty', () => {
  it('names the contact and the number, or whichever is known', () => {
    expect(callParty(callFixture())).toBe('Ann Smith (+1 415-555-0100)')
    expect(callParty(callFixture({ contact_name: null }))).toBe('+1 415-555-0100')
    expect(callParty(callFixture({ remote_phone_formatted: null }))).toBe('Ann Smith (+14155550100)')
    expect(
      callParty(callFixture({ remote_phone_formatted: null, remote_phone: null, phone: null, contact_name: '' })),
    ).toBeUndefined()
  })
})

describe('playableUrl', () => {
  it('plays https addresses only', () => {
    expect(playableUrl('https://rec.test/a.mp3')).toBe('https://rec.test/a.mp3')
    expect(playableUrl('HTTPS://rec.test/a.mp3')).toBe('HTTPS://rec.test/a.mp3')
    expect(playableUrl('http://rec.test/a.mp3')).toBeUndefined()
    expect(playableUrl('javascript:alert(1)')).toBeUndefined()
    expect(playableUrl('rec.test/a.mp3')).toBeUndefined()
    expect(playableUrl(null)).toBeUndefined()
  })
})
