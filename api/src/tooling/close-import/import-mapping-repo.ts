import type { Db } from '../../platform/data/database.js'
import { formatTimestamp, type Clock } from '../../platform/data/time.js'

/** Which source a mapping belongs to, in which organization. */
export interface MappingScope {
  organizationId: string
  /** The source API's base URL. */
  source: string
}

/** The Leadline id a source object became, or undefined when it was never copied. */
export async function findMapping(db: Db, scope: MappingScope, sourceId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('import_mapping')
    .select('target_id')
    .where('organization_id', '=', scope.organizationId)
    .where('source', '=', scope.source)
    .where('source_id', '=', sourceId)
    .executeTakeFirst()
  return row?.target_id
}

/** Records (or moves) what a source object became. */
export async function saveMapping(
  db: Db,
  clock: Clock,
  scope: MappingScope,
  mapping: { sourceId: string; kind: string; targetId: string },
): Promise<void> {
  const now = formatTimestamp(clock.now())
  await db
    .insertInto('import_mapping')
    .values({
      organization_id: scope.organizationId,
      source: scope.source,
      source_id: mapping.sourceId,
      kind: mapping.kind,
      target_id: mapping.targetId,
      date_created: now,
      date_updated: now,
    })
    .onConflict((oc) =>
      oc
        .columns(['organization_id', 'source', 'source_id'])
        .doUpdateSet({ kind: mapping.kind, target_id: mapping.targetId, date_updated: now }),
    )
    .execute()
}
