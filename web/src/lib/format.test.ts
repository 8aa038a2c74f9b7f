import { describe, expect, it } from 'vitest'
import { formatDuration } from './format'

describe('formatDuration', () => {
  it('writes minutes and two-digit seconds', () => {
    expect(formatDuration(0)).toBe('0:00')
    expect(formatDuration(5)).toBe('0:05')
    expect(formatDuration(75)).toBe('1:15')
    expect(formatDuration(3600)).toBe('60:00')
  })

  it('rounds to the second without ever showing 60 seconds', () => {
    expect(formatDuration(59.6)).toBe('1:00')
    expect(formatDuration(119.5)).toBe('2:00')
    expect(formatDuration(-3)).toBe('0:00')
  })
})
