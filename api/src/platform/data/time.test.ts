import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { formatTimestamp, parseTimestamp } from './time.js'

describe('formatTimestamp', () => {
  it('writes microseconds and a UTC offset after the milliseconds of any instant, extended years too', () => {
    fc.assert(
      fc.property(fc.date({ noInvalidDate: true }), (at) => {
        const iso = at.toISOString()
        const formatted = formatTimestamp(at)
        expect(formatted).toBe(iso.replace(/\.(\d{3})Z$/, '.$1000+00:00'))
        expect(formatted).toMatch(/\.\d{6}\+00:00$/)
        expect(new Date(formatted).getTime()).toBe(at.getTime())
      }),
    )
    expect(formatTimestamp(new Date(Date.UTC(2017, 8, 29, 10, 40, 23, 140)))).toBe('2017-09-29T10:40:23.140000+00:00')
  })

  it('reads back what it writes', () => {
    const at = new Date(Date.UTC(2026, 11, 1, 8, 0, 0, 5))
    expect(parseTimestamp(formatTimestamp(at))).toBe('2026-12-01T08:00:00.005000+00:00')
  })
})
