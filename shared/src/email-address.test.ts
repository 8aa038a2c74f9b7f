import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseAddressList, parseMailboxList } from './email-address.js'

// The expected values are what nodemailer's addressparser answers for the same fields.

describe('parseAddressList', () => {
  it('reads bare, named, quoted and commented mailboxes', () => {
    expect(parseAddressList('ann@example.com')).toEqual([{ name: '', address: 'ann@example.com' }])
    expect(parseAddressList('Ann Smith <ann@example.com>')).toEqual([{ name: 'Ann Smith', address: 'ann@example.com' }])
    expect(parseAddressList('"Smith, Ann \\"A\\"" <ann@example.com>')).toEqual([
      { name: 'Smith, Ann "A"', address: 'ann@example.com' },
    ])
    expect(parseAddressList('Ann "Smith" <a@b.co>')).toEqual([{ name: 'Ann Smith', address: 'a@b.co' }])
    expect(parseAddressList('Ann<a@b.co>')).toEqual([{ name: 'Ann', address: 'a@b.co' }])
    expect(parseAddressList('<a@b.co')).toEqual([{ name: '', address: 'a@b.co' }])
    expect(parseAddressList('ann@x.com (Ann)')).toEqual([{ name: 'Ann', address: 'ann@x.com' }])
    expect(parseAddressList('(Ann) ann@x.com')).toEqual([{ name: 'Ann', address: 'ann@x.com' }])
    expect(parseAddressList('Ann Smith ann@x.com')).toEqual([{ name: 'Ann Smith', address: 'ann@x.com' }])
    expect(parseAddressList('Ann <a@b.co> extra')).toEqual([{ name: 'Ann extra', address: 'a@b.co' }])
    // A name that is the address is none.
    expect(parseAddressList('"ann@x.com" <ann@x.com>')).toEqual([{ name: '', address: 'ann@x.com' }])
  })

  it('keeps what is no address as a name, or as an address that no check will take', () => {
    expect(parseAddressList('not an address')).toEqual([{ name: 'not an address', address: '' }])
    expect(parseAddressList('tess@')).toEqual([{ name: '', address: 'tess@' }])
    expect(parseAddressList('a@b.co>')).toEqual([{ name: '', address: 'a@b.co>' }])
    expect(parseAddressList('')).toEqual([])
    expect(parseAddressList(' , ; ')).toEqual([])
  })

  it('splits a list at commas and semicolons, and mends a name split at its comma', () => {
    expect(parseAddressList('a@b.co, c@d.co; e@f.co,')).toEqual([
      { name: '', address: 'a@b.co' },
      { name: '', address: 'c@d.co' },
      { name: '', address: 'e@f.co' },
    ])
    expect(parseAddressList('Joe Foo, PhD <joe@example.com>')).toEqual([
      { name: 'Joe Foo, PhD', address: 'joe@example.com' },
    ])
  })

  it('reads groups, a nested one into the outer, and a group that hides in a name', () => {
    expect(parseAddressList('Team: a@b.c, d@e.f;')).toEqual([
      {
        name: 'Team',
        group: [
          { name: '', address: 'a@b.c' },
          { name: '', address: 'd@e.f' },
        ],
      },
    ])
    expect(parseAddressList('A:B:c@d.e;')).toEqual([{ name: 'A', group: [{ name: '', address: 'c@d.e' }] }])
    expect(parseAddressList('x@example.com Bcc: e@v.il;')).toEqual([
      { name: 'x@example.com Bcc', group: [{ name: '', address: 'e@v.il' }] },
    ])
  })

  it('reads quoted local parts, spacing around the @ and the dots, and comments as whitespace', () => {
    expect(parseAddressList('"a b"@x.com')).toEqual([{ name: '', address: '"a b"@x.com' }])
    expect(parseAddressList('"a"b@c.de')).toEqual([{ name: '', address: 'ab@c.de' }])
    expect(parseAddressList('user @ good.com')).toEqual([{ name: '', address: 'user@good.com' }])
    expect(parseAddressList('user@victim.example .allowed.example')).toEqual([
      { name: '', address: 'user@victim.example.allowed.example' },
    ])
    expect(parseAddressList('user@victim.example(x).allowed.example')).toEqual([
      { name: 'x', address: 'user@victim.example.allowed.example' },
    ])
    expect(parseAddressList('Name <user@example.com(x)evil.com>')).toEqual([
      { name: 'Name evil.com', address: 'user@example.com' },
    ])
    expect(parseAddressList('<"a>"@good.com>')).toEqual([{ name: '', address: '"a>"@good.com' }])
    expect(parseAddressList('<@relay1,@relay2:user@example.com>')).toEqual([{ name: '', address: 'user@example.com' }])
    expect(parseAddressList('a@[IPv6:2001:db8::1]')).toEqual([{ name: '', address: 'a@[IPv6:2001:db8::1]' }])
  })
})

