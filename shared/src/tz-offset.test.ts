import { describe, expect, it } from 'vitest'
import { formatTzOffset, isTimeZone, localDateAt, parseTzOffset, tzOffsetHoursAt } from './tz-offset.js'

describe('parseTzOffset', () => {
  it.each([
    ['-4', -4],
    ['5.5', 5.5],
    ['0.0', 0],
    ['+9', 9],
    ['5.75', 5.75],
    [' -3.5 ', -3.5],
    ['14', 14],
    ['-12', -12],
  ])('reads %j as %d hours', (text, hours) => {
    expect(parseTzOffset(text)).toBe(hours)
  })

  it.each(['', 'abc', '15', '-12.5', '5.3', '1e1', '3:00', 'NaN', '--1', '0x1'])('refuses %j', (text) => {
    expect(parseTzOffset(text)).toBeUndefined()
  })
})

describe('tzOffsetHoursAt', () => {
  it('follows daylight saving time on both sides of the change', () => {
    // New York left EDT (-4) for EST (-5) at 2026-11-01 06:00 UTC.
    expect(tzOffsetHoursAt('America/New_York', new Date('2026-11-01T05:59:00Z'))).toBe(-4)
    expect(tzOffsetHoursAt('America/New_York', new Date('2026-11-01T06:00:00Z'))).toBe(-5)
    // Berlin moved from CET (+1) to CEST (+2) at 2026-03-29 01:00 UTC.
    expect(tzOffsetHoursAt('Europe/Berlin', new Date('2026-03-29T00:59:59Z'))).toBe(1)
    expect(tzOffsetHoursAt('Europe/Berlin', new Date('2026-03-29T01:00:00Z'))).toBe(2)
  })

  it('handles fractional offsets', () => {
    expect(tzOffsetHoursAt('Asia/Kolkata', new Date('2026-06-01T00:00:00Z'))).toBe(5.5)
    expect(tzOffsetHoursAt('Asia/Kathmandu', new Date('2026-06-01T00:00:00Z'))).toBe(5.75)
    expect(tzOffsetHoursAt('UTC', new Date('2026-06-01T00:00:00Z'))).toBe(0)
  })
})

describe('formatTzOffset', () => {
  it('writes whole hours with one decimal, as clients send them', () => {
    expect(formatTzOffset(-4)).toBe('-4.0')
    expect(formatTzOffset(0)).toBe('0.0')
    expect(formatTzOffset(5.5)).toBe('5.5')
    expect(parseTzOffset(formatTzOffset(-9.5))).toBe(-9.5)
  })
})

describe('localDateAt', () => {
  it('gives the caller’s calendar date, which can differ from the UTC date', () => {
    const at = new Date('2026-03-01T02:30:00Z')
    expect(localDateAt(at, 0)).toBe('2026-03-01')
    expect(localDateAt(at, -4)).toBe('2026-02-28')
    expect(localDateAt(new Date('2026-03-01T20:00:00Z'), 5.5)).toBe('2026-03-02')
  })
})

describe('isTimeZone', () => {
  it('knows IANA names and refuses others', () => {
    expect(isTimeZone('Europe/Paris')).toBe(true)
    expect(isTimeZone('UTC')).toBe(true)
    expect(isTimeZone('Mars/Olympus_Mons')).toBe(false)
    expect(isTimeZone('')).toBe(false)
    expect(isTimeZone(`Europe/${'x'.repeat(64)}`)).toBe(false)
  })
})
