import { describe, expect, it } from 'vitest'
import { groupDays, pageGroups } from './opportunity-list.js'

describe('date groups', () => {
  it('cover the days of their key', () => {
    expect(groupDays('date_won__year', '2026')).toEqual({ from: '2026-01-01', to: '2027-01-01' })
    expect(groupDays('date_won__quarter', '2026-Q4')).toEqual({ from: '2026-10-01', to: '2027-01-01' })
    expect(groupDays('date_won__month', '2024-02')).toEqual({ from: '2024-02-01', to: '2024-03-01' })
    // ISO week 1 of 2026 starts on Monday 29 December 2025; 2020 had a week 53.
    expect(groupDays('date_won__week', '2026-W01')).toEqual({ from: '2025-12-29', to: '2026-01-05' })
    expect(groupDays('date_won__week', '2020-W53')).toEqual({ from: '2020-12-28', to: '2021-01-04' })
    expect(groupDays('user_id', 'user_x')).toBeUndefined()
  })

  it('page over the groups in order, the group without a key last', () => {
    const counts = new Map<string | null, number>([
      ['2026-02', 3],
      [null, 2],
      ['2026-01', 2],
    ])
    expect(pageGroups(counts, false, 0, 4)).toEqual([
      { key: '2026-01', skip: 0, take: 2 },
      { key: '2026-02', skip: 0, take: 2 },
    ])
    expect(pageGroups(counts, false, 4, 4)).toEqual([
      { key: '2026-02', skip: 2, take: 1 },
      { key: null, skip: 0, take: 2 },
    ])
    expect(pageGroups(counts, true, 0, 3)).toEqual([{ key: '2026-02', skip: 0, take: 3 }])
    expect(pageGroups(counts, true, 7, 3)).toEqual([])
  })
})
