import { describe, expect, it } from 'vitest'
import { cx } from './cx'

describe('cx', () => {
  it('joins the parts with spaces and leaves out the falsy ones', () => {
    expect(cx('flex gap-1', false, undefined, null, '', 'shrink-0')).toBe('flex gap-1 shrink-0')
  })

  it('keeps classes as given, conflicting or not', () => {
    expect(cx('w-full', 'w-44')).toBe('w-full w-44')
    expect(cx()).toBe('')
  })
})
