import { describe, expect, it } from 'vitest'
import { ViewCache } from './view-cache.js'

// Four-character texts take 8 bytes each: a budget of 16 holds two.
const text = (name: string) => name.padEnd(4, '.')

describe('the view cache', () => {
  it('serves a view only at the revision and meta version it was built at', () => {
    const cache = new ViewCache(16)
    cache.set('lead_a', 3, 7, text('a'))
    expect(cache.get('lead_a', 3, 7)).toBe(text('a'))
    expect(cache.get('lead_a', 4, 7)).toBeUndefined()
    expect(cache.get('lead_a', 3, 8)).toBeUndefined()
    expect(cache.get('lead_b', 3, 7)).toBeUndefined()
  })

  it('past its budget evicts the view read least recently, never the one just stored', () => {
    const cache = new ViewCache(16)
    cache.set('a', 1, 1, text('a'))
    cache.set('b', 1, 1, text('b'))
    expect(cache.get('a', 1, 1)).toBe(text('a'))
    cache.set('c', 1, 1, text('c'))
    expect(cache.get('b', 1, 1)).toBeUndefined()
    expect(cache.get('a', 1, 1)).toBe(text('a'))
    expect(cache.get('c', 1, 1)).toBe(text('c'))
    // Both read since: one of them goes (which one is where the approximation shows).
    cache.set('d', 1, 1, text('d'))
    expect(cache.get('d', 1, 1)).toBe(text('d'))
    expect([cache.get('a', 1, 1), cache.get('c', 1, 1)].filter((t) => t !== undefined)).toHaveLength(1)
  })

  it('stores a view again in place of its older revision, and none larger than the whole budget', () => {
    const cache = new ViewCache(16)
    cache.set('a', 1, 1, text('a'))
    cache.set('b', 1, 1, text('b'))
    cache.set('a', 2, 1, text('a2'))
    expect(cache.get('b', 1, 1)).toBe(text('b'))
    expect(cache.get('a', 2, 1)).toBe(text('a2'))
    cache.set('big', 1, 1, 'x'.repeat(9))
    expect(cache.get('big', 1, 1)).toBeUndefined()
    expect(cache.get('a', 2, 1)).toBe(text('a2'))
  })
})
