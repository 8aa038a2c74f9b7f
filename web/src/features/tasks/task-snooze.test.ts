import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { localDate } from '../../lib/format'
import { addDays, weekday } from './task-days'
import { dueDateOf, dueInputsOf } from './task-due'
import { snoozeChoices } from './task-snooze'

// Local times are built with the Date constructor, so each case holds in whatever zone the tests run in.
const at = (day: number, hours: number, minutes = 0) => new Date(2026, 10, day, hours, minutes)

describe('snoozeChoices', () => {
  it('moves a date-only task by calendar days from today, not from its own date', () => {
    // Thursday 26 November 2026; the task was due a week ago.
    const choices = snoozeChoices({ date: '2026-11-19', is_dateless: false }, at(26, 10))
    expect(choices.map((c) => [c.label, c.date])).toEqual([
      ['Tomorrow', '2026-11-27'],
      ['Next Monday', '2026-11-30'],
      ['In a week', '2026-12-03'],
    ])
  })

  it('gives a dateless task a date', () => {
    expect(snoozeChoices({ date: '2026-11-01', is_dateless: true }, at(26, 10))[0]?.date).toBe('2026-11-27')
  })

  it('keeps a timed task’s time of day, and offers later today on the hour while today lasts', () => {
    const due = at(20, 9, 30).toISOString()
    const choices = snoozeChoices({ date: due, is_dateless: false }, at(26, 10, 15))
    expect(choices.map((c) => c.label)).toEqual(['Later today', 'Tomorrow', 'Next Monday', 'In a week'])
    expect(choices[0]?.date).toBe(at(26, 14).toISOString())
    expect(choices[1]?.date).toBe(at(27, 9, 30).toISOString())
    // Late in the evening, three hours on is tomorrow: no "later today".
    const late = snoozeChoices({ date: due, is_dateless: false }, at(26, 22))
    expect(late.map((c) => c.label)).toEqual(['Tomorrow', 'Next Monday', 'In a week'])
  })

  it('always moves a task forward, next Monday within a week', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 3650 }), fc.integer({ min: 0, max: 23 }), (offset, hour) => {
        const now = new Date(2024, 0, 1 + offset, hour, 0)
        const today = localDate(now)
        const choices = snoozeChoices({ date: '2020-01-01', is_dateless: false }, now)
        for (const choice of choices) expect(choice.date > today).toBe(true)
        const monday = choices.find((c) => c.label === 'Next Monday')?.date ?? ''
        expect(weekday(monday)).toBe(1)
        expect(monday <= addDays(today, 7)).toBe(true)
      }),
    )
  })
})

describe('due dates from the date and time fields', () => {
  it('makes a calendar day, an instant, or nothing, and reads them back', () => {
    expect(dueDateOf('', '09:00')).toBeNull()
    expect(dueDateOf('2026-11-30', '')).toBe('2026-11-30')
    const instant = dueDateOf('2026-11-30', '09:45')
    expect(instant).toBe(new Date(2026, 10, 30, 9, 45).toISOString())
    expect(dueInputsOf({ date: instant ?? '', is_dateless: false })).toEqual({ day: '2026-11-30', time: '09:45' })
    expect(dueInputsOf({ date: '2026-11-30', is_dateless: false })).toEqual({ day: '2026-11-30', time: '' })
    expect(dueInputsOf({ date: '2026-11-30', is_dateless: true })).toEqual({ day: '', time: '' })
  })

  it('counts days on the calendar across months and years', () => {
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01')
    expect(addDays('2028-03-01', -1)).toBe('2028-02-29')
  })
})
