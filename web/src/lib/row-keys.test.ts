import { describe, expect, it } from 'vitest'
import { contentKeys, neighbourAfterRemoval, newRowKey } from './row-keys'

describe('row keys', () => {
  it('are new for every row', () => {
    const keys = Array.from({ length: 100 }, newRowKey)
    expect(new Set(keys).size).toBe(100)
  })

  it('from content are unique, the repeats numbered in order', () => {
    expect(contentKeys(['a', 'b', 'a', 'a'])).toEqual(['a', 'b', 'a#1', 'a#2'])
    expect(contentKeys([])).toEqual([])
  })
})

describe('the focus after a removal', () => {
  it('goes to the next item, else the one before, else nowhere in the list', () => {
    expect(neighbourAfterRemoval(['a', 'b', 'c'], 0)).toBe('b')
    expect(neighbourAfterRemoval(['a', 'b', 'c'], 1)).toBe('c')
    expect(neighbourAfterRemoval(['a', 'b', 'c'], 2)).toBe('b')
    expect(neighbourAfterRemoval(['a'], 0)).toBeUndefined()
  })
})
