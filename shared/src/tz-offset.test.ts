import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
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

  it('answers from its last minute only within that minute, in whatever order instants come', () => {
    const at = (iso: string) => tzOffsetHoursAt('America/New_York', new Date(iso))
    expect([at('2026-11-01T05:59:30Z'), at('2026-11-01T06:00:10Z'), at('2026-11-01T05:59:59Z')]).toEqual([-4, -5, -4])
    // Against the runtime's own offset names (GMT-04:00), for instants in runs of seconds apart, across changes.
    const zones = ['America/New_York', 'Europe/Berlin', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'America/St_Johns']
    const named = (zone: string, instant: Date) => {
      const name = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' })
        .formatToParts(instant)
        .find((part) => part.type === 'timeZoneName')?.value
      const [, sign, hh, mm] = /^GMT([+-])(\d\d):(\d\d)$/.exec(name ?? '') ?? ['', '+', '00', '00']
      return (sign === '-' ? -1 : 1) * (Number(hh) + Number(mm) / 60)
    }
    fc.assert(
      fc.property(
        fc.constantFrom(...zones),
        fc.oneof(
          fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2030, 0, 1) }),
          // Near New York's and Berlin's changes of 2026.
          fc
            .constantFrom(
              '2026-03-08T07:00:00Z',
              '2026-11-01T06:00:00Z',
              '2026-03-29T01:00:00Z',
              '2026-10-25T01:00:00Z',
            )
            .chain((change) => fc.integer({ min: Date.parse(change) - 120_000, max: Date.parse(change) + 120_000 })),
        ),
        fc.array(fc.integer({ min: -90_000, max: 90_000 }), { minLength: 1, maxLength: 8 }),
        (zone, start, steps) => {
          let ms = start
          for (const step of steps) {
            ms += step
            expect(tzOffsetHoursAt(zone, new Date(ms)), new Date(ms).toISOString()).toBe(named(zone, new Date(ms)))
          }
        },
      ),
      { numRuns: 300 },
    )
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
