import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { leadsContaining, playTermSteps, termDocument, termStep } from '../../tooling/test-support/term-index-model.js'
import { isWordForm, WordIndexBuilder } from './lead-words.js'

// The word index against the test it stands for: the documents that contain the term.

const PIECES = ['ab', 'b', 'abc', 'ca', ' ', '\n', '.', '@', 'é', '中', '0', '42', 'Z', '\u{1D49C}', '\uFFFD', '-']
const FORMS = ['ab', 'abc', 'b', 'bc', 'ca', 'cab', 'é', 'éab', '中0', '42', '2a', 'Z', 'zz', '\u{1D49C}', 'a\uFFFD']

describe('WordIndex', () => {
  it('answers for terms of letters, digits and characters past ASCII only', () => {
    expect(['market', 'a', '415', 'émile', '中文', '\u{1D49C}lice', 'MAIN'].every(isWordForm)).toBe(true)
    expect(['', 'main st', 'a.b', 'x@y', '555-10', '(', '_'].some(isWordForm)).toBe(false)
  })

  it('answers every word term as a substring test of the documents, through adds, changes, removals and rebuilds', () => {
    const document = termDocument(PIECES, 10)
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat({ max: 11 }), document), { maxLength: 12 }),
        fc.array(termStep(document, FORMS, 11), { maxLength: 40 }),
        fc.constantFrom(1, 3, 1000),
        fc.nat(20),
        fc.constantFrom(1, 2, 3, 16),
        (initial, steps, changesHeld, held, denseFrom) => {
          const builder = new WordIndexBuilder({ bound: 1000, held, denseFrom, changesHeld })
          const documents = new Map<number, string>()
          for (const [lead, text] of initial) {
            if (documents.has(lead)) continue
            builder.add(lead, text)
            documents.set(lead, text)
          }
          const index = builder.build()
          const check = (form: string, expected = leadsContaining(documents, form)) => {
            expect(index.leadsHolding(form)?.toArray(), form).toEqual(expected)
          }
          for (const form of FORMS) check(form)
          playTermSteps(index, documents, steps, check)
          for (const form of FORMS) check(form)
        },
      ),
      { numRuns: 400 },
    )
  })

  it('keeps many leads of a word as a bitmap and few as a list, and answers from both', () => {
    const builder = new WordIndexBuilder({ held: 7, changesHeld: 1 })
    for (let lead = 0; lead < 40; lead++) builder.add(lead, lead % 2 === 0 ? 'market st' : `supermarket${String(lead)}`)
    const index = builder.build()
    expect(index.leadsHolding('market')?.size).toBe(40)
    expect(index.leadsHolding('supermarket3')?.toArray()).toEqual([3, 31, 33, 35, 37, 39])
    index.forget(4)
    index.add(4, 'hypermarket')
    expect(index.leadsHolding('hyper')?.toArray()).toEqual([4])
    expect(index.leadsHolding('st')?.toArray()).not.toContain(4)
  })

  it('says it cannot tell once the words or their characters run past its bounds', () => {
    const builder = new WordIndexBuilder({ bound: 3 })
    builder.add(0, 'one two three')
    expect(builder.build().leadsHolding('one')?.toArray()).toEqual([0])
    const over = new WordIndexBuilder({ bound: 3 })
    over.add(0, 'one two three four')
    over.add(1, 'one')
    const index = over.build()
    expect(index.usable).toBe(false)
    expect(index.leadsHolding('one')).toBeUndefined()
    index.add(2, 'one')
    expect(index.leadsHolding('one')).toBeUndefined()
    const long = new WordIndexBuilder({ characterBound: 12 })
    long.add(0, 'short words')
    expect(long.build().leadsHolding('word')?.toArray()).toEqual([0])
    long.add(1, 'another')
    expect(long.build().usable).toBe(false)
  })

  it('builds the words again once enough leads changed, and drops the words no lead holds any more', () => {
    const builder = new WordIndexBuilder({ changesHeld: 2 })
    builder.add(0, 'alpha beta')
    builder.add(1, 'alpha gamma')
    const index = builder.build()
    expect(index.size).toBe(3)
    index.forget(1)
    index.add(1, 'delta')
    index.forget(0)
    index.add(0, 'alpha')
    expect(index.size).toBe(2)
    expect(index.leadsHolding('alpha')?.toArray()).toEqual([0])
    expect(index.leadsHolding('gamma')?.toArray()).toEqual([])
    expect(index.leadsHolding('delta')?.toArray()).toEqual([1])
  })
})
