import { describe, expect, it } from 'vitest'
import { drillFilters, groupLabel } from './report-groups'
import { reportSearchOf } from './report-search'

describe('groupLabel', () => {
  it.each([
    ['month', '2026-03', 'March 2026'],
    ['quarter', '2026-Q1', 'Q1 2026'],
    ['week', '2026-W04', 'Week 4, 2026'],
    ['year', '2026', '2026'],
    ['month', null, 'No date won'],
    ['owner', null, 'No owner'],
  ] as const)('%s %s is %s', (by, key, label) => {
    expect(groupLabel(by, { key })).toBe(label)
  })

  it('names an owner', () => {
    expect(groupLabel('owner', { key: 'user_a', user_name: 'Ada Admin' })).toBe('Ada Admin')
  })
})

describe('drillFilters', () => {
  it('narrows the report to a group’s days within its range', () => {
    const search = reportSearchOf({ by: 'month', from: '2026-03-10', status: 'won' }, '2026-05-14')
    expect(drillFilters(search, '2026-03')).toMatchObject({
      status_type: 'won',
      date_won__gte: '2026-03-10',
      date_won__lte: '2026-03-31',
    })
  })

  it('narrows to an owner, and has no filter for the group without a key', () => {
    const search = reportSearchOf({ by: 'owner', owners: 'user_a,user_b' }, '2026-05-14')
    expect(drillFilters(search, 'user_a')).toMatchObject({ user_id: 'user_a', user_id__in: undefined })
    expect(drillFilters(search, 'none')).toBeUndefined()
  })
})
