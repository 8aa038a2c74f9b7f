import { describe, expect, it } from 'vitest'
import { majorUnits, toCsv } from './report-csv'

describe('toCsv', () => {
  it('quotes fields with commas, quotes or newlines, and ends lines with CRLF', () => {
    expect(
      toCsv([
        ['Name', 'Note'],
        ['Acme, Inc.', 'said "hi"\nthen left'],
        [null, 12.5],
      ]),
    ).toBe('Name,Note\r\n"Acme, Inc.","said ""hi""\nthen left"\r\n,12.5\r\n')
  })

  it('keeps text that starts like a formula as text, but not numbers', () => {
    expect(toCsv([['=SUM(A1)', '+1', '-2', '@x', -3]])).toBe("'=SUM(A1),'+1,'-2,'@x,-3\r\n")
    expect(toCsv([['=HYPERLINK("x")']])).toBe(`"'=HYPERLINK(""x"")"\r\n`)
  })
})

describe('majorUnits', () => {
  it('reads cents in the currency’s major unit', () => {
    expect(majorUnits(150050, 'USD')).toBe(1500.5)
    expect(majorUnits(1500, 'JPY')).toBe(1500)
  })
})
