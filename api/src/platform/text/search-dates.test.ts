import process from 'node:process'
import { describe, expect, it } from 'vitest'
import { DateValueError, resolveDateDays, resolveDateValue, type DateRange } from './search-dates.js'

// A Friday, 02:30 UTC: Thursday 29 February (a leap day) at -4, Friday 1 March at 0 and at +5.5.
const now = new Date('2024-03-01T02:30:00Z')

/** Writes a range compactly: `2024-02-29T04:00` → `2024-02-29T04:00:00.000000+00:00`. */
function utc(start: string, end: string): DateRange {
  const wire = (at: string) => (at.length === 16 ? `${at}:00.000000+00:00` : `${at}+00:00`)
  return { start: wire(start), end: wire(end) }
}

describe('resolveDateValue: relative values in the caller’s local calendar', () => {
  it.each([
    ['today', 0, utc('2024-03-01T00:00', '2024-03-02T00:00')],
    ['today', -4, utc('2024-02-29T04:00', '2024-03-01T04:00')],
    ['today', 5.5, utc('2024-02-29T18:30', '2024-03-01T18:30')],
    ['yesterday', 0, utc('2024-02-29T00:00', '2024-03-01T00:00')],
    ['yesterday', -4, utc('2024-02-28T04:00', '2024-02-29T04:00')],
    ['yesterday', 5.5, utc('2024-02-28T18:30', '2024-02-29T18:30')],
    ['tomorrow', 0, utc('2024-03-02T00:00', '2024-03-03T00:00')],
    ['tomorrow', -4, utc('2024-03-01T04:00', '2024-03-02T04:00')],
    ['tomorrow', 5.5, utc('2024-03-01T18:30', '2024-03-02T18:30')],
    ['3 days ago', 0, utc('2024-02-27T00:00', '2024-02-28T00:00')],
    ['3 days ago', -4, utc('2024-02-26T04:00', '2024-02-27T04:00')],
    ['3 days ago', 5.5, utc('2024-02-26T18:30', '2024-02-27T18:30')],
    ['0 days ago', -4, utc('2024-02-29T04:00', '2024-03-01T04:00')],
    ['1 day ago', 0, utc('2024-02-29T00:00', '2024-03-01T00:00')],
    ['2 weeks ago', 0, utc('2024-02-16T00:00', '2024-02-17T00:00')],
    ['2 weeks ago', -4, utc('2024-02-15T04:00', '2024-02-16T04:00')],
    ['2 weeks ago', 5.5, utc('2024-02-15T18:30', '2024-02-16T18:30')],
    ['1 month ago', 0, utc('2024-02-01T00:00', '2024-02-02T00:00')],
    ['1 month ago', -4, utc('2024-01-29T04:00', '2024-01-30T04:00')],
    ['1 month ago', 5.5, utc('2024-01-31T18:30', '2024-02-01T18:30')],
    ['14 months ago', 0, utc('2023-01-01T00:00', '2023-01-02T00:00')],
    ['1 year ago', -4, utc('2023-02-28T04:00', '2023-03-01T04:00')],
    ['this week', 0, utc('2024-02-26T00:00', '2024-03-04T00:00')],
    ['this week', -4, utc('2024-02-26T04:00', '2024-03-04T04:00')],
    ['this week', 5.5, utc('2024-02-25T18:30', '2024-03-03T18:30')],
    ['last week', 0, utc('2024-02-19T00:00', '2024-02-26T00:00')],
    ['last week', -4, utc('2024-02-19T04:00', '2024-02-26T04:00')],
    ['last week', 5.5, utc('2024-02-18T18:30', '2024-02-25T18:30')],
    ['this month', 0, utc('2024-03-01T00:00', '2024-04-01T00:00')],
    ['this month', -4, utc('2024-02-01T04:00', '2024-03-01T04:00')],
    ['this month', 5.5, utc('2024-02-29T18:30', '2024-03-31T18:30')],
    ['last month', 0, utc('2024-02-01T00:00', '2024-03-01T00:00')],
    ['last month', -4, utc('2024-01-01T04:00', '2024-02-01T04:00')],
    ['last month', 5.5, utc('2024-01-31T18:30', '2024-02-29T18:30')],
    ['this year', 0, utc('2024-01-01T00:00', '2025-01-01T00:00')],
    ['this year', -4, utc('2024-01-01T04:00', '2025-01-01T04:00')],
    ['this year', 5.5, utc('2023-12-31T18:30', '2024-12-31T18:30')],
    ['last year', 0, utc('2023-01-01T00:00', '2024-01-01T00:00')],
    ['last year', -4, utc('2023-01-01T04:00', '2024-01-01T04:00')],
    ['last year', 5.5, utc('2022-12-31T18:30', '2023-12-31T18:30')],
  ])('%s at offset %d', (value, offset, range) => {
    expect(resolveDateValue(value, now, offset)).toEqual(range)
  })

  it('ignores case and extra spaces', () => {
    expect(resolveDateValue('  LAST   Week ', now, 0)).toEqual(resolveDateValue('last week', now, 0))
    expect(resolveDateValue('3 Days Ago', now, 0)).toEqual(utc('2024-02-27T00:00', '2024-02-28T00:00'))
    expect(resolveDateValue('Today', now, 0)).toEqual(utc('2024-03-01T00:00', '2024-03-02T00:00'))
  })

  it('crosses a year boundary in the caller’s calendar', () => {
    const newYear = new Date('2025-01-01T02:00:00Z') // still Tuesday 31 December 2024 at -4
    expect(resolveDateValue('this year', newYear, -4)).toEqual(utc('2024-01-01T04:00', '2025-01-01T04:00'))
    expect(resolveDateValue('this month', newYear, -4)).toEqual(utc('2024-12-01T04:00', '2025-01-01T04:00'))
    expect(resolveDateValue('tomorrow', newYear, -4)).toEqual(utc('2025-01-01T04:00', '2025-01-02T04:00'))
    expect(resolveDateValue('this year', newYear, 0)).toEqual(utc('2025-01-01T00:00', '2026-01-01T00:00'))
    expect(resolveDateValue('yesterday', newYear, 0)).toEqual(utc('2024-12-31T00:00', '2025-01-01T00:00'))
    expect(resolveDateValue('last month', newYear, 0)).toEqual(utc('2024-12-01T00:00', '2025-01-01T00:00'))
    expect(resolveDateValue('this week', newYear, 0)).toEqual(utc('2024-12-30T00:00', '2025-01-06T00:00'))
  })

  it('counts Sunday in the week that began the Monday before', () => {
    const sunday = new Date('2024-03-03T20:00:00Z') // Monday 4 March 01:30 at +5.5
    expect(resolveDateValue('this week', sunday, 0)).toEqual(utc('2024-02-26T00:00', '2024-03-04T00:00'))
    expect(resolveDateValue('this week', sunday, 5.5)).toEqual(utc('2024-03-03T18:30', '2024-03-10T18:30'))
  })

  it('clamps "N months ago" to the end of a shorter month', () => {
    const endOfMarch = new Date('2024-03-31T12:00:00Z')
    expect(resolveDateValue('1 month ago', endOfMarch, 0)).toEqual(utc('2024-02-29T00:00', '2024-03-01T00:00'))
    expect(resolveDateValue('13 months ago', endOfMarch, 0)).toEqual(utc('2023-02-28T00:00', '2023-03-01T00:00'))
    expect(resolveDateValue('6 months ago', endOfMarch, 0)).toEqual(utc('2023-09-30T00:00', '2023-10-01T00:00'))
  })

  it('does not depend on the server’s time zone', () => {
    const saved = process.env.TZ
    try {
      const expected = ['today', 'last week', 'this month', '1 month ago', '2017-09-29', '2017-09-29T10:40'].map(
        (value) => resolveDateValue(value, now, -4),
      )
      for (const zone of ['America/New_York', 'Asia/Kolkata', 'Pacific/Kiritimati']) {
        process.env.TZ = zone
        // Proves the zone took effect in this process, so the comparison below means something.
        expect(new Date(2024, 0, 1).getTimezoneOffset()).not.toBe(0)
        const actual = ['today', 'last week', 'this month', '1 month ago', '2017-09-29', '2017-09-29T10:40'].map(
          (value) => resolveDateValue(value, now, -4),
        )
        expect(actual).toEqual(expected)
      }
    } finally {
      if (saved === undefined) delete process.env.TZ
      else process.env.TZ = saved
    }
  })
})

