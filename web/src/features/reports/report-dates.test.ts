import { describe, expect, it } from 'vitest'
import { intersect, isoWeekRange, periodRange, presetOf, presetRange } from './report-dates'

describe('presetRange', () => {
  it.each([
    ['this-quarter', '2026-05-14', '2026-04-01', '2026-06-30'],
    ['this-quarter', '2026-01-01', '2026-01-01', '2026-03-31'],
    ['last-quarter', '2026-05-14', '2026-01-01', '2026-03-31'],
    ['last-quarter', '2026-02-10', '2025-10-01', '2025-12-31'],
    ['this-year', '2026-12-31', '2026-01-01', '2026-12-31'],
    ['last-12-months', '2026-05-14', '2025-06-01', '2026-05-31'],
    ['last-12-months', '2024-02-29', '2023-03-01', '2024-02-29'],
  ] as const)('%s on %s is %s to %s', (preset, today, from, to) => {
    expect(presetRange(preset, today)).toEqual({ from, to })
  })

  it('recognizes a preset range, and nothing else', () => {
    expect(presetOf({ from: '2026-04-01', to: '2026-06-30' }, '2026-05-14')).toBe('this-quarter')
    expect(presetOf({ from: '2026-04-01', to: '2026-06-29' }, '2026-05-14')).toBeUndefined()
  })
})

describe('periodRange', () => {
  it.each([
    ['2026-02', '2026-02-01', '2026-02-28'],
    ['2024-02', '2024-02-01', '2024-02-29'],
    ['2026-Q4', '2026-10-01', '2026-12-31'],
    ['2026', '2026-01-01', '2026-12-31'],
    // ISO weeks: 29 December 2025 starts week 1 of 2026; 2020 has a week 53.
    ['2026-W01', '2025-12-29', '2026-01-04'],
    ['2026-W14', '2026-03-30', '2026-04-05'],
    ['2020-W53', '2020-12-28', '2021-01-03'],
  ])('%s is %s to %s', (key, from, to) => {
    expect(periodRange(key)).toEqual({ from, to })
  })

  it('knows no period for other keys', () => {
    expect(periodRange('2026-13')).toBeUndefined()
    expect(periodRange('user_abc')).toBeUndefined()
    expect(isoWeekRange(2026, 1)).toEqual({ from: '2025-12-29', to: '2026-01-04' })
  })

  it('intersects a period with the report’s range', () => {
    expect(intersect({ from: '2026-02-10' }, { from: '2026-02-01', to: '2026-02-28' })).toEqual({
      from: '2026-02-10',
      to: '2026-02-28',
    })
  })
})
