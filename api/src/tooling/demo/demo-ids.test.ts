import { BASE62_ALPHABET } from '@leadline/shared/ids'
import { describe, expect, it } from 'vitest'
import { drawIds } from './demo-ids.js'

describe('drawIds', () => {
  it('draws distinct ids of the kind asked for, shaped as the app makes them', () => {
    const ids = drawIds('activity', 5000)
    expect(ids).toHaveLength(5000)
    expect(new Set(ids).size).toBe(5000)
    for (const id of ids) expect(id).toMatch(/^acti_[0-9A-Za-z]{43}$/)
    expect(drawIds('pipeline', 3).every((id) => /^pipe_[0-9A-Za-z]{22}$/.test(id))).toBe(true)
  })

  it('makes every character equally likely at every position', () => {
    const count = 100_000
    const ids = drawIds('lead', count)
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
})
