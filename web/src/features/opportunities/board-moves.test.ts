import { describe, expect, it } from 'vitest'
import type { Opportunity } from '@leadline/shared/opportunity-schema'
import { isOverdue, moveBetweenColumns, type OpportunityColumnPage } from './board-moves'

const card = (id: string, over: Partial<Opportunity> = {}) =>
  ({
    id,
    status_id: 'stat_a',
    status_label: 'A',
    status_type: 'active',
    value: 10_000,
    value_period: 'monthly',
    annualized_value: 120_000,
    expected_value: 5000,
    annualized_expected_value: 60_000,
    date_won: null,
    ...over,
  }) as Opportunity

function page(data: Opportunity[], totals: Partial<OpportunityColumnPage> = {}): OpportunityColumnPage {
  return {
    has_more: false,
    total_results: data.length,
    count_by_value_period: { one_time: 0, monthly: data.length, annual: 0 },
    total_value_one_time: 0,
    total_value_monthly: data.length * 10_000,
    total_value_annual: 0,
    total_value_annualized: data.length * 120_000,
    expected_value_one_time: 0,
    expected_value_monthly: data.length * 5000,
    expected_value_annual: 0,
    expected_value_annualized: data.length * 60_000,
    data,
    ...totals,
  }
}

describe('moveBetweenColumns', () => {
  it('takes the card and its value out of one column and puts them first in the other', () => {
    const moving = card('oppo_1')
    const from = { pages: [page([card('oppo_0')], { total_results: 40 }), page([moving])], pageParams: [0, 20] }
    const to = { pages: [page([card('oppo_2')])], pageParams: [0] }
    const moved = moveBetweenColumns(from, to, moving, { id: 'stat_b', label: 'B', type: 'won' }, '2026-03-02')
    expect(moved.from?.pages[1]?.data).toEqual([])
    expect(moved.from?.pages[0]).toMatchObject({
      total_results: 39,
      total_value_annualized: 0,
      expected_value_monthly: 0,
    })
    expect(moved.from?.pages[0]?.count_by_value_period.monthly).toBe(0)
    expect(moved.to?.pages[0]?.data.map((o) => [o.id, o.status_id, o.status_type, o.date_won])).toEqual([
      ['oppo_1', 'stat_b', 'won', '2026-03-02'],
      ['oppo_2', 'stat_a', 'active', null],
    ])
    expect(moved.to?.pages[0]).toMatchObject({
      total_results: 2,
      total_value_monthly: 20_000,
      expected_value_annualized: 120_000,
    })
  })

  it('keeps a close date already set, and dates only a move to a won status', () => {
    const dated = card('oppo_3', { date_won: '2026-01-31' })
    const to = { pages: [page([])], pageParams: [0] }
    const won = { id: 'stat_w', label: 'W', type: 'won' } as const
    const lost = { id: 'stat_l', label: 'L', type: 'lost' } as const
    expect(moveBetweenColumns(undefined, to, dated, won, '2026-03-02').to?.pages[0]?.data[0]?.date_won).toBe(
      '2026-01-31',
    )
    expect(moveBetweenColumns(undefined, to, card('oppo_4'), lost, '2026-03-02').to?.pages[0]?.data[0]?.date_won).toBe(
      null,
    )
  })

  it('leaves a column that is not loaded unloaded', () => {
    expect(
      moveBetweenColumns(undefined, undefined, card('oppo_1'), { id: 'b', label: 'B', type: 'active' }, '2026-03-02'),
    ).toEqual({
      from: undefined,
      to: undefined,
    })
  })
})

describe('isOverdue', () => {
  it('is an active opportunity whose close date is before today', () => {
    expect(isOverdue({ status_type: 'active', date_won: '2026-03-01' }, '2026-03-02')).toBe(true)
    expect(isOverdue({ status_type: 'active', date_won: '2026-03-02' }, '2026-03-02')).toBe(false)
    expect(isOverdue({ status_type: 'won', date_won: '2026-03-01' }, '2026-03-02')).toBe(false)
    expect(isOverdue({ status_type: 'active', date_won: null }, '2026-03-02')).toBe(false)
  })
})
