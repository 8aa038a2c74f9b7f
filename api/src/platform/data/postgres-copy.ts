import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely'
import type pg from 'pg'
import { from as copyFrom } from 'pg-copy-streams'

// Postgres's COPY for bulk writes (decision 0086). Kysely speaks to a pool client through `query(sql, parameters)`
// only, and COPY needs the client itself (its rows go as a stream, not as parameters). So the pool Kysely is given
// hands out clients whose `query` recognizes a `CopyRows` parameter: such a query is a `COPY … FROM STDIN`, and its
// rows are encoded and streamed on the same client, inside whatever transaction that client is in. Every other
// query goes to the client unchanged.

/** The rows a `COPY … FROM STDIN` statement reads, flat: one value per column, row after row (as `FlatRows`). */
export class CopyRows {
  constructor(
    readonly width: number,
    readonly values: readonly unknown[],
  ) {}
}

/** Characters COPY's text format escapes in a value (a backslash, and the row and column separators). */
const SPECIAL = /[\\\n\r\t]/
const SPECIALS = /[\\\n\r\t]/g
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' }

/** One value in COPY's text format: `\N` for null, a string's separators escaped, numbers and booleans as text. */
export function copyText(value: unknown): string {
  if (value === null || value === undefined) return '\\N'
  if (typeof value === 'string') return SPECIAL.test(value) ? value.replace(SPECIALS, (c) => ESCAPES[c] ?? c) : value
  if (typeof value === 'number' || typeof value === 'bigint') return String(value)
  if (typeof value === 'boolean') return value ? 't' : 'f'
  if (value instanceof Date) return value.toISOString()
  // The bulk writers store text, numbers and flags only (there are no array or JSON columns): anything else is a
  // mistake in the caller, not something to guess a form for.
  throw new TypeError(`COPY cannot write a value of type ${typeof value}`)
}

/** About how much text each of the stream's writes carries. */
const CHUNK_CHARS = 64 * 1024

/** The rows as COPY's text, in chunks of about CHUNK_CHARS characters. */
function* copyChunks({ width, values }: CopyRows): Generator<string> {
  let chunk = ''
  for (let at = 0; at < values.length; at += width) {
    let line = copyText(values[at])
    for (let column = 1; column < width; column += 1) line += `\t${copyText(values[at + column])}`
    chunk += `${line}\n`
    if (chunk.length >= CHUNK_CHARS) {
      yield chunk
      chunk = ''
    }
  }
  if (chunk !== '') yield chunk
}

async function copyInto(client: pg.PoolClient, text: string, rows: CopyRows): Promise<PostgresQueryResult<never>> {
  if (rows.width < 1 || rows.values.length % rows.width !== 0)
    throw new RangeError(`COPY rows of ${String(rows.width)} columns cannot hold ${String(rows.values.length)} values`)
  const stream = client.query(copyFrom(text))
  await pipeline(Readable.from(copyChunks(rows)), stream)
  return { command: 'COPY' as PostgresQueryResult<never>['command'], rowCount: stream.rowCount, rows: [] }
}

/**
 * The pool Kysely is given on Postgres: `pool`'s clients, each behind one wrapper (Kysely keeps a connection per
 * client object) whose `query` runs a `CopyRows` parameter as a COPY on that client.
 */
export function copyingPool(pool: pg.Pool): PostgresPool {
  const wrappers = new WeakMap<pg.PoolClient, PostgresPoolClient>()
  return {
    async connect() {
      const client = await pool.connect()
      let wrapper = wrappers.get(client)
      if (wrapper === undefined) {
        const query = (compiled: unknown, parameters?: readonly unknown[]) => {
          const rows = parameters?.[0]
          if (rows instanceof CopyRows && typeof compiled === 'string') return copyInto(client, compiled, rows)
          return client.query(compiled as string, parameters as unknown[])
        }
        wrapper = {
          query,
          release: () => {
            client.release()
          },
        } as unknown as PostgresPoolClient
        wrappers.set(client, wrapper)
      }
      return wrapper
    },
    end: () => pool.end(),
  }
}
