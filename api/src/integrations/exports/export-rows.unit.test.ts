import { describe, expect, it } from 'vitest'
import { escapeFormula, formatDateCell, writtenCells } from './export-rows.js'

describe('CSV cells', () => {
  it('escapes text a spreadsheet would run as a formula, and nothing else', () => {
    for (const text of ['=1+1', '+1', '-2', '@SUM(A1)', '\tx', '\rx', '=']) expect(escapeFormula(text)).toBe(`'${text}`)
    for (const text of ['', 'plain', ' =1', "'=1", 'a=b', '1-2']) expect(escapeFormula(text)).toBe(text)
  })

  it('keeps numbers as numbers, negative ones included, and writes nothing for null', () => {
    const row = { value: -500, score: 3.5, flag: true, none: null, text: '-500' }
    expect(writtenCells(row, ['value', 'score', 'flag', 'none', 'text', 'missing'], 'original')).toEqual([
      -500,
      3.5,
      'true',
      '',
      "'-500",
      '',
    ])
  })

  it('writes timestamps in Close’s original or ISO 8601 form, and leaves dates and other text alone', () => {
    expect(formatDateCell('2017-09-29T10:40:23.140000+00:00', 'original')).toBe('2017-09-29 10:40:23.140000+00:00')
    expect(formatDateCell('2017-09-29T10:40:23.140000+00:00', 'iso8601')).toBe('2017-09-29T10:40:23+00:00')
    expect(formatDateCell('2017-09-29T10:40:23Z', 'original')).toBe('2017-09-29 10:40:23.000000+00:00')
    expect(formatDateCell('2017-09-29T10:40:23.5-04:00', 'iso8601')).toBe('2017-09-29T10:40:23-04:00')
    expect(formatDateCell('2017-09-29', 'iso8601')).toBe('2017-09-29')
    expect(formatDateCell('not 2017-09-29T10:40:23Z', 'iso8601')).toBe('not 2017-09-29T10:40:23Z')
  })
})
