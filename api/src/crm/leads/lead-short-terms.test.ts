import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { playTermSteps, termDocument, termStep } from '../../tooling/test-support/term-index-model.js'
import { isShortTerm, ShortTermIndex } from './lead-short-terms.js'

// The short-term index against the test it stands for: the documents that contain the string.

const UNITS = ['a', 'b', 'c', ' ', '\n', 'é', 'ß', '中', '文', '0', '\u{1D49C}', '\uFFFD']

describe('ShortTermIndex', () => {
  it('tells which strings it answers for: one or two code units, no half of a surrogate pair', () => {
    expect(['a', 'st', ' 4', 'é', '中文', '\n'].every(isShortTerm)).toBe(true)
    expect(['', 'abc', '\u{1D49C}', '\uD835', 'a\uDC9C'].some(isShortTerm)).toBe(false)
  })

  it('answers every short term as a substring test of the documents, through adds, changes and removals', () => {
    const step = termStep(termDocument(UNITS, 12), [...UNITS, 'ab', 'a ', 'ba', '中文', 'éb'], 9)
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), fc.constantFrom(3, 8, 1000), fc.nat(20), (steps, bound, held) => {
        const index = new ShortTermIndex(bound, held)
        playTermSteps(index, new Map(), steps, (form, expected) => {
          if (!isShortTerm(form)) return
          const found = index.leadsHolding(form)
          // Past its bound, the index may say it cannot tell, and must never answer wrongly.
          if (found !== undefined) expect(found.toArray()).toEqual(expected)
          else expect(index.size).toBe(bound)
        })
      }),
      { numRuns: 300 },
    )
  })

  it('keeps only the pairs it is told to, and says it cannot tell for the others', () => {
    const index = new ShortTermIndex(100, 8, (first, second) => first === 0x61 || second === 0x61)
    index.add(0, 'abc')
    index.add(1, 'bca')
    expect(index.leadsHolding('ab')?.toArray()).toEqual([0])
    expect(index.leadsHolding('ca')?.toArray()).toEqual([1])
    expect(index.leadsHolding('bc')).toBeUndefined()
    expect(index.leadsHolding('b')?.toArray()).toEqual([0, 1])
    expect(index.size).toBe(5)
  })

  it('keeps each string once however often a lead holds it, and leaves strings out past its bound', () => {
    const index = new ShortTermIndex(4)
    index.add(0, 'aaaa')
    index.add(1, 'ab')
    expect(index.size).toBe(4)
    expect(index.leadsHolding('a')?.toArray()).toEqual([0, 1])
    expect(index.leadsHolding('aa')?.toArray()).toEqual([0])
    expect(index.leadsHolding('ab')?.toArray()).toEqual([1])
    index.add(2, 'c')
    expect(index.leadsHolding('c')).toBeUndefined()
    expect(index.leadsHolding('b')?.toArray()).toEqual([1])
  })
})
