import type { Selectable } from 'kysely'
import type { DataExportTable, Db } from '../../platform/data/database.js'
import type { KeyOwner } from '../../platform/security/api-key-repo.js'
import { API_PREFIX } from '../../platform/http/platform.js'
import type { Clock } from '../../platform/data/time.js'
import { formatTimestamp } from '../../platform/data/time.js'
import type { ExportView } from '@leadline/shared/export-schema'

export type ExportRow = Selectable<DataExportTable>

/**
 * The exports a caller may see: a member their own, an admin every one of the organization's. Another
 * organization's, or a colleague's to a member, are not there (a 404, never a 403).
 */
export function visibleExports(db: Db, me: KeyOwner) {
  const mine = db.selectFrom('data_export').selectAll().where('organization_id', '=', me.organizationId)
  return me.role === 'admin' ? mine : mine.where('created_by', '=', me.userId)
}

export async function findVisibleExport(db: Db, me: KeyOwner, id: string): Promise<ExportRow | undefined> {
  return visibleExports(db, me).where('id', '=', id).executeTakeFirst()
}

/** Where a done export's file is served: a path below the API, on whatever origin the client reached it. */
export function downloadPath(id: string): string {
  return `${API_PREFIX}/export/${id}/download/`
}

export function exportView(row: ExportRow): ExportView {
  return {
    id: row.id,
    organization_id: row.organization_id,
    created_by: row.created_by,
    object_type: row.object_type,
    format: row.format,
    type: row.type,
    date_format: row.date_format,
    fields: row.fields === null ? null : (JSON.parse(row.fields) as string[]),
    query: row.query,
    params: row.params === null ? null : (JSON.parse(row.params) as Record<string, string>),
    status: row.status,
    n_rows: row.n_rows,
    size: row.size === null ? null : Number(row.size),
    error: row.error,
    download_url: row.status === 'done' ? downloadPath(row.id) : null,
    date_created: row.date_created,
    date_updated: row.date_updated,
  }
}

/** The chunks of an export's file, one read each, in order: a download never holds the whole file. */
export async function* exportChunks(db: Db, row: ExportRow): AsyncGenerator<Buffer> {
  for (let seq = 0; ; seq += 1) {
    const chunk = await db
      .selectFrom('data_export_chunk')
      .select('content')
      .where('export_id', '=', row.id)
      .where('organization_id', '=', row.organization_id)
      .where('seq', '=', seq)
      .executeTakeFirst()
    if (chunk === undefined) return
    yield Buffer.from(chunk.content, 'base64')
  }
}

/** Deletes exports (and so their files) made over `days` days ago; answers how many. */
export async function purgeOldExports(db: Db, clock: Clock, days: number): Promise<number> {
  const before = formatTimestamp(new Date(clock.now().getTime() - days * 86_400_000))
  let deleted = 0
  // A few at a time: each export's file may be many chunks, and a purge must not hold the writer for long.
  for (;;) {
    const old = await db.selectFrom('data_export').select('id').where('date_created', '<', before).limit(20).execute()
    if (old.length === 0) return deleted
    const ids = old.map((r) => r.id)
    await db.transaction().execute(async (tx) => {
      await tx.deleteFrom('data_export_chunk').where('export_id', 'in', ids).execute()
      await tx.deleteFrom('data_export').where('id', 'in', ids).execute()
    })
    deleted += ids.length
  }
}
