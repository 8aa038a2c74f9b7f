import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { byCodePoint, TextKeys } from './lead-text-keys.js'

// A text sort's keys as ranks (lead-text-keys.ts) against a plain array of keys sorted by code point.

const points = (text: string) => Array.from(text, (ch) => ch.codePointAt(0) ?? 0)

/** The code-point order written the slow way. */
function expected(a: string, b: string): number {
  const [x, y] = [points(a), points(b)]
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] !== y[i]) return (x[i] ?? 0) < (y[i] ?? 0) ? -1 : 1
  }
  return Math.sign(x.length - y.length)
}

describe('text sort keys', () => {
  it('compares texts by code point', () => {
    expect(byCodePoint('\u{1D49C}', '\uFFFD')).toBe(1)
    expect(byCodePoint('\uE000', '\u{10000}')).toBe(-1)
    const text = fc.string({ unit: fc.constantFrom('a', 'B', '\uD7FF', '\uE000', '\uFFFD', '\u{10000}', '\u{1D49C}') })
    fc.assert(
      fc.property(text, text, (a, b) => {
        expect(byCodePoint(a, b)).toBe(expected(a, b))
      }),
    )
  })

  it('orders leads as their keys do through sets, changes and merges, none last both ways', () => {
    // Few keys (so that many leads share one) and any keys of a few units, past U+FFFF too (and U+FFFD, which comes
    // before those by code point but after their surrogates by code unit).
    const key = fc.option(
      fc.oneof(
        fc.constantFrom('a', 'ab', 'b', 'é'),
        fc.string({ unit: fc.constantFrom('a', 'b', 'B', 'é', '\uFFFD', '\u{1D49C}'), maxLength: 3 }),
      ),
      { nil: undefined },
    )
    // A step sets a key, or holds it (`settle` comes before the next set or the end).
    const step = fc.tuple(fc.nat({ max: 40 }), key, fc.boolean())
    fc.assert(
      fc.property(
        fc.array(step, { maxLength: 120 }),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 40 }),
        (steps, held, atOnce) => {
          const keys = new TextKeys(held, atOnce)
          const model: (string | undefined)[] = []
          let holding = false
          for (const [ordinal, value, hold] of steps) {
            if (hold) {
              keys.hold(ordinal, value)
              holding = true
            } else {
              if (holding) keys.settle()
              holding = false
              keys.set(ordinal, value)
            }
            model[ordinal] = value
          }
          keys.settle()
          const ordinals = Array.from({ length: 41 }, (_, i) => i)
          for (const ordinal of ordinals) expect(keys.get(ordinal)).toBe(model[ordinal])
          const got: number[] = []
          const want: number[] = []
          for (const s of [1, -1]) {
            for (const a of ordinals) {
              for (const b of ordinals) {
                const x = model[a]
                const y = model[b]
                got.push(Math.sign(keys.compare(a, b, s)) + 0)
                want.push(x === y ? 0 : x === undefined ? 1 : y === undefined ? -1 : expected(x, y) * s)
              }
            }
          }
          expect(got).toEqual(want)
        },
      ),
      { numRuns: 200 },
    )
  })
})
