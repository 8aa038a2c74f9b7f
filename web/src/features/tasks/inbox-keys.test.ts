import { describe, expect, it } from 'vitest'
import { inboxSearchOf, viewOf } from './inbox-search'
import { shortcutOf } from './inbox-keys'

describe('inbox shortcuts', () => {
  it('maps the keys, Enter only on a row', () => {
    expect(['j', 'k', 'x', 'e', 's', 'a', 'u', '?'].map((key) => shortcutOf(key, false))).toEqual([
      'next',
      'previous',
      'select',
      'complete',
      'snooze',
      'assign',
      'undo',
      'help',
    ])
    expect(shortcutOf('Enter', true)).toBe('open')
    expect(shortcutOf('Enter', false)).toBeUndefined()
    expect(shortcutOf('J', false)).toBeUndefined()
    expect(shortcutOf('constructor', false)).toBeUndefined()
  })
})

describe('inbox search params', () => {
  it('keeps the tab and a user id, drops anything else', () => {
    expect(inboxSearchOf({ tab: 'future', user: 'user_abc123' })).toEqual({ tab: 'future', user: 'user_abc123' })
    expect(inboxSearchOf({ tab: 'archive', user: 'all' })).toEqual({ tab: 'archive', user: 'all' })
    expect(inboxSearchOf({ tab: 'inbox', user: '<script>' })).toEqual({})
    expect(inboxSearchOf({ tab: ['future'], user: 42 })).toEqual({})
    expect(viewOf({})).toBe('inbox')
    expect(viewOf({ tab: 'future' })).toBe('future')
  })
})
