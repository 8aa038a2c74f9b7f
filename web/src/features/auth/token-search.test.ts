import { describe, expect, it } from 'vitest'
import { tokenSearchOf } from './token-search'

describe('tokenSearchOf', () => {
  it('keeps a base62 or base64url token', () => {
    const token = 'aZ09_-'.repeat(8)
    expect(tokenSearchOf({ token })).toStrictEqual({ token })
    expect(tokenSearchOf({ token: 'Ab3', other: 'x' })).toStrictEqual({ token: 'Ab3' })
  })

  it('overwrites anything else with undefined, so the raw param does not survive', () => {
    expect(tokenSearchOf({})).toStrictEqual({ token: undefined })
    expect(tokenSearchOf({ token: '' })).toStrictEqual({ token: undefined })
    expect(tokenSearchOf({ token: 'abc def' })).toStrictEqual({ token: undefined })
    expect(tokenSearchOf({ token: 'abc/../x' })).toStrictEqual({ token: undefined })
    expect(tokenSearchOf({ token: 'abc=' })).toStrictEqual({ token: undefined })
    expect(tokenSearchOf({ token: 12345 })).toStrictEqual({ token: undefined })
    expect(tokenSearchOf({ token: ['abc'] })).toStrictEqual({ token: undefined })
    expect(tokenSearchOf({ token: 'a'.repeat(201) })).toStrictEqual({ token: undefined })
    expect(tokenSearchOf({ token: 'a'.repeat(200) }).token).toBe('a'.repeat(200))
  })
})
