import { describe, expect, it } from 'vitest'
import { leadSearchOf } from './lead-search'

describe('leadSearchOf', () => {
  it('keeps a query, and drops an old link’s page (the list scrolls)', () => {
    expect(leadSearchOf({ query: 'name:acme', page: 3 })).toStrictEqual({
      query: 'name:acme',
      page: undefined,
      smart_view: undefined,
    })
    expect(leadSearchOf({ page: '2' })).toStrictEqual({ query: undefined, page: undefined, smart_view: undefined })
  })

  it('overwrites what it refuses with undefined, so the raw param does not survive', () => {
    expect(leadSearchOf({ query: '   ' })).toStrictEqual({ query: undefined, page: undefined, smart_view: undefined })
    expect(leadSearchOf({ query: 42 })).toStrictEqual({ query: undefined, page: undefined, smart_view: undefined })
  })

  it('keeps a Smart View’s id, and nothing else in its place', () => {
    const id = 'save_' + 'a'.repeat(43)
    expect(leadSearchOf({ smart_view: id })).toStrictEqual({ query: undefined, page: undefined, smart_view: id })
    for (const bad of ['lead_abc', 'save_', 'save_a/../b', 42, ['save_abc']]) {
      expect(leadSearchOf({ smart_view: bad }).smart_view).toBeUndefined()
    }
  })

  it('keeps a query exactly as typed, quotes and all', () => {
    expect(leadSearchOf({ query: 'name:"acme' })).toStrictEqual({
      query: 'name:"acme',
      page: undefined,
      smart_view: undefined,
    })
  })
})
