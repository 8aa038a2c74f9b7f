import { afterEach, describe, expect, it } from 'vitest'
import {
  browserTimeZone,
  displayTimeZone,
  formatDateTime,
  formatDuration,
  localDate,
  setDisplayTimeZone,
} from './format'
import { fromDateTimeLocalInput, toDateTimeLocalInput, wallClock, zonedInstant } from './wall-clock'

describe('formatDuration', () => {
  it('writes minutes and two-digit seconds', () => {
    expect(formatDuration(0)).toBe('0:00')
    expect(formatDuration(5)).toBe('0:05')
    expect(formatDuration(75)).toBe('1:15')
    expect(formatDuration(3600)).toBe('60:00')
  })

  it('rounds to the second without ever showing 60 seconds', () => {
    expect(formatDuration(59.6)).toBe('1:00')
    expect(formatDuration(119.5)).toBe('2:00')
    expect(formatDuration(-3)).toBe('0:00')
  })
})

describe('the display zone', () => {
  afterEach(() => {
    setDisplayTimeZone(undefined)
  })

  it('is the browser’s until the session names one', () => {
    expect(displayTimeZone()).toBe(browserTimeZone())
    setDisplayTimeZone('Asia/Tokyo')
    expect(displayTimeZone()).toBe('Asia/Tokyo')
  })

  it('gives the calendar day and wall clock there, whatever the browser’s zone', () => {
    const at = new Date('2026-03-01T20:30:00Z')
    setDisplayTimeZone('Asia/Tokyo')
    expect(localDate(at)).toBe('2026-03-02')
    expect(wallClock(at)).toEqual({ day: '2026-03-02', hours: 5, minutes: 30 })
    expect(toDateTimeLocalInput(at.toISOString())).toBe('2026-03-02T05:30')
    expect(formatDateTime(at.toISOString())).toMatch(/5:30/)
    setDisplayTimeZone('America/Los_Angeles')
    expect(localDate(at)).toBe('2026-03-01')
    expect(toDateTimeLocalInput(at.toISOString())).toBe('2026-03-01T12:30')
    expect(formatDateTime(at.toISOString())).toMatch(/12:30/)
  })

  it('reads a wall-clock time back as the instant it is there, across offset changes', () => {
    setDisplayTimeZone('Asia/Kolkata')
    expect(fromDateTimeLocalInput('2026-03-02T05:30')).toBe('2026-03-02T00:00:00.000Z')
    setDisplayTimeZone('Europe/Paris')
    // Winter (+1) and summer (+2) on either side of the change on March 29, 2026.
    expect(zonedInstant('2026-03-28', 12, 0).toISOString()).toBe('2026-03-28T11:00:00.000Z')
    expect(zonedInstant('2026-03-29', 12, 0).toISOString()).toBe('2026-03-29T10:00:00.000Z')
    expect(zonedInstant('2026-03-29', 1, 30).toISOString()).toBe('2026-03-29T00:30:00.000Z')
    for (const value of ['2026-01-15T00:00', '2026-07-04T23:59', '2026-10-25T12:15']) {
      expect(toDateTimeLocalInput(fromDateTimeLocalInput(value))).toBe(value)
    }
    expect(fromDateTimeLocalInput('not a time')).toBe('not a time')
  })
})
