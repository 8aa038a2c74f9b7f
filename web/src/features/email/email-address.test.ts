import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { formatAddress, isEmailAddress, parseAddress, parseAddresses, splitAddresses } from './email-address'

describe('isEmailAddress', () => {
  it('takes what mail is sent to and refuses the rest', () => {
    expect(isEmailAddress('ann@example.com')).toBe(true)
    expect(isEmailAddress('ann.smith+crm@mail.example.co.uk')).toBe(true)
    for (const bad of ['', 'ann', 'ann@', '@example.com', 'ann@example', 'ann smith@example.com', 'a@b.c.', 'a,b@c.de'])
      expect(isEmailAddress(bad), bad).toBe(false)
    expect(isEmailAddress(`${'a'.repeat(250)}@b.cd`)).toBe(false)
  })
})

describe('parseAddress', () => {
  it('reads a bare address, a named one and a quoted name', () => {
    expect(parseAddress(' ann@example.com ')).toEqual({ name: '', email: 'ann@example.com' })
    expect(parseAddress('Ann Smith <ann@example.com>')).toEqual({ name: 'Ann Smith', email: 'ann@example.com' })
    expect(parseAddress('"Smith, Ann \\"A\\"" <ann@example.com>')).toEqual({
      name: 'Smith, Ann "A"',
      email: 'ann@example.com',
    })
    expect(parseAddress('<ann@example.com>')).toEqual({ name: '', email: 'ann@example.com' })
    expect(parseAddress('Ann Smith <ann>')).toBeUndefined()
    expect(parseAddress('Ann Smith')).toBeUndefined()
  })

  it('reads back every address it writes', () => {
    fc.assert(
      fc.property(fc.string(), (name) => {
        const clean = name.replace(/[\r\n]/g, '').trim()
        expect(parseAddress(formatAddress({ name: clean, email: 'ann@example.com' }))).toEqual({
          name: clean,
          email: 'ann@example.com',
        })
      }),
    )
  })
})

describe('splitAddresses and parseAddresses', () => {
  it('splits at commas, semicolons and line breaks, but not inside a quoted name', () => {
    expect(splitAddresses('a@b.co, "Smith, Ann" <ann@example.com>;\nc@d.co,, ')).toEqual([
      'a@b.co',
      '"Smith, Ann" <ann@example.com>',
      'c@d.co',
    ])
  })

  it('keeps apart what is not an address', () => {
    expect(parseAddresses('a@b.co, nobody, Bo <bo@x.io>')).toEqual({
      addresses: [
        { name: '', email: 'a@b.co' },
        { name: 'Bo', email: 'bo@x.io' },
      ],
      invalid: ['nobody'],
    })
  })
})

describe('formatAddress', () => {
  it('quotes a name so that its commas are safe, and leaves a bare address bare', () => {
    expect(formatAddress({ name: '', email: 'ann@example.com' })).toBe('ann@example.com')
    expect(formatAddress({ name: 'Smith, Ann', email: 'ann@example.com' })).toBe('"Smith, Ann" <ann@example.com>')
  })
})

describe('parseAddress on long input', () => {
  it('reads 1 MB of spaces, or of brackets, in under a second', () => {
    for (const text of [
      `${' '.repeat(1_000_000)}x`,
      `a${' '.repeat(1_000_000)}<`,
      '<'.repeat(1_000_000),
      `${'<a'.repeat(500_000)}>`,
    ]) {
      const started = performance.now()
      expect(parseAddress(text)).toBeUndefined()
      expect(performance.now() - started).toBeLessThan(1_000)
    }
    expect(parseAddress('  Ann Smith   <ann@example.com> ')).toEqual({ name: 'Ann Smith', email: 'ann@example.com' })
  })
})
