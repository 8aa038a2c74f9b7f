import Papa from 'papaparse'

// A look at a file's first rows before it is uploaded: papaparse reads a slice of it, never the whole file.

/** How much of the file is read for the preview. */
export const PREVIEW_BYTES = 64 * 1024
/** Data rows shown under the header. */
export const PREVIEW_ROWS = 5

export type FilePreview =
  | { kind: 'rows'; columns: string[]; rows: string[][] }
  /** Nothing to show: the file is empty, or does not read as text. */
  | { kind: 'none'; reason: string }

/** The text of the slice: UTF-16 by its byte-order mark, UTF-8 (a BOM dropped) when it reads as such, else Windows-1252. */
export function decodeSlice(bytes: Uint8Array): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes)
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes)
  try {
    // The slice may end inside a character: `stream` keeps those last bytes back rather than failing on them.
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: true })
  } catch {
    return new TextDecoder('windows-1252').decode(bytes)
  }
}

/** The header and first rows of a file, from its first PREVIEW_BYTES; a row cut off by the slice is left out. */
export async function previewFile(file: Blob): Promise<FilePreview> {
  const slice = new Uint8Array(await file.slice(0, PREVIEW_BYTES).arrayBuffer())
  let text = decodeSlice(slice)
  if (text.includes('\u0000')) return { kind: 'none', reason: 'No preview: the file does not read as text.' }
  if (file.size > PREVIEW_BYTES) {
    const lastBreak = Math.max(text.lastIndexOf('\n'), text.lastIndexOf('\r'))
    text = lastBreak === -1 ? text : text.slice(0, lastBreak)
  }
  const parsed = Papa.parse<string[]>(text, { preview: PREVIEW_ROWS + 1, skipEmptyLines: true })
  const [columns, ...rows] = parsed.data
  if (columns === undefined) return { kind: 'none', reason: 'No preview: the file is empty.' }
  return { kind: 'rows', columns, rows }
}
