import { gunzipSync, gzipSync } from 'node:zlib'
import { StringDecoder } from 'node:string_decoder'
import { parse, type Options as ParseOptions } from 'csv-parse'
import { IMPORT_LIMITS, type ImportEncoding } from '@leadline/shared/import-schema'
import type { Db } from '../../platform/data/database.js'
import { bytesText } from '../../platform/text/text.js'
import { HttpError, ValidationError } from '../../platform/http/errors.js'
import { UploadDecoder } from './import-decode.js'

// An import's file (decision 0053): read as it streams in, decoded to UTF-8 and stored in gzip chunks of the
// database (each one a gzip member of its own, so any chunk is read alone), and read back the same way, a chunk at a
// time, by the job. Only the header, the first rows and a count are kept while it streams; never the whole file.

/** UTF-8 bytes of text one chunk row holds, before gzip. */
export const IMPORT_CHUNK_TEXT_BYTES = 2 * 1024 * 1024
/** The longest first line (the header) a file may have, in characters. */
const HEADER_LINE_MAX = IMPORT_LIMITS.columns * (IMPORT_LIMITS.headerChars + 3)
export const DELIMITERS = [',', ';', '\t', '|'] as const

export interface ReceivedFile {
  size: number
  encoding: ImportEncoding
  delimiter: string
  columns: string[]
  preview: string[][]
  nRows: number
}

function refuse(message: string): never {
  throw ValidationError.field('file', message)
}

/** The delimiter the header line uses most, outside quotes; a comma when it has none (a file of one column). */
export function detectDelimiter(line: string): string {
  const counts = new Map<string, number>(DELIMITERS.map((d) => [d, 0]))
  let quoted = false
  for (const c of line) {
    if (c === '"') quoted = !quoted
    else if (!quoted && counts.has(c)) counts.set(c, (counts.get(c) ?? 0) + 1)
  }
  let best = ','
  for (const d of DELIMITERS) if ((counts.get(d) ?? 0) > (counts.get(best) ?? 0)) best = d
  return best
}

/** The header as columns: an empty cell is `Column N`, a repeated name `Name (2)`; too many or too long is a 400. */
export function headerColumns(cells: readonly string[]): string[] {
  if (cells.length > IMPORT_LIMITS.columns) {
    refuse(`The file has ${String(cells.length)} columns; at most ${String(IMPORT_LIMITS.columns)} are taken.`)
  }
  const long = cells.findIndex((c) => c.length > IMPORT_LIMITS.headerChars)
  if (long >= 0) {
    refuse(
      `Column ${String(long + 1)}'s header is over ${String(IMPORT_LIMITS.headerChars)} characters: is the first line a header?`,
    )
  }
  const names = cells.map((c, i) => (c.trim() === '' ? `Column ${String(i + 1)}` : c.trim()))
  const taken = new Set<string>()
  return names.map((name) => {
    let unique = name
    for (let n = 2; taken.has(unique); n += 1) unique = `${name} (${String(n)})`
    taken.add(unique)
    return unique
  })
}

/** The most characters one row may hold: csv-parse buffers a row whole, so a quote never closed stops here. */
export const IMPORT_RECORD_MAX = 1024 * 1024

/** How csv-parse reads an import's text: rows of any length (a ragged row is a row problem), blank lines skipped. */
export function parseOptions(delimiter: string): ParseOptions {
  return {
    delimiter,
    relax_column_count: true,
    relax_quotes: true,
    skip_empty_lines: true,
    bom: false,
    max_record_size: IMPORT_RECORD_MAX,
  }
}

function parseRefusal(error: unknown): never {
  refuse(`The file is not a CSV that can be read: ${error instanceof Error ? error.message : String(error)}.`)
}

/**
 * Reads an upload to its end: decodes it, stores it in chunks of `importId`, and answers what it found. Throws a
 * ValidationError on `file` (or a 413) when it is refused; the caller deletes what was stored.
 */