describe('resolveDateValue: absolute values', () => {
  it('takes a date as that whole local day', () => {
    expect(resolveDateValue('2017-09-29', now, 0)).toEqual(utc('2017-09-29T00:00', '2017-09-30T00:00'))
    expect(resolveDateValue('2017-09-29', now, -4)).toEqual(utc('2017-09-29T04:00', '2017-09-30T04:00'))
    expect(resolveDateValue('2017-09-29', now, 5.5)).toEqual(utc('2017-09-28T18:30', '2017-09-29T18:30'))
    expect(resolveDateValue('2024-02-29', now, 0)).toEqual(utc('2024-02-29T00:00', '2024-03-01T00:00'))
    expect(resolveDateValue('0050-06-01', now, 0)).toEqual(utc('0050-06-01T00:00', '0050-06-02T00:00'))
  })

  it('takes a time without a zone in the caller’s offset, for one unit of its precision', () => {
    expect(resolveDateValue('2017-09-29T10:40', now, -4)).toEqual(utc('2017-09-29T14:40', '2017-09-29T14:41'))
    expect(resolveDateValue('2017-09-29 10:40', now, 5.5)).toEqual(utc('2017-09-29T05:10', '2017-09-29T05:11'))
    expect(resolveDateValue('2017-09-29T10:40:23', now, 0)).toEqual(
      utc('2017-09-29T10:40:23.000000', '2017-09-29T10:40:24.000000'),
    )
    expect(resolveDateValue('2017-09-29T10:40:23.14', now, 0)).toEqual(
      utc('2017-09-29T10:40:23.140000', '2017-09-29T10:40:23.150000'),
    )
    expect(resolveDateValue('2017-09-29T10:40:23.1405', now, 0)).toEqual(
      utc('2017-09-29T10:40:23.140500', '2017-09-29T10:40:23.140600'),
    )
  })

  it('takes a time with a zone as that instant', () => {
    expect(resolveDateValue('2017-09-29T10:40Z', now, -4)).toEqual(utc('2017-09-29T10:40', '2017-09-29T10:41'))
    expect(resolveDateValue('2017-09-29t10:40z', now, 5.5)).toEqual(utc('2017-09-29T10:40', '2017-09-29T10:41'))
    expect(resolveDateValue('2017-09-29T10:40:23.140001+02:00', now, -4)).toEqual(
      utc('2017-09-29T08:40:23.140001', '2017-09-29T08:40:23.140002'),
    )
    expect(resolveDateValue('2017-09-29T23:59:59.999999-05:45', now, 0)).toEqual(
      utc('2017-09-30T05:44:59.999999', '2017-09-30T05:45:00.000000'),
    )
  })
})

