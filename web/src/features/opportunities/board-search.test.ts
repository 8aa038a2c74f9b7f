import { describe, expect, it } from 'vitest'
import { boardSearchOf, filtersOf } from './board-search'

const none = {
  pipeline: undefined,
  owner: undefined,
  period: undefined,
  won_from: undefined,
  won_to: undefined,
  lead_query: undefined,
  view: undefined,
  sort: undefined,
  opportunity: undefined,
}

describe('boardSearchOf', () => {
  it('keeps every valid filter', () => {
    expect(
      boardSearchOf({
        pipeline: 'pipe_1',
        owner: 'user_a,user_b',
        period: 'monthly',
        won_from: '2026-01-01',
        won_to: '2026-03-31',
        lead_query: 'acme',
        view: 'list',
        sort: '-annualized_value',
        opportunity: 'oppo_1',
      }),
    ).toEqual({
      pipeline: 'pipe_1',
      owner: 'user_a,user_b',
      period: 'monthly',
      won_from: '2026-01-01',
      won_to: '2026-03-31',
      lead_query: 'acme',
      view: 'list',
      sort: '-annualized_value',
      opportunity: 'oppo_1',
    })
  })

  it('has every key, undefined, when the URL has none', () => {
    expect(boardSearchOf({})).toEqual(none)
  })

  it('drops invalid values, keeping the key so the router overwrites them', () => {
    const search = boardSearchOf({
      pipeline: 'lead_1',
      owner: 'bob,,',
      period: 'weekly',
      won_from: '2026-13-01',
      won_to: '31/12/2026',
      lead_query: '   ',
      view: 'grid',
      sort: 'status_label',
      opportunity: 'lead_1',
    })
    expect(search).toEqual(none)
    expect(Object.keys(search).sort()).toEqual(Object.keys(none).sort())
  })

  it('takes owners only as a list of user ids', () => {
    expect(boardSearchOf({ owner: 'user_a' }).owner).toBe('user_a')
    expect(boardSearchOf({ owner: 'user_a,robert' }).owner).toBeUndefined()
    expect(boardSearchOf({ owner: 'user_a,' }).owner).toBeUndefined()
  })

  it('refuses values of the wrong type', () => {
    expect(boardSearchOf({ won_from: 20260101, period: ['monthly'], sort: 5 })).toEqual(none)
  })

  it('takes an ascending or a descending sort of a sortable field', () => {
    expect(boardSearchOf({ sort: 'value' }).sort).toBe('value')
    expect(boardSearchOf({ sort: '-date_won' }).sort).toBe('-date_won')
    expect(boardSearchOf({ sort: '--value' }).sort).toBeUndefined()
  })
})

describe('filtersOf', () => {
  it('maps the filters, and only them, to the API params', () => {
    const search = boardSearchOf({
      pipeline: 'pipe_1',
      owner: 'user_a,user_b',
      period: 'annual',
      won_from: '2026-01-01',
      won_to: '2026-12-31',
      lead_query: 'name:acme',
      view: 'list',
      sort: 'value',
    })
    expect(filtersOf(search)).toEqual({
      user_id__in: 'user_a,user_b',
      value_period: 'annual',
      date_won__gte: '2026-01-01',
      date_won__lte: '2026-12-31',
      lead_query: 'name:acme',
    })
  })

  it('keeps a filter not set as undefined, which the API client does not send', () => {
    expect(filtersOf(boardSearchOf({ period: 'monthly' }))).toEqual({
      user_id__in: undefined,
      value_period: 'monthly',
      date_won__gte: undefined,
      date_won__lte: undefined,
      lead_query: undefined,
    })
  })
})
