import { describe, expect, it, vi } from 'vitest'
import { decodeSlice, previewFile, PREVIEW_BYTES, PREVIEW_ROWS } from './import-preview'

describe('the preview of a file to import', () => {
  it('reads only the first 64 KiB of a large file and leaves out the row the slice cut', async () => {
    const rows = Array.from({ length: 5000 }, (_, i) => `Company ${String(i)},person${String(i)}@example.com`)
    const file = new File([`Company,Email\n${rows.join('\n')}\n`], 'big.csv', { type: 'text/csv' })
    expect(file.size).toBeGreaterThan(PREVIEW_BYTES * 2)
    const slice = vi.spyOn(file, 'slice')
    const whole = vi.spyOn(file, 'arrayBuffer')
    const text = vi.spyOn(file, 'text')
    const preview = await previewFile(file)
    expect(slice).toHaveBeenCalledWith(0, PREVIEW_BYTES)
    expect(whole).not.toHaveBeenCalled()
    expect(text).not.toHaveBeenCalled()
    expect(preview).toEqual({
      kind: 'rows',
      columns: ['Company', 'Email'],
      rows: rows.slice(0, PREVIEW_ROWS).map((row) => row.split(',')),
    })
  })

  it('detects the delimiter and quoted cells, and says when there is nothing to show', async () => {
    const file = new File(['Name;Notes\n"Bluth; Co";"said ""hi"""\n'], 'semi.csv')
    expect(await previewFile(file)).toEqual({
      kind: 'rows',
      columns: ['Name', 'Notes'],
      rows: [['Bluth; Co', 'said "hi"']],
    })
    expect(await previewFile(new File([''], 'empty.csv'))).toEqual({
      kind: 'none',
      reason: 'No preview: the file is empty.',
    })
    expect(await previewFile(new File([new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0x00, 0x00])], 'x.zip'))).toEqual({
      kind: 'none',
      reason: 'No preview: the file does not read as text.',
    })
  })

  it('decodes UTF-8 with or without a BOM, UTF-16 by its BOM, and Windows-1252 when it is not UTF-8', () => {
    const utf8 = new TextEncoder().encode('Café,Zoë')
    expect(decodeSlice(utf8)).toBe('Café,Zoë')
    expect(decodeSlice(new Uint8Array([0xef, 0xbb, 0xbf, ...utf8]))).toBe('Café,Zoë')
    // A slice that ends inside a character keeps what came before it.
    expect(decodeSlice(utf8.slice(0, utf8.length - 1))).toBe('Café,Zo')
    const utf16le = new Uint8Array([0xff, 0xfe, 0x43, 0x00, 0xe9, 0x00])
    expect(decodeSlice(utf16le)).toBe('Cé')
    const utf16be = new Uint8Array([0xfe, 0xff, 0x00, 0x43, 0x00, 0xe9])
    expect(decodeSlice(utf16be)).toBe('Cé')
    expect(decodeSlice(new Uint8Array([0x43, 0x61, 0x66, 0xe9, 0x2c, 0x41]))).toBe('Café,A')
  })
})
