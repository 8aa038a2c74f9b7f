/** Groups rows by a key, keeping their order. */
export function groupBy<T, K>(rows: readonly T[], key: (row: T) => K): Map<K, T[]> {
  const map = new Map<K, T[]>()
  for (const row of rows) {
    const list = map.get(key(row))
    if (list === undefined) map.set(key(row), [row])
    else list.push(row)
  }
  return map
}

/** How many ids one `in (…)` list takes: SQLite allows a few thousand bound values a statement. */
export const ID_CHUNK = 500

/** Reads rows for many ids, `ID_CHUNK` ids a query, keeping the order of the parts. */
export async function readInChunks<I, R>(ids: readonly I[], read: (part: I[]) => Promise<R[]>): Promise<R[]> {
  const rows: R[] = []
  for (let i = 0; i < ids.length; i += ID_CHUNK) rows.push(...(await read(ids.slice(i, i + ID_CHUNK))))
  return rows
}