describe('parseMailboxList', () => {
  it('puts the members of groups in their place', () => {
    expect(parseMailboxList('a@b.co, Team: c@d.co, Eve <e@f.co>;, g@h.co')).toEqual([
      { name: '', address: 'a@b.co' },
      { name: '', address: 'c@d.co' },
      { name: 'Eve', address: 'e@f.co' },
      { name: '', address: 'g@h.co' },
    ])
  })
})

describe('address fields, whatever they hold', () => {
  // ASCII with its controls, and some of the spaces and letters beyond it (full Unicode is slow to generate).
  const nameUnit = fc.oneof(
    { weight: 5, arbitrary: fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 1 }) },
    fc.constantFrom('é', '\u2028', '\u00a0', '\ufeff', '😀', '\u3000', '\\', '"'),
  )

  it('reads back every quoted name it is given', () => {
    fc.assert(
      fc.property(fc.string({ unit: nameUnit, maxLength: 40 }), (raw) => {
        // A line break reads as a space, other controls but tab are left out, and the ends are trimmed.
        let kept = ''
        for (const c of raw) kept += c === '\n' ? ' ' : c >= ' ' || c === '\t' ? c : ''
        const name = kept.trim()
        fc.pre(name !== 'ann@example.com')
        const field = `"${name.replace(/["\\]/g, '\\$&')}" <ann@example.com>`
        expect(parseAddressList(field)).toEqual([{ name, address: 'ann@example.com' }])
      }),
    )
  })

  it('never throws, and answers mailboxes and groups of strings', () => {
    const pieces = ['a', '@', '.', ' ', '"', '\\', '(', ')', '<', '>', ',', ';', ':', '[', ']', '\n', '\u0001', 'é']
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 40 }), (chars) => {
        for (const entry of parseAddressList(chars.join(''))) {
          expect(typeof entry.name).toBe('string')
          if (entry.group === undefined) expect(typeof entry.address).toBe('string')
          else for (const member of entry.group) expect(typeof member.address).toBe('string')
        }
      }),
    )
  })

  it('reads 50 KB of hostile text in well under a second each', () => {
    const n = 50_000
    for (const field of [
      ' '.repeat(n),
      '<'.repeat(n),
      '('.repeat(n),
      '"'.repeat(n),
      '@'.repeat(n),
      ':'.repeat(n),
      'a @ '.repeat(n / 4),
      `${'a '.repeat(n / 2)}b@c.de`,
      `${'a,'.repeat(n / 2)}B <b@c.de>`,
      `a@b${'(x).b'.repeat(n / 5)}`,
      `a@b${' . b'.repeat(n / 4)}`,
      `a@[${':'.repeat(n)}`,
      `<"${'a'.repeat(n)}`,
      `${'<a'.repeat(n / 2)}>`,
    ]) {
      const started = performance.now()
      parseAddressList(field)
      expect(performance.now() - started, field.slice(0, 12)).toBeLessThan(1_000)
    }
  })
})
