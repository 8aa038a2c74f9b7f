import { isUtf8 } from 'node:buffer'
import { TextDecoder } from 'node:util'
import type { ImportEncoding } from '@leadline/shared/import-schema'
import { ValidationError } from '../../platform/http/errors.js'

// What an uploaded file's bytes are (decision 0053): refused when they are no CSV (a zip, an Excel workbook, a PDF,
// NUL bytes), else decoded to text as they stream in. UTF-8 is taken with or without its BOM, UTF-16 with its BOM;
// a file with no BOM that is not UTF-8 is read as Windows-1252, as a spreadsheet saved on Windows writes it.

export const EXPECTED_ENCODINGS = 'Expected UTF-8 (with or without a BOM), UTF-16 LE or BE with a BOM, or Windows-1252.'

/** Bytes Windows-1252 leaves undefined: a file holding one is in none of the encodings taken. */
const UNDEFINED_IN_1252 = new Set([0x81, 0x8d, 0x8f, 0x90, 0x9d])
/** Bytes looked at for a file type's magic number before any is decoded. */
const SNIFF_BYTES = 4096

function refuse(message: string): never {
  throw ValidationError.field('file', message)
}

/** What the first bytes say the file is, when it is not text. */
function binaryKind(head: Buffer): string | undefined {
  if (head.subarray(0, 4).equals(Buffer.from([0x50, 0x4b, 0x03, 0x04]))) {
    const names = head.toString('latin1')
    return names.includes('[Content_Types].xml') || names.includes('xl/')
      ? 'The file is an Excel workbook: save it as CSV.'
      : 'The file is a zip archive, not a CSV.'
  }
  if (head.subarray(0, 4).equals(Buffer.from([0xd0, 0xcf, 0x11, 0xe0])))
    return 'The file is an Excel 97–2003 workbook: save it as CSV.'
  if (head.subarray(0, 5).toString('latin1') === '%PDF-') return 'The file is a PDF, not a CSV.'
  return undefined
}

/** Where the bytes stop being whole UTF-8 sequences: a sequence cut by the end of a chunk waits for the next. */
function wholeUtf8(bytes: Buffer): number {
  for (let i = bytes.length - 1; i >= Math.max(0, bytes.length - 4); i -= 1) {
    const byte = bytes[i] ?? 0
    if ((byte & 0xc0) === 0x80) continue
    const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1
    return i + length > bytes.length ? i : bytes.length
  }
  return bytes.length
}

function hasHighByte(bytes: Buffer): boolean {
  for (const byte of bytes) if (byte >= 0x80) return true
  return false
}

/** Whether the bytes hold a well-formed UTF-8 sequence of two or more bytes (text in UTF-8, at least in part). */
function hasUtf8Sequence(bytes: Buffer): boolean {
  for (let i = 0; i < bytes.length; i += 1) {
    const byte = bytes[i] ?? 0
    const length = byte >= 0xf0 && byte < 0xf5 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc2 && byte < 0xe0 ? 2 : 0
    if (length === 0 || byte >= 0xf5) continue
    const sequence = bytes.subarray(i, i + length)
    if (sequence.length === length && isUtf8(sequence)) return true
  }
  return false
}

const NOT_TEXT = 'The file is not a CSV: it holds NUL bytes (a binary file?).'

/** Decodes an upload chunk by chunk into text, deciding its encoding from its first bytes and what follows. */
export class UploadDecoder {
  encoding: ImportEncoding | undefined
  /** Bytes before the encoding is decided. */
  private head: Buffer[] = []
  private headBytes = 0
  /** The start of a UTF-8 sequence the last chunk cut. */
  private carry = Buffer.alloc(0)
  /** A byte over 0x7f decoded as UTF-8: past that, bytes that are not UTF-8 are a mixed file, not Windows-1252. */
  private sawUtf8 = false
  private utf16: TextDecoder | undefined

  /** The text of the chunk (maybe none yet); throws a ValidationError on `file` when the bytes are refused. */
  write(chunk: Buffer): string {
    if (this.encoding === undefined) {
      this.head.push(chunk)
      this.headBytes += chunk.length
      if (this.headBytes < SNIFF_BYTES) return ''
      return this.start()
    }
    return this.decode(chunk, false)
  }

  /** The rest of the text once the upload ended. */
  end(): string {
    const text = this.encoding === undefined ? this.start() : ''
    return text + this.decode(Buffer.alloc(0), true)
  }

  private start(): string {
    const bytes = Buffer.concat(this.head)
    this.head = []
    const binary = binaryKind(bytes)
    if (binary !== undefined) refuse(binary)
    if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
      this.encoding = 'utf-8-bom'
      return this.decode(bytes.subarray(3), false)
    }
    if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
      this.encoding = bytes[0] === 0xff ? 'utf-16le' : 'utf-16be'
      this.utf16 = new TextDecoder(this.encoding, { fatal: true })
      return this.decode(bytes, false)
    }
    this.encoding = 'utf-8'
    return this.decode(bytes, false)
  }

  private decode(chunk: Buffer, last: boolean): string {
    if (this.utf16 !== undefined) {
      let text: string
      try {
        text = this.utf16.decode(chunk, { stream: !last })
      } catch {
        refuse(
          `The file is not valid ${this.encoding === 'utf-16le' ? 'UTF-16 LE' : 'UTF-16 BE'}. ${EXPECTED_ENCODINGS}`,
        )
      }
      if (text.includes('\u0000')) refuse(NOT_TEXT)
      return text
    }
    if (chunk.includes(0)) refuse(NOT_TEXT)
    if (this.encoding === 'windows-1252') return windows1252(chunk)
    const bytes = this.carry.length === 0 ? chunk : Buffer.concat([this.carry, chunk])
    const cut = last ? bytes.length : wholeUtf8(bytes)
    const whole = bytes.subarray(0, cut)
    if (isUtf8(whole)) {
      this.carry = Buffer.from(bytes.subarray(cut))
      if (!this.sawUtf8 && hasHighByte(whole)) this.sawUtf8 = true
      return whole.toString('utf8')
    }
    if (this.encoding === 'utf-8-bom')
      refuse(`The file begins with a UTF-8 BOM but is not UTF-8. ${EXPECTED_ENCODINGS}`)
    if (this.sawUtf8 || hasUtf8Sequence(whole))
      refuse(`The file mixes UTF-8 with another encoding. ${EXPECTED_ENCODINGS}`)
    // Nothing but ASCII so far, which Windows-1252 reads the same: the rest is Windows-1252.
    this.encoding = 'windows-1252'
    this.carry = Buffer.alloc(0)
    return windows1252(bytes)
  }
}

const cp1252 = new TextDecoder('windows-1252')

function windows1252(bytes: Buffer): string {
  for (const byte of bytes) {
    if (UNDEFINED_IN_1252.has(byte)) {
      refuse(`The file is not UTF-8, and not Windows-1252 either (byte 0x${byte.toString(16)}). ${EXPECTED_ENCODINGS}`)
    }
  }
  return cp1252.decode(bytes)
}
