import { describe, expect, it } from 'vitest'
import { reportParamsOf } from './report-params'
import { reportSearchOf } from './report-search'

const TODAY = '2026-05-14'

describe('reportSearchOf', () => {
  it('defaults to a month grouping of this year, any status, no drill-down', () => {
    expect(reportSearchOf({}, TODAY)).toEqual({
      by: 'month',
      pipeline: undefined,
      status: 'any',
      owners: undefined,
      from: '2026-01-01',
      to: '2026-12-31',
      dates: undefined,
      group: undefined,
    })
  })

  it('keeps valid params and drops the rest', () => {
    const search = reportSearchOf(
      {
        by: 'owner',
        pipeline: 'pipe_abc',
        status: 'won',
        owners: 'user_a1,user_b2',
        from: '2025-04-01',
        group: 'user_a1',
      },
      TODAY,
    )
    expect(search).toMatchObject({
      by: 'owner',
      pipeline: 'pipe_abc',
      status: 'won',
      owners: 'user_a1,user_b2',
      from: '2025-04-01',
      to: undefined,
      group: 'user_a1',
    })
    expect(
      reportSearchOf(
        { by: 'day', pipeline: 'stat_x', status: 'pending', owners: 'user_a,lead_b', from: '2025-4-1', group: 'a b' },
        TODAY,
      ),
    ).toMatchObject({ by: 'month', pipeline: undefined, status: 'any', owners: undefined, group: undefined })
  })

  it('has no date range with dates=all, whatever from and to say', () => {
    expect(reportSearchOf({ dates: 'all', from: '2025-01-01' }, TODAY)).toMatchObject({
      dates: 'all',
      from: undefined,
      to: undefined,
    })
  })
})

describe('reportParamsOf', () => {
  it('keeps only the report’s own keys, as text, a number (a year) included', () => {
    expect(reportParamsOf({ by: 'year', group: 2026, owners: ['user_a'] })).toEqual({
      by: 'year',
      pipeline: undefined,
      status: undefined,
      owners: undefined,
      from: undefined,
      to: undefined,
      dates: undefined,
      group: '2026',
    })
  })
})
