import type { Pipeline } from '@leadline/shared/pipeline-schema'
import type { OpportunityStatus } from '@leadline/shared/status-schema'
import type { Db, PipelineTable, Tx } from '../../platform/data/database.js'
import { groupBy } from '../../platform/data/collections.js'
import { newId } from '../../platform/security/ids.js'
import { nameTaken, nextPosition } from '../ordered-lists.js'
import { opportunityStatusView } from '../statuses/status-repo.js'
import { userNames } from '../users/user-names.js'
import { createdStamps } from '../../platform/data/stamps.js'

type Queryable = Db | Tx
type PipelineRow = Pick<
  PipelineTable,
  'id' | 'name' | 'organization_id' | 'created_by' | 'updated_by' | 'date_created' | 'date_updated'
>

const pipelineColumns = [
  'id',
  'name',
  'organization_id',
  'created_by',
  'updated_by',
  'date_created',
  'date_updated',
] as const

/** The organization's pipelines, in order. */
export function pipelinesQuery(db: Queryable, organizationId: string) {
  return db
    .selectFrom('pipeline')
    .select(pipelineColumns)
    .where('organization_id', '=', organizationId)
    .orderBy('position')
    .orderBy('id')
}

export async function findPipeline(
  db: Queryable,
  organizationId: string,
  id: string,
): Promise<PipelineRow | undefined> {
  return db
    .selectFrom('pipeline')
    .select(pipelineColumns)
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst()
}

/** The organization's first pipeline (lowest position), where statuses created without `pipeline_id` go. */
export async function findFirstPipeline(db: Queryable, organizationId: string): Promise<PipelineRow | undefined> {
  return pipelinesQuery(db, organizationId).limit(1).executeTakeFirst()
}

/** The pipelines as the API shows them, each with its statuses in order. */
export async function pipelineViews(db: Queryable, rows: PipelineRow[]): Promise<Pipeline[]> {
  const [first] = rows
  if (first === undefined) return []
  const names = userNames(
    db,
    rows.flatMap((row) => [row.created_by, row.updated_by]),
  )
  const statuses = await db
    .selectFrom('opportunity_status')
    .select(['id', 'label', 'type', 'pipeline_id', 'organization_id'])
    .where('organization_id', '=', first.organization_id)
    .where(
      'pipeline_id',
      'in',
      rows.map((row) => row.id),
    )
    .orderBy('position')
    .orderBy('id')
    .execute()
  const byPipeline = groupBy(statuses.map(opportunityStatusView), (status) => status.pipeline_id)
  const nameOf = await names
  return rows.map((row) => pipelineView(row, byPipeline.get(row.id) ?? [], nameOf))
}

/** One pipeline as the API shows it, or undefined when the organization has no such pipeline. */
export async function findPipelineView(
  db: Queryable,
  organizationId: string,
  id: string,
): Promise<Pipeline | undefined> {
  const row = await findPipeline(db, organizationId, id)
  if (row === undefined) return undefined
  const [view] = await pipelineViews(db, [row])
  return view
}

function pipelineView(row: PipelineRow, statuses: OpportunityStatus[], names: Map<string, string>): Pipeline {
  const nameOf = (id: string | null) => (id === null ? null : (names.get(id) ?? null))
  return {
    id: row.id,
    name: row.name,
    organization_id: row.organization_id,
    statuses,
    created_by: row.created_by,
    created_by_name: nameOf(row.created_by),
    updated_by: row.updated_by,
    updated_by_name: nameOf(row.updated_by),
    date_created: row.date_created,
    date_updated: row.date_updated,
  }
}

/** Whether another pipeline of the organization already has this name, ignoring case. */
export async function pipelineNameTaken(
  db: Queryable,
  organizationId: string,
  name: string,
  exceptId?: string,
): Promise<boolean> {
  return nameTaken(db, 'pipeline', 'name', { organization_id: organizationId }, name, exceptId)
}

/** Adds a pipeline after the organization's others. */
export async function insertPipeline(
  db: Queryable,
  input: { organizationId: string; name: string; userId: string | null; now: string },
): Promise<string> {
  const position = await nextPosition(db, 'pipeline', { organization_id: input.organizationId })
  const id = newId('pipeline')
  await db
    .insertInto('pipeline')
    .values({
      id,
      organization_id: input.organizationId,
      name: input.name,
      position,
      ...createdStamps(input.userId, input.now),
    })
    .execute()
  return id
}

export async function updatePipeline(
  db: Queryable,
  organizationId: string,
  id: string,
  input: { name?: string; userId: string | null; now: string },
): Promise<void> {
  await db
    .updateTable('pipeline')
    .set({
      ...(input.name === undefined ? {} : { name: input.name }),
      updated_by: input.userId,
      date_updated: input.now,
    })
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .execute()
}

/** Marks pipelines whose statuses changed (one moved out of them) as updated, by this user. */
export async function touchPipelines(
  db: Queryable,
  organizationId: string,
  ids: string[],
  change: { userId: string | null; now: string },
): Promise<void> {
  if (ids.length === 0) return
  await db
    .updateTable('pipeline')
    .set({ updated_by: change.userId, date_updated: change.now })
    .where('organization_id', '=', organizationId)
    .where('id', 'in', ids)
    .execute()
}

export async function deletePipeline(db: Queryable, organizationId: string, id: string): Promise<void> {
  await db.deleteFrom('pipeline').where('organization_id', '=', organizationId).where('id', '=', id).execute()
}
