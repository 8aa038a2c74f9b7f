import { sql } from 'kysely'
import type { Db } from '../../platform/data/database.js'

// Rows that change on any request, refused or not, by design: request counters and who is online.
const VOLATILE_TABLES = new Set(['rate_limit_lease', 'rate_limit_counter', 'user_presence', 'kysely_migration'])

let tableNames: string[] | undefined

/**
 * Everything stored, table by table, as text that compares equal exactly when nothing was added, changed or
 * removed: what the security suites take before and after a request that must store nothing.
 */
export async function dataSnapshot(db: Db): Promise<Map<string, string>> {
  tableNames ??= (await db.introspection.getTables()).map((t) => t.name).filter((name) => !isVolatile(name))
  const tables = await Promise.all(
    tableNames.map(async (table) => {
      const rows = await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(db)
      return [
        table,
        rows.rows
          .map((row) => JSON.stringify(row, plain))
          .sort()
          .join('\n'),
      ] as const
    }),
  )
  return new Map(tables)
}

function isVolatile(table: string): boolean {
  return VOLATILE_TABLES.has(table) || table.startsWith('kysely_') || table.startsWith('lead_search_fts')
}

function plain(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString()
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64')
  return value
}

/** The tables whose rows differ between two snapshots, each with a short account of how. */
export function snapshotChanges(before: Map<string, string>, after: Map<string, string>): string[] {
  const changes: string[] = []
  for (const table of new Set([...before.keys(), ...after.keys()])) {
    const a = before.get(table) ?? ''
    const b = after.get(table) ?? ''
    if (a === b) continue
    const gone = a.split('\n').filter((row) => row !== '' && !b.includes(row))
    const added = b.split('\n').filter((row) => row !== '' && !a.includes(row))
    changes.push(
      `${table}: -${gone.length} +${added.length} ${added[0]?.slice(0, 300) ?? gone[0]?.slice(0, 300) ?? ''}`,
    )
  }
  return changes
}
