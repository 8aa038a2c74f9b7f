import { describe, expect, it } from 'vitest'
import { isRequestId, MAX_REQUEST_ID_LENGTH } from './request-id.js'

describe('isRequestId', () => {
  it('takes short plain ids', () => {
    expect(isRequestId('req_4ksP0xYz9aBcDeFgHiJkLm')).toBe(true)
    expect(isRequestId('0b6c0c9e-3f4a-4b8e-9a57-2d1f6f0e8a11')).toBe(true)
    expect(isRequestId('edge.7-a_B')).toBe(true)
    expect(isRequestId('x'.repeat(MAX_REQUEST_ID_LENGTH))).toBe(true)
  })

  it('refuses anything long, empty or with other characters', () => {
    expect(isRequestId('x'.repeat(MAX_REQUEST_ID_LENGTH + 1))).toBe(false)
    expect(isRequestId('')).toBe(false)
    for (const bad of ['a b', 'a\nb', 'a"b', 'a/b', 'a:b', 'é', 'a\u0000', '{}', 'a,b'])
      expect(isRequestId(bad), bad).toBe(false)
    expect(isRequestId(undefined)).toBe(false)
    expect(isRequestId(['a'])).toBe(false)
  })
})
