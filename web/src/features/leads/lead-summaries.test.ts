import { afterEach, describe, expect, it } from 'vitest'
import type { Lead } from '@leadline/shared/lead-schema'
import { setDisplayTimeZone } from '../../lib/format'
import { isSummaryColumn, summaryCell, summaryLeadIds, type PageSummaries } from './lead-summaries'

const column = (id: string) => ({ id })
const leads = [{ id: 'lead_a' }, { id: 'lead_b' }, { id: 'lead_a' }]

describe('which leads a page asks about', () => {
  it('asks about each of its leads once while Last activity shows, and about none otherwise', () => {
    expect(summaryLeadIds(leads, [column('status'), column('last_activity')])).toEqual(['lead_a', 'lead_b'])
    // The next task is in the lead: no request for it.
    expect(summaryLeadIds(leads, [column('status'), column('next_task')])).toEqual([])
    expect(summaryLeadIds([], [column('last_activity')])).toEqual([])
  })

  it('draws only the two summary columns', () => {
    expect(['last_activity', 'next_task', 'status', 'date_updated'].map((id) => isSummaryColumn(column(id)))).toEqual([
      true,
      true,
      false,
      false,
    ])
  })
})

describe('a summary cell', () => {
  afterEach(() => {
    setDisplayTimeZone(undefined)
  })

  const now = new Date('2026-03-10T12:00:00Z')
  const loaded = (entries: [string, string | null][]): PageSummaries => ({
    lastActivity: new Map(entries),
    isError: false,
  })
  const lead = (tasks: unknown[] = []) => ({ id: 'lead_a', tasks }) as unknown as Lead

  it('shows the last activity as a relative time, with its full time as the title', () => {
    setDisplayTimeZone('UTC')
    const at = '2026-03-10T09:00:00.000000+00:00'
    const cell = summaryCell(lead(), column('last_activity'), loaded([['lead_a', at]]), now)
    expect(cell).toMatchObject({ kind: 'time', dateTime: at, text: '3 hours ago' })
    expect(cell.kind === 'time' ? cell.title : '').toContain('2026')
  })

  it('says none, loading or not loaded when it has no time to show', () => {
    expect(summaryCell(lead(), column('last_activity'), loaded([['lead_a', null]]), now)).toEqual({ kind: 'none' })
    expect(summaryCell(lead(), column('last_activity'), { lastActivity: undefined, isError: false }, now)).toEqual({
      kind: 'loading',
    })
    expect(summaryCell(lead(), column('last_activity'), { lastActivity: undefined, isError: true }, now)).toEqual({
      kind: 'failed',
    })
  })

  it('shows the next task’s calendar date as that date in every zone, and a timed one in the user’s zone', () => {
    setDisplayTimeZone('Pacific/Honolulu')
    const summaries = loaded([])
    const dated = summaryCell(lead([{ date: '2026-03-12', is_dateless: false }]), column('next_task'), summaries)
    expect(dated).toMatchObject({ kind: 'time', dateTime: '2026-03-12' })
    expect(dated.kind === 'time' ? dated.text : '').toMatch(/12/)
    const timed = summaryCell(
      lead([{ date: '2026-03-12T02:00:00.000000+00:00', is_dateless: false }]),
      column('next_task'),
      summaries,
    )
    // 2 AM UTC is the evening before in Honolulu.
    expect(timed.kind === 'time' ? timed.text : '').toMatch(/11/)
    expect(summaryCell(lead([{ date: '2026-03-12', is_dateless: true }]), column('next_task'), summaries)).toEqual({
      kind: 'none',
    })
  })
})
