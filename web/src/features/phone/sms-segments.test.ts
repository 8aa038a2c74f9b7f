import { describe, expect, it } from 'vitest'
import { smsLength, smsLengthText } from './sms-segments'

describe('smsLength', () => {
  it('counts nothing for an empty text', () => {
    expect(smsLength('')).toEqual({ encoding: 'GSM-7', characters: 0, segments: 0 })
  })

  it('fits 160 GSM characters in one segment and splits the 161st into parts of 153', () => {
    expect(smsLength('a'.repeat(160))).toEqual({ encoding: 'GSM-7', characters: 160, segments: 1 })
    expect(smsLength('a'.repeat(161)).segments).toBe(2)
    expect(smsLength('a'.repeat(306)).segments).toBe(2)
    expect(smsLength('a'.repeat(307)).segments).toBe(3)
  })

  it('counts the extension characters twice and never splits one across parts', () => {
    expect(smsLength('€'.repeat(80))).toEqual({ encoding: 'GSM-7', characters: 80, segments: 1 })
    expect(smsLength('€'.repeat(81)).segments).toBe(2)
    // 152 units, then a two-unit character that would end on the 154th: it opens the second part.
    expect(smsLength(`${'a'.repeat(152)}[${'a'.repeat(10)}`).segments).toBe(2)
    expect(smsLength(`${'a'.repeat(152)}[${'a'.repeat(152)}`).segments).toBe(3)
    expect(smsLength(`${'a'.repeat(151)}[${'a'.repeat(153)}`).segments).toBe(2)
  })

  it('sends anything outside the GSM alphabet as Unicode: 70 a segment, 67 in parts', () => {
    expect(smsLength('Łódź')).toEqual({ encoding: 'UCS-2', characters: 4, segments: 1 })
    expect(smsLength('ж'.repeat(70)).segments).toBe(1)
    expect(smsLength('ж'.repeat(71)).segments).toBe(2)
    expect(smsLength('ж'.repeat(134)).segments).toBe(2)
    expect(smsLength('ж'.repeat(135)).segments).toBe(3)
  })

  it('counts an emoji as one character and two units, kept whole', () => {
    expect(smsLength('Hi 👋')).toEqual({ encoding: 'UCS-2', characters: 4, segments: 1 })
    expect(smsLength('👋'.repeat(35)).segments).toBe(1)
    expect(smsLength('👋'.repeat(36)).segments).toBe(2)
    // 66 units, then an emoji that would end on the 68th: it opens the second part.
    expect(smsLength(`${'ж'.repeat(66)}👋${'ж'.repeat(10)}`).segments).toBe(2)
    expect(smsLength(`${'ж'.repeat(66)}👋${'ж'.repeat(66)}`).segments).toBe(3)
  })
})

describe('smsLengthText', () => {
  it('says the count in words', () => {
    expect(smsLengthText('')).toBe('0 characters · 0 segments')
    expect(smsLengthText('a')).toBe('1 character · 1 segment')
    expect(smsLengthText('a'.repeat(200))).toBe('200 characters · 2 segments')
    expect(smsLengthText('Grüße 😀')).toBe('7 characters · 1 segment (Unicode: 70 characters a segment)')
  })
})
