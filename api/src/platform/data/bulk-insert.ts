import { CompiledQuery, SqliteAdapter } from 'kysely'
import type { Db, Tables } from './database.js'
import { CopyRows } from './postgres-copy.js'

// Bulk writes: many rows of one table in as few statements as the database allows, built here rather than by
// Kysely's builder (the demo seed and the CSV import).

/** SQLite's compile-time cap on bound parameters (SQLITE_MAX_VARIABLE_NUMBER, bundled by better-sqlite3). */
const SQLITE_PARAMETERS = 32_766

export function isSqlite(db: Db): boolean {
  return db.getExecutor().adapter instanceof SqliteAdapter
}

/** Rows of one table, flat: `values` holds one value per column, row after row. */
export interface FlatRows {
  columns: string[]
  values: unknown[]
}

/** Rows as `insertRows` takes them; the first row's keys name the columns. */
export function flattenRows(rows: readonly object[]): FlatRows {
  const first = rows[0]
  if (first === undefined) return { columns: [], values: [] }
  const columns = Object.keys(first)
  const values: unknown[] = []
  for (const row of rows) for (const column of columns) values.push(Reflect.get(row, column))
  return { columns, values }
}

/**
 * Inserts rows of one table in as few statements as the database allows. The statements are written here rather
 * than by Kysely's builder, which for a bulk load spends more time building them than the database spends running
 * them; no value is ever SQL text (a bound parameter on SQLite, a COPY row's data on Postgres).
 * SQLite gets multi-row VALUES lists, as long as its cap on parameters allows, and the rows left over in lists of
 * a power of two rows: a handful of statement texts in all, each prepared once (preparing a list of thousands of
 * rows costs milliseconds). `or fail` stops at a row that breaks a constraint without undoing the statement's
 * earlier rows: the error fails the caller's transaction, which undoes them all, and SQLite need not keep a copy of
 * every page the statement changes in case it has to undo it alone. Postgres gets COPY on the transaction's own
 * client (postgres-copy.ts, decision 0086): no parameters to bind and no statement to plan; a row that breaks a
 * constraint fails the whole COPY, and the caller's transaction with it. It fires the tables' insert triggers as an
 * insert does, and fills the columns not named with their defaults.
 */
export async function insertRows(db: Db, table: keyof Tables, { columns, values }: FlatRows): Promise<void> {
  const width = columns.length
  if (width === 0 || values.length === 0) return
  const target = `${quote(table)} (${columns.map(quote).join(', ')})`
  if (!isSqlite(db)) {
    await db.executeQuery(CompiledQuery.raw(`copy ${target} from stdin`, [new CopyRows(width, values)]))
    return
  }
  const into = `into ${target} `
  const fullList = Math.max(1, Math.floor(SQLITE_PARAMETERS / width))
  const tuple = `(${columns.map(() => '?').join(', ')})`
  const rows = values.length / width
  for (let start = 0; start < rows;) {
    const left = rows - start
    const count = left >= fullList ? fullList : 2 ** Math.floor(Math.log2(left))
    const tuples = Array.from({ length: count }, () => tuple).join(', ')
    const parameters = values.slice(start * width, (start + count) * width)
    await db.executeQuery(CompiledQuery.raw(`insert or fail ${into}values ${tuples}`, parameters))
    start += count
  }
}

/**
 * Inserts rows of one table in a single statement whatever their number, for a table whose inserts cost something per
 * statement. SQLite's trigram index (FTS5) writes what it holds as a segment of its own at the end of every statement
 * that adds to it, to be merged again later: `insertRows`' several statements (lists of a power of two rows) made six
 * segments of a batch of 500 search rows, and 500-row batches took 18.4 s against 8.2 s in one statement
 * (40,000 search rows, decision 0097). The rows go as one JSON array, read back by `json_each` (one statement text,
 * prepared once). Only text, numbers and nulls: JSON has no blobs. Every string is stored as the same bytes a bound one
 * is, lone surrogates and NULs included (JSON escapes them; SQLite decodes them as it encodes a bound string).
 * Postgres: `insertRows`' COPY, one statement already.
 */
export async function insertRowsInOneStatement(db: Db, table: keyof Tables, rows: FlatRows): Promise<void> {
  const { columns, values } = rows
  const width = columns.length
  if (width === 0 || values.length === 0) return
  if (!isSqlite(db)) {
    await insertRows(db, table, rows)
    return
  }
  const tuples: unknown[][] = []
  for (let start = 0; start < values.length; start += width) {
    const tuple = values.slice(start, start + width)
    for (const [at, value] of tuple.entries()) {
      if (value !== null && typeof value !== 'string' && typeof value !== 'number')
        throw new Error(`${table}.${columns[at] ?? ''}: only text, numbers and nulls go as JSON`)
    }
    tuples.push(tuple)
  }
  const picks = columns.map((_, at) => `value ->> ${String(at)}`).join(', ')
  await db.executeQuery(
    CompiledQuery.raw(
      `insert or fail into ${quote(table)} (${columns.map(quote).join(', ')}) select ${picks} from json_each(?)`,
      [JSON.stringify(tuples)],
    ),
  )
}

export function quote(identifier: string): string {
  return `"${identifier.replaceAll('"', '""')}"`
}