export async function receiveFile(
  db: Db,
  target: { importId: string; organizationId: string },
  body: AsyncIterable<Buffer | string>,
  maxBytes: number,
): Promise<ReceivedFile> {
  const decoder = new UploadDecoder()
  let size = 0
  let seq = 0
  let pending: Buffer[] = []
  let pendingBytes = 0
  const store = async (all: boolean) => {
    if (pendingBytes < IMPORT_CHUNK_TEXT_BYTES && !(all && pendingBytes > 0)) return
    const text = Buffer.concat(pending)
    pending = []
    pendingBytes = 0
    await db
      .insertInto('data_import_chunk')
      .values({
        import_id: target.importId,
        organization_id: target.organizationId,
        seq,
        // The fastest level: the upload waits on it, and the chunk is kept only until the import is purged (2 MB of
        // CSV in 6 ms against 14–21 ms at the default level, for 15% more bytes).
        content: gzipSync(text, { level: 1 }).toString('base64'),
      })
      .execute()
    seq += 1
  }

  // What the scan found so far; an object, so that what its callbacks change is read afresh after each step.
  const scan: {
    firstLine: string | undefined
    delimiter: string
    columns: string[] | undefined
    preview: string[][]
    nRows: number
    failure: Error | undefined
    sawText: boolean
    csv: ReturnType<typeof parse> | undefined
    ended: Promise<void>
  } = {
    firstLine: '',
    delimiter: ',',
    columns: undefined,
    preview: [],
    nRows: 0,
    failure: undefined,
    sawText: false,
    csv: undefined,
    ended: Promise.resolve(),
  }
  const parsed = (record: string[]) => {
    if (scan.failure !== undefined) return
    if (scan.columns === undefined) {
      try {
        scan.columns = headerColumns(record)
      } catch (error) {
        scan.failure = error instanceof Error ? error : new Error(String(error))
      }
      return
    }
    scan.nRows += 1
    if (scan.preview.length < IMPORT_LIMITS.previewRows) scan.preview.push(record)
  }
  const startParser = (line: string) => {
    scan.delimiter = detectDelimiter(line)
    const csv = parse(parseOptions(scan.delimiter))
    csv.on('data', parsed)
    scan.csv = csv
    scan.ended = new Promise<void>((resolve) => {
      csv.on('end', resolve)
      csv.on('error', (error) => {
        scan.failure ??= error
        resolve()
      })
    })
  }
  const feed = async (decoded: string) => {
    if (decoded === '') return
    let text = decoded
    if (!scan.sawText && text.trim() !== '') scan.sawText = true
    const bytes = Buffer.from(text, 'utf8')
    pending.push(bytes)
    pendingBytes += bytes.length
    if (scan.firstLine !== undefined) {
      const head = scan.firstLine + text
      const newline = head.search(/\r|\n/)
      if (newline < 0 && head.length <= HEADER_LINE_MAX) {
        scan.firstLine = head
        return
      }
      const line = newline < 0 ? head : head.slice(0, newline)
      if (line.length > HEADER_LINE_MAX) refuse('The first line is too long to be a header.')
      startParser(line)
      text = head
      scan.firstLine = undefined
    }
    scan.csv?.write(text)
    if (scan.failure !== undefined) throw scan.failure
    await store(false)
  }

  for await (const piece of body) {
    const chunk = typeof piece === 'string' ? Buffer.from(piece) : piece
    size += chunk.length
    if (size > maxBytes) {
      throw new HttpError(413, `The file is larger than ${bytesText(maxBytes)} (LEADLINE_IMPORT_MAX_BYTES).`)
    }
    await feed(decoder.write(chunk))
  }
  if (size === 0) refuse('The file is empty.')
  await feed(decoder.end())
  if (!scan.sawText) refuse('The file is empty.')
  if (scan.firstLine !== undefined) {
    startParser(scan.firstLine)
    scan.csv?.write(scan.firstLine)
  }
  scan.csv?.end()
  await scan.ended
  if (scan.failure !== undefined) {
    if (scan.failure instanceof ValidationError) throw scan.failure
    parseRefusal(scan.failure)
  }
  const { columns, preview, nRows, delimiter } = scan
  if (columns === undefined || nRows === 0) refuse('The file has a header but no data rows.')
  await store(true)
  return { size, encoding: decoder.encoding ?? 'utf-8', delimiter, columns, preview, nRows }
}

/** An import's stored text, a chunk at a time, in order. */
export async function* importText(db: Db, importId: string): AsyncGenerator<string> {
  const decoder = new StringDecoder('utf8')
  for (let seq = 0; ; seq += 1) {
    const chunk = await db
      .selectFrom('data_import_chunk')
      .select('content')
      .where('import_id', '=', importId)
      .where('seq', '=', seq)
      .executeTakeFirst()
    if (chunk === undefined) break
    yield decoder.write(gunzipSync(Buffer.from(chunk.content, 'base64')))
  }
  const rest = decoder.end()
  if (rest !== '') yield rest
}

/** Characters of text written to the CSV parser at a time. */
const CSV_FEED_CHARS = 64 * 1024

/** Where the slice of `text` written from `at` ends: CSV_FEED_CHARS on, or one sooner not to split a surrogate pair. */
function feedEnd(text: string, at: number): number {
  const end = Math.min(text.length, at + CSV_FEED_CHARS)
  const last = text.charCodeAt(end - 1)
  return end < text.length && last >= 0xd800 && last <= 0xdbff ? end - 1 : end
}

/** An import's data rows, from row 1 (the header skipped), each with its number. */
export async function* importRows(
  db: Db,
  importId: string,
  delimiter: string,
): AsyncGenerator<{ row: number; cells: string[] }> {
  const text = importText(db, importId)
  const parser = parse(parseOptions(delimiter))
  const feeding = (async () => {
    for await (const part of text) {
      // In slices, so that the parser's backpressure holds: a chunk written whole (2 MB) is parsed whole, its 13,000
      // rows held at once. A slice never ends between the two halves of a character past U+FFFF: the parser takes
      // each string as UTF-8, and half a pair would come out as U+FFFD.
      for (let at = 0; at < part.length;) {
        const end = feedEnd(part, at)
        if (!parser.write(part.slice(at, end))) await new Promise((resolve) => parser.once('drain', resolve))
        at = end
      }
    }
    parser.end()
  })().catch((error: unknown) => {
    // The text could not be read (a stored chunk that does not decode, a failed read): the rows end with the error.
    parser.destroy(error instanceof Error ? error : new Error(String(error)))
  })
  let row = -1
  for await (const record of parser as AsyncIterable<string[]>) {
    row += 1
    if (row === 0) continue
    yield { row, cells: record }
  }
  await feeding
}
