import fc from 'fast-check'
import { isIdOf } from '@leadline/shared/ids'
import { describe, expect, it } from 'vitest'
import { base62Time, ID_TIME_LENGTH, newId } from './ids.js'

describe('ids', () => {
  it('look as Close ids do: a prefix and 43 (or 22) base62 characters', () => {
    for (const kind of ['lead', 'contact', 'user', 'organization', 'apiKey', 'event'] as const) {
      expect(isIdOf(kind, newId(kind))).toBe(true)
    }
    expect(newId('lead')).toMatch(/^lead_[0-9A-Za-z]{43}$/)
    expect(newId('event')).toMatch(/^ev_[0-9A-Za-z]{22}$/)
  })

  it('of a growing table sort by the time they were made, in text order', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 47 }), fc.integer({ min: 1, max: 2 ** 40 }), (at, later) => {
        expect(base62Time(at) < base62Time(at + later)).toBe(true)
        expect(base62Time(at)).toHaveLength(ID_TIME_LENGTH)
        expect(newId('lead', at) < newId('lead', at + later)).toBe(true)
      }),
    )
    expect(base62Time(0)).toBe('00000000')
  })

  it('made in the same millisecond differ, and the others start at random', () => {
    const at = Date.UTC(2026, 10, 29)
    const made = Array.from({ length: 10_000 }, () => newId('contact', at))
    expect(new Set(made).size).toBe(made.length)
    expect(new Set(made.map((id) => id.slice(5, 5 + ID_TIME_LENGTH)))).toEqual(new Set([base62Time(at)]))
    const users = Array.from({ length: 50 }, () => newId('user', at).slice(5, 5 + ID_TIME_LENGTH))
    expect(new Set(users).size).toBeGreaterThan(45)
  })
})
