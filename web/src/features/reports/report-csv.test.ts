import { afterEach, describe, expect, it, vi } from 'vitest'
import { downloadText, majorUnits, toCsv } from './report-csv'

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

describe('downloadText', () => {
  afterEach(() => {
    vi.useRealTimers()
    vi.unstubAllGlobals()
    vi.restoreAllMocks()
  })

  it('keeps the file’s URL alive until well after the click has been handled', async () => {
    vi.useFakeTimers()
    const link = { href: '', download: '', click: vi.fn() }
    vi.stubGlobal('document', { createElement: vi.fn(() => link) })
    const revoke = vi.spyOn(URL, 'revokeObjectURL')
    downloadText('report.csv', 'a,b\r\n')
    expect(link.click).toHaveBeenCalledOnce()
    expect(link.download).toBe('report.csv')
    expect(link.href).toMatch(/^blob:/)
    // The download starts in a later task: the URL still opens then.
    await vi.advanceTimersByTimeAsync(1000)
    expect(revoke).not.toHaveBeenCalled()
    await vi.runAllTimersAsync()
    expect(revoke).toHaveBeenCalledExactlyOnceWith(link.href)
  })
})
