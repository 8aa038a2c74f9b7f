import type { Selectable } from 'kysely'
import type { DataImportTable, Db } from '../../platform/data/database.js'
import type { KeyOwner } from '../../platform/security/api-key-repo.js'
import { API_PREFIX } from '../../platform/http/platform.js'
import { formatTimestamp, type Clock } from '../../platform/data/time.js'
import type { DuplicateRule, ImportView } from '@leadline/shared/import-schema'

export type ImportRow = Selectable<DataImportTable>
export type ImportCounts = ImportView['counts']
export type ImportCheck = NonNullable<ImportView['check']>

export const NO_COUNTS: ImportCounts = { created: 0, updated: 0, contacts_created: 0, skipped: 0, failed: 0 }
export const DEFAULT_DUPLICATE_RULE: DuplicateRule = { match: 'email', action: 'skip' }

/**
 * The imports a caller may see: a member their own, an admin every one of the organization's. Another
 * organization's, a colleague's to a member, or one still streaming in, are not there (a 404, never a 403).
 */
export function visibleImports(db: Db, me: KeyOwner) {
  const mine = db
    .selectFrom('data_import')
    .selectAll()
    .where('organization_id', '=', me.organizationId)
    .where('status', '!=', 'uploading')
  return me.role === 'admin' ? mine : mine.where('created_by', '=', me.userId)
}

export async function findVisibleImport(db: Db, me: KeyOwner, id: string): Promise<ImportRow | undefined> {
  return visibleImports(db, me).where('id', '=', id).executeTakeFirst()
}

export function failedRowsPath(id: string): string {
  return `${API_PREFIX}/import/${id}/failed_rows/`
}

/** Which pass's failed rows the failed-rows CSV serves: the run's once it ran, else the dry run's. */
export function failedPass(row: ImportRow): 'run' | 'check' {
  return ['running', 'done', 'error', 'undoing', 'undone'].includes(row.status) ? 'run' : 'check'
}

export function importView(row: ImportRow): ImportView {
  const check = row.check_result === null ? null : (JSON.parse(row.check_result) as ImportCheck)
  const counts = JSON.parse(row.counts) as ImportCounts
  const failed = failedPass(row) === 'run' ? counts.failed : (check?.rows_failed ?? 0)
  return {
    id: row.id,
    organization_id: row.organization_id,
    created_by: row.created_by,
    filename: row.filename,
    size: Number(row.size),
    encoding: row.encoding,
    delimiter: row.delimiter,
    columns: JSON.parse(row.columns) as string[],
    preview: JSON.parse(row.preview) as string[][],
    n_rows: row.n_rows,
    mapping: JSON.parse(row.mapping) as Record<string, string>,
    duplicate_rule: JSON.parse(row.duplicate_rule) as DuplicateRule,
    status: row.status === 'uploading' ? 'uploaded' : row.status,
    progress: { rows_done: row.rows_done, rows_total: row.n_rows },
    check,
    counts,
    failed_rows_url: failed > 0 ? failedRowsPath(row.id) : null,
    error: row.error,
    date_created: row.date_created,
    date_updated: row.date_updated,
  }
}

/**
 * Deletes imports (their files and the record of what they changed, so they can no longer be undone) made over
 * `days` days ago, and uploads that never finished streaming in after a day; answers how many.
 */
export async function purgeOldImports(db: Db, clock: Clock, days: number): Promise<number> {
  const now = clock.now().getTime()
  const before = formatTimestamp(new Date(now - days * 86_400_000))
  const abandoned = formatTimestamp(new Date(now - 86_400_000))
  let deleted = 0
  for (;;) {
    const old = await db
      .selectFrom('data_import')
      .select('id')
      .where((eb) =>
        eb.or([
          eb('date_created', '<', before),
          eb.and([eb('status', '=', 'uploading'), eb('date_created', '<', abandoned)]),
        ]),
      )
      .limit(20)
      .execute()
    if (old.length === 0) return deleted
    const ids = old.map((r) => r.id)
    await db.transaction().execute((tx) => deleteImports(tx, ids))
    deleted += ids.length
  }
}

/** Deletes imports with everything stored of them (never what they imported). */
export async function deleteImports(db: Db, ids: string[]): Promise<void> {
  for (const table of [
    'data_import_chunk',
    'data_import_failure',
    'data_import_lead',
    'data_import_change',
    'data_import_added',
  ] as const) {
    await db.deleteFrom(table).where('import_id', 'in', ids).execute()
  }
  await db.deleteFrom('data_import').where('id', 'in', ids).execute()
}
