import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { compareTaskDates, isDateOnly, localDateIn, nextDay, startOfLocalDay, taskViewAt } from './task-dates.js'

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

describe('days in a zone with daylight saving time', () => {
  const at = (iso: string) => new Date(iso)

  it.each([
    // New York springs forward at 07:00 UTC on 2026-03-08: at 01:00 EST the day still ends at midnight EDT.
    ['America/New_York', '2026-03-08T06:00:00Z', '2026-03-09T04:00:00.000Z'],
    // …and falls back at 06:00 UTC on 2026-11-01: at 00:30 EDT the day ends at midnight EST, 25 hours later.
    ['America/New_York', '2026-11-01T04:30:00Z', '2026-11-02T05:00:00.000Z'],
    ['Europe/London', '2026-03-29T00:30:00Z', '2026-03-29T23:00:00.000Z'],
    ['Europe/London', '2026-10-24T23:30:00Z', '2026-10-26T00:00:00.000Z'],
    // Lord Howe Island moves by half an hour: +10:30 to +11 at 02:00 local on 2026-10-04, back on 2026-04-05.
    ['Australia/Lord_Howe', '2026-10-03T14:00:00Z', '2026-10-04T13:00:00.000Z'],
    ['Australia/Lord_Howe', '2026-04-04T13:30:00Z', '2026-04-05T13:30:00.000Z'],
  ])('in %s at %s today ends at %s', (zone, now, end) => {
    const today = localDateIn(zone, at(now))
    expect(startOfLocalDay(nextDay(today), zone).toISOString()).toBe(end)
    const justBefore = new Date(Date.parse(end) - 60_000).toISOString().replace('Z', '000+00:00')
    const justAfter = end.replace('Z', '000+00:00')
    expect(taskViewAt(open(justBefore), zone, at(now))).toBe('inbox')
    expect(taskViewAt(open(justAfter), zone, at(now))).toBe('future')
  })

  it('starts a day whose midnight is skipped at the change (Santiago, 2026-09-06 00:00 → 01:00)', () => {
    expect(startOfLocalDay('2026-09-06', 'America/Santiago').toISOString()).toBe('2026-09-06T04:00:00.000Z')
    expect(localDateIn('America/Santiago', at('2026-09-06T03:59:59Z'))).toBe('2026-09-05')
  })

  it('holds for any instant and any zone: a day starts at its first instant, and today ends where tomorrow starts', () => {
    const zones = [
      'America/New_York',
      'Europe/London',
      'Australia/Lord_Howe',
      'America/Santiago',
      'America/Havana',
      'Asia/Beirut',
      'Pacific/Chatham',
      'America/Sao_Paulo',
      'Asia/Kathmandu',
      'UTC',
    ]
    const instant = fc.integer({ min: Date.parse('2020-01-01T00:00:00Z'), max: Date.parse('2030-12-31T00:00:00Z') })
    fc.assert(
      fc.property(
        fc.constantFrom(...zones),
        instant,
        fc.integer({ min: -3 * 86_400, max: 3 * 86_400 }),
        (zone, ms, s) => {
          const now = new Date(ms)
          const day = localDateIn(zone, now)
          const start = startOfLocalDay(day, zone)
          expect(start.getTime()).toBeLessThanOrEqual(ms)
          expect(localDateIn(zone, start)).toBe(day)
          expect(localDateIn(zone, new Date(start.getTime() - 1000)) < day).toBe(true)
          // A timed task is in the inbox exactly when its local day is today or earlier.
          const due = new Date(Math.floor(ms / 1000) * 1000 + s * 1000)
          const date = due.toISOString().replace('Z', '000+00:00')
          expect(taskViewAt(open(date), zone, now) === 'inbox').toBe(localDateIn(zone, due) <= day)
        },
      ),
      { seed: 27, numRuns: 200 },
    )
  })
})
