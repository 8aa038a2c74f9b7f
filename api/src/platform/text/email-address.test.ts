import fc from 'fast-check'
import addressparser from 'nodemailer/lib/addressparser'
import { parseAddressList, parseMailboxList } from '@leadline/shared/email-address'
import { describe, expect, it } from 'vitest'

// The api reads address fields with the shared parser; emails go out through nodemailer, which reads them with its
// own addressparser. The two must agree, or a field would mean one thing when stored and another when sent.

const fieldCharacters = fc.constantFrom(...'ab.@ <>",;:()\\[]\'é'.split(''), 'ann', 'x.co', 'Smith')
const fields = fc.array(fieldCharacters, { maxLength: 30 }).map((parts) => parts.join(''))

describe('the shared address parser', () => {
  it('reads every field as nodemailer does, grouped and flattened', () => {
    fc.assert(
      fc.property(fields, (field) => {
        expect(parseAddressList(field)).toEqual(addressparser(field))
        expect(parseMailboxList(field)).toEqual(addressparser(field, { flatten: true }))
      }),
      { numRuns: 3000 },
    )
  })

  it('agrees on the fields people write', () => {
    for (const field of [
      'Ann Smith <ann@example.com>',
      '"Smith, Ann" <ann@example.com>, bob@example.com; Carl <carl@x.co>',
      'Team: ann@x.co, bob@x.co;, eve@x.co',
      'ann@x.co (Ann)',
      'Joe Foo, PhD <joe@example.com>',
    ]) {
      expect(parseAddressList(field)).toEqual(addressparser(field))
      expect(parseMailboxList(field)).toEqual(addressparser(field, { flatten: true }))
    }
  })
})
