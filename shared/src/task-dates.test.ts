import { describe, expect, it } from 'vitest'
import { compareTaskDates, isDateOnly, nextDay, startOfLocalDay, taskViewAt } from './task-dates.js'

const open = (date: string) => ({ is_complete: false, is_dateless: false, date })

describe('task dates', () => {
  it('tells date-only dates from timestamps and steps over month and leap-year ends', () => {
    expect(isDateOnly('2026-03-01')).toBe(true)
    expect(isDateOnly('2026-03-01T00:00:00.000000+00:00')).toBe(false)
    expect(nextDay('2028-02-28')).toBe('2028-02-29')
    expect(nextDay('2026-12-31')).toBe('2027-01-01')
    expect(startOfLocalDay('2026-03-02', 5.5).toISOString()).toBe('2026-03-01T18:30:00.000Z')
    expect(startOfLocalDay('2026-03-02', -12).toISOString()).toBe('2026-03-02T12:00:00.000Z')
  })

  it('orders as Close documents at −8: a date-only task after 07:00 UTC and before 08:00 UTC that day', () => {
    const day = '2015-01-12'
    expect(compareTaskDates('2015-01-12T07:00:00.000000+00:00', day, -8)).toBeLessThan(0)
    expect(compareTaskDates(day, '2015-01-12T08:00:00.000000+00:00', -8)).toBeLessThan(0)
    expect(compareTaskDates(day, day, -8)).toBe(0)
  })

  it('puts complete tasks in the archive and dateless ones in the inbox, whatever their date', () => {
    const now = new Date('2026-03-01T12:00:00Z')
    expect(taskViewAt({ is_complete: true, is_dateless: false, date: '2030-01-01' }, 0, now)).toBe('archive')
    expect(taskViewAt({ is_complete: false, is_dateless: true, date: '2030-01-01' }, 0, now)).toBe('inbox')
  })

  it('splits at the end of the caller’s today: in date order, every inbox task comes before every future one', () => {
    // Every day and every half hour over six days, at every real offset, seen every five hours over three days.
    const days = Array.from({ length: 6 }, (_, i) => new Date(Date.parse('2026-02-27T00:00:00Z') + i * 86_400_000))
    const dates = [
      ...days.map((d) => d.toISOString().slice(0, 10)),
      ...Array.from({ length: 6 * 48 }, (_, i) =>
        new Date(Date.parse('2026-02-27T00:00:00Z') + i * 1_800_000).toISOString().replace('Z', '000+00:00'),
      ),
    ]
    for (let quarters = -48; quarters <= 56; quarters++) {
      const offset = quarters / 4
      const sorted = [...dates].sort((a, b) => compareTaskDates(a, b, offset))
      for (let hour = 1; hour < 72; hour += 5) {
        const now = new Date(Date.parse('2026-02-28T00:00:00Z') + hour * 3_600_000)
        const views = sorted.map((date) => taskViewAt(open(date), offset, now))
        const firstFuture = views.indexOf('future')
        expect(firstFuture, `offset ${String(offset)} at ${now.toISOString()}`).toBeGreaterThan(0)
        expect(views.slice(firstFuture).every((v) => v === 'future')).toBe(true)
        // A date-only task is in the inbox exactly when its day has started for the caller.
        for (const day of dates.filter(isDateOnly)) {
          expect(taskViewAt(open(day), offset, now) === 'inbox').toBe(startOfLocalDay(day, offset) <= now)
        }
      }
    }
    // About a second alone; several times that on a busy machine, past vitest's default of five.
  }, 30_000)
})
