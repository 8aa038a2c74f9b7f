import { describe, expect, it } from 'vitest'
import { drillFilters, groupLabel, groupTick, tickEvery } from './report-groups'
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

describe('groupTick', () => {
  it('is short: a month as `Mar 2026`, a week as `W09 2026`, a long owner cut with an ellipsis', () => {
    expect(groupTick('month', { key: '2026-03' })).toBe('Mar 2026')
    expect(groupTick('week', { key: '2026-W09' })).toBe('W09 2026')
    expect(groupTick('quarter', { key: '2026-Q1' })).toBe('Q1 2026')
    expect(groupTick('owner', { key: 'user_a', user_name: 'Bartholomew Richardson' })).toBe('Bartholomew R…')
    expect(groupTick('month', { key: null })).toBe('No date won')
  })
})

describe('tickEvery', () => {
  it('labels every tick when they fit and every n-th when they would overlap', () => {
    expect(tickEvery(100, 8)).toBe(1)
    expect(tickEvery(30, 8)).toBe(3)
    expect(tickEvery(0, 8)).toBeGreaterThan(1)
  })
})
