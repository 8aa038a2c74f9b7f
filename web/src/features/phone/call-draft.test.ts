import { describe, expect, it } from 'vitest'
import { callBodyOf, emptyCallDraft } from './call-draft'

describe('callBodyOf', () => {
  it('sends the direction and only the fields filled in', () => {
    expect(callBodyOf('lead_1', emptyCallDraft())).toEqual({
      ok: true,
      body: { lead_id: 'lead_1', direction: 'outbound' },
    })
    expect(
      callBodyOf('lead_1', {
        contact_id: 'cont_1',
        direction: 'inbound',
        outcome_id: 'outcome_1',
        minutes: ' 2 ',
        seconds: '5',
        note: 'Wants a demo',
        recording_url: ' https://rec.test/1.mp3 ',
      }),
    ).toEqual({
      ok: true,
      body: {
        lead_id: 'lead_1',
        contact_id: 'cont_1',
        direction: 'inbound',
        outcome_id: 'outcome_1',
        duration: 125,
        note: 'Wants a demo',
        recording_url: 'https://rec.test/1.mp3',
      },
    })
  })

  it('reads minutes or seconds alone', () => {
    expect(callBodyOf('lead_1', { ...emptyCallDraft(), minutes: '3' })).toMatchObject({ body: { duration: 180 } })
    expect(callBodyOf('lead_1', { ...emptyCallDraft(), seconds: '0' })).toMatchObject({ body: { duration: 0 } })
  })

  it('refuses a duration that is not whole minutes and seconds up to 59', () => {
    for (const [minutes, seconds] of [
      ['1.5', ''],
      ['-1', ''],
      ['', 'ten'],
      ['1', '60'],
      ['1e3', ''],
    ]) {
      const result = callBodyOf('lead_1', { ...emptyCallDraft(), minutes: minutes ?? '', seconds: seconds ?? '' })
      expect(result.ok).toBe(false)
      expect(result.ok ? undefined : result.errors.duration).toMatch(/minutes and seconds|0 to 59/)
    }
  })

  it('leaves the recording URL for the API to check, so its own words are shown', () => {
    expect(callBodyOf('lead_1', { ...emptyCallDraft(), recording_url: 'http://rec.test/1.mp3' })).toMatchObject({
      ok: true,
      body: { recording_url: 'http://rec.test/1.mp3' },
    })
  })
})
