import { BASE62_ALPHABET } from '@leadline/shared/ids'
import { describe, expect, it } from 'vitest'
import { ascendingIds } from './demo-ids.js'

function take(next: () => string, count: number): string[] {
  return Array.from({ length: count }, () => next())
}

describe('ascendingIds', () => {
  it('hands out distinct ids of the kind asked for in ascending order, shaped as the app makes them, and no more', () => {
    const next = ascendingIds('activity', 5000)
    const ids = take(next, 5000)
    expect(new Set(ids).size).toBe(5000)
    for (const id of ids) expect(id).toMatch(/^acti_[0-9A-Za-z]{43}$/)
    expect(ids).toEqual([...ids].sort())
    expect(next).toThrow('no activity ids left')
    expect(take(ascendingIds('pipeline', 3), 3).every((id) => /^pipe_[0-9A-Za-z]{22}$/.test(id))).toBe(true)
  })

  it('sorts ids whose leading characters tie', () => {
    // One placed character: 62 places for 5,000 ids, so nearly every id ties with others.
    const ids = take(ascendingIds('lead', 5000, 1), 5000)
    expect(ids).toEqual([...ids].sort())
    expect(new Set(ids.map((id) => id.charAt(5))).size).toBe(BASE62_ALPHABET.length)
  })

  it('makes every character equally likely at every position, the placed ones too', () => {
    const count = 100_000
    const ids = take(ascendingIds('lead', count), count)
    const expected = count / BASE62_ALPHABET.length
    // Six standard deviations of a character's count at a position: a fair draw is outside it once in a billion.
    const tolerance = 6 * Math.sqrt(expected * (1 - 1 / BASE62_ALPHABET.length))
    for (let position = 'lead_'.length; position < 48; position++) {
      const counts = new Map<string, number>()
      for (const id of ids) counts.set(id.charAt(position), (counts.get(id.charAt(position)) ?? 0) + 1)
      expect(counts.size, `position ${String(position)}`).toBe(BASE62_ALPHABET.length)
      for (const [character, seen] of counts) {
        expect(Math.abs(seen - expected), `${character} at ${String(position)}`).toBeLessThan(tolerance)
      }
    }
  })

  it('spreads the ids over the whole range as uniform draws do', () => {
    // The share of ids below every sixth first character, against a uniform draw's: within six standard deviations.
    const count = 100_000
    const firsts = take(ascendingIds('contact', count), count).map((id) => BASE62_ALPHABET.indexOf(id.charAt(5)))
    for (let below = 6; below < BASE62_ALPHABET.length; below += 6) {
      const share = below / BASE62_ALPHABET.length
      const seen = firsts.filter((first) => first < below).length
      expect(Math.abs(seen - count * share), `below ${String(below)}`).toBeLessThan(
        6 * Math.sqrt(count * share * (1 - share)),
      )
    }
  })
})
