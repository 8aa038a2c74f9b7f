import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { foldCase } from './text.js'

/** The definition foldCase keeps: each code point lower-cased on its own, the first code point of the result kept. */
function foldEachCodePoint(text: string): string {
  return Array.from(text, (ch) => {
    const first = ch.toLowerCase().codePointAt(0)
    return first === undefined ? ch : String.fromCodePoint(first)
  }).join('')
}

describe('foldCase', () => {
  it('folds one code point at a time, whatever the text (ASCII takes a shortcut)', () => {
    const text = fc.oneof(
      fc.string({ unit: 'binary-ascii' }),
      fc.string({ unit: 'grapheme' }),
      fc.string({ unit: fc.constantFrom('A', 'z', 'Σ', 'İ', 'ẞ', ' ', '\u007f', '\u0080') }),
    )
    fc.assert(fc.property(text, (t) => foldCase(t) === foldEachCodePoint(t)))
  })

  it('is not the whole-text lower case where that depends on the neighbours or grows', () => {
    expect(foldCase('ΟΔΟΣ')).toBe('οδοσ')
    expect('ΟΔΟΣ'.toLowerCase()).toBe('οδος')
    expect(foldCase('İZMİR')).toBe('izmir')
  })
})