describe('resolveDateValue: refusals', () => {
  it.each([
    ['soon', 'Unrecognised date "soon"'],
    ['', 'Unrecognised date ""'],
    ['3 fortnights ago', 'Unrecognised date "3 fortnights ago"'],
    ['-1 days ago', 'Unrecognised date "-1 days ago"'],
    ['2017-9-29', 'Unrecognised date "2017-9-29"'],
    ['2017-09-29T10', 'Unrecognised date "2017-09-29T10"'],
    ['1000000000 days ago', 'Unrecognised date "1000000000 days ago"'],
    ['2023-02-29', 'Invalid date "2023-02-29": there is no such day'],
    ['2017-13-01', 'Invalid date "2017-13-01": there is no such day'],
    ['0000-01-01', 'Invalid date "0000-01-01": there is no such day'],
    ['2017-09-29T24:00', 'Invalid date "2017-09-29T24:00": there is no such time of day'],
    ['2017-09-29T10:60', 'Invalid date "2017-09-29T10:60": there is no such time of day'],
    ['2017-09-29T10:40+24:00', 'Invalid date "2017-09-29T10:40+24:00": there is no such UTC offset'],
    ['999999999 days ago', 'Date out of range "999999999 days ago": use a date between the years 1 and 9999'],
    ['9999-12-31', 'Date out of range "9999-12-31"'],
  ])('refuses %j', (value, message) => {
    const refuse = () => resolveDateValue(value, now, 0)
    expect(refuse).toThrow(DateValueError)
    expect(refuse).toThrow(message)
  })

  it('says what is accepted', () => {
    expect(() => resolveDateValue('soon', now, 0)).toThrow(/use YYYY-MM-DD, .* "N days ago", .* or "last year"$/)
  })

  it('refuses a range that starts before year 1 in the caller’s calendar', () => {
    expect(resolveDateValue('0001-01-01', now, 0).start).toBe('0001-01-01T00:00:00.000000+00:00')
    expect(() => resolveDateValue('0001-01-01', now, 5.5)).toThrow('Date out of range "0001-01-01"')
  })
})

describe('resolveDateDays: calendar days, for date fields', () => {
  it.each([
    ['2018-01-15', 0, '2018-01-15', '2018-01-16'],
    ['2018-01-15', -4, '2018-01-15', '2018-01-16'],
    ['today', 0, '2024-03-01', '2024-03-02'],
    ['today', -4, '2024-02-29', '2024-03-01'],
    ['30 days ago', 0, '2024-01-31', '2024-02-01'],
    ['1 month ago', 5.5, '2024-02-01', '2024-02-02'],
    ['this week', -4, '2024-02-26', '2024-03-04'],
    ['this month', -4, '2024-02-01', '2024-03-01'],
    ['last year', 0, '2023-01-01', '2024-01-01'],
  ])('%s at offset %d is [%s, %s)', (value, offset, start, end) => {
    expect(resolveDateDays(value, now, offset)).toEqual({ start, end })
  })

  it('refuses a time of day and days out of range', () => {
    expect(() => resolveDateDays('2018-01-15T10:00', now, 0)).toThrow(
      'Unexpected time of day "2018-01-15T10:00": a date field holds whole days',
    )
    expect(() => resolveDateDays('9999-12-31', now, 0)).toThrow('Date out of range "9999-12-31"')
    expect(() => resolveDateDays('soon', now, 0)).toThrow(DateValueError)
  })
})
