import { describe, expect, it } from 'vitest'
import { leadSearchOf } from './lead-search'

describe('leadSearchOf', () => {
  it('keeps a query and a page past the first', () => {
    expect(leadSearchOf({ query: 'name:acme', page: 3 })).toStrictEqual({ query: 'name:acme', page: 3 })
    expect(leadSearchOf({ page: '2' })).toStrictEqual({ query: undefined, page: 2 })
  })

  it('overwrites what it refuses with undefined, so the raw param does not survive', () => {
    expect(leadSearchOf({ query: '   ', page: 1 })).toStrictEqual({ query: undefined, page: undefined })
    expect(leadSearchOf({ page: 0 })).toStrictEqual({ query: undefined, page: undefined })
    expect(leadSearchOf({ page: -4 })).toStrictEqual({ query: undefined, page: undefined })
    expect(leadSearchOf({ page: 2.5 })).toStrictEqual({ query: undefined, page: undefined })
    expect(leadSearchOf({ page: 'abc' })).toStrictEqual({ query: undefined, page: undefined })
    expect(leadSearchOf({ page: 1e20 })).toStrictEqual({ query: undefined, page: undefined })
    expect(leadSearchOf({ query: 42, page: [2] })).toStrictEqual({ query: undefined, page: undefined })
  })

  it('keeps a query exactly as typed, quotes and all', () => {
    expect(leadSearchOf({ query: 'name:"acme' })).toStrictEqual({ query: 'name:"acme', page: undefined })
  })
})
