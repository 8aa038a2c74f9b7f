import type { LeadStatus, OpportunityStatus, OpportunityStatusType } from '@leadline/shared/status-schema'
import type { Db, Dialect, LeadStatusTable, OpportunityStatusTable, Tx } from '../../platform/data/database.js'
import type { EventAction, EventInput } from '../../integrations/events/event-repo.js'
import { newId } from '../../platform/security/ids.js'
import { nameTaken, nextPosition } from '../ordered-lists.js'
import { findInOrganization } from '../../platform/data/find-or-404.js'

type Queryable = Db | Tx

export function leadStatusView(row: Pick<LeadStatusTable, 'id' | 'label' | 'organization_id'>): LeadStatus {
  return { id: row.id, label: row.label, organization_id: row.organization_id }
}

export function opportunityStatusView(
  row: Pick<OpportunityStatusTable, 'id' | 'label' | 'type' | 'pipeline_id' | 'organization_id'>,
): OpportunityStatus {
  return {
    id: row.id,
    label: row.label,
    type: row.type,
    pipeline_id: row.pipeline_id,
    organization_id: row.organization_id,
  }
}

/** A status's event (`status.lead`, `status.opportunity`): organization-wide, under no lead. */
export function statusEvent(kind: 'lead' | 'opportunity', data: { id: string }, action: EventAction): EventInput {
  return { objectType: `status.${kind}`, objectId: data.id, action, leadId: null, data }
}

/**
 * Serializes the status writes of one organization, so that two concurrent requests cannot both pass the label
 * uniqueness or the last-status checks. SQLite needs nothing: Kysely runs its transactions one at a time.
 */
export async function lockOrganizationStatuses(tx: Tx, dialect: Dialect, organizationId: string): Promise<void> {
  if (dialect !== 'postgres') return
  await tx.selectFrom('organization').select('id').where('id', '=', organizationId).forUpdate().executeTakeFirst()
}

/** How many leads (or opportunities) are in a status: deleting it is refused while any is. */
export async function statusUsage(
  db: Queryable,
  organizationId: string,
  statusId: string,
  holders: 'lead' | 'opportunity' = 'lead',
): Promise<number> {
  const row = await db
    .selectFrom(holders)
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .where('organization_id', '=', organizationId)
    .where('status_id', '=', statusId)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

// --- lead statuses ---

export function leadStatusesQuery(db: Queryable, organizationId: string) {
  return db
    .selectFrom('lead_status')
    .select(['id', 'label', 'organization_id'])
    .where('organization_id', '=', organizationId)
    .orderBy('position')
    .orderBy('id')
}

export async function findLeadStatus(db: Queryable, organizationId: string, id: string) {
  return findInOrganization(db, 'lead_status', organizationId, id)
}

/** Whether another lead status of the organization already has this label, ignoring case. */
export async function leadStatusLabelTaken(
  db: Queryable,
  organizationId: string,
  label: string,
  exceptId?: string,
): Promise<boolean> {
  return nameTaken(db, 'lead_status', 'label', { organization_id: organizationId }, label, exceptId)
}

/** Adds a lead status after the last one. */
export async function insertLeadStatus(
  db: Queryable,
  input: { organizationId: string; label: string; now: string },
): Promise<string> {
  const position = await nextPosition(db, 'lead_status', { organization_id: input.organizationId })
  const id = newId('status')
  await db
    .insertInto('lead_status')
    .values({
      id,
      organization_id: input.organizationId,
      label: input.label,
      position,
      date_created: input.now,
      date_updated: input.now,
    })
    .execute()
  return id
}

export async function renameLeadStatus(
  db: Queryable,
  organizationId: string,
  id: string,
  input: { label: string; now: string },
): Promise<void> {
  await db
    .updateTable('lead_status')
    .set({ label: input.label, date_updated: input.now })
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .execute()
}

export async function deleteLeadStatus(db: Queryable, organizationId: string, id: string): Promise<void> {
  await db.deleteFrom('lead_status').where('organization_id', '=', organizationId).where('id', '=', id).execute()
}

// --- opportunity statuses ---

export function opportunityStatusesQuery(db: Queryable, organizationId: string) {
  return db
    .selectFrom('opportunity_status')
    .innerJoin('pipeline', 'pipeline.id', 'opportunity_status.pipeline_id')
    .select([
      'opportunity_status.id',
      'opportunity_status.label',
      'opportunity_status.type',
      'opportunity_status.pipeline_id',
      'opportunity_status.organization_id',
    ])
    .where('opportunity_status.organization_id', '=', organizationId)
    .orderBy('pipeline.position')
    .orderBy('pipeline.id')
    .orderBy('opportunity_status.position')
    .orderBy('opportunity_status.id')
}

export async function findOpportunityStatus(db: Queryable, organizationId: string, id: string) {
  return findInOrganization(db, 'opportunity_status', organizationId, id)
}

/** Whether another status of the pipeline already has this label, ignoring case. */
export async function opportunityStatusLabelTaken(
  db: Queryable,
  pipelineId: string,
  label: string,
  exceptId?: string,
): Promise<boolean> {
  return nameTaken(db, 'opportunity_status', 'label', { pipeline_id: pipelineId }, label, exceptId)
}

/** The position after the last status of a pipeline. */
export async function nextStatusPosition(db: Queryable, pipelineId: string): Promise<number> {
  return nextPosition(db, 'opportunity_status', { pipeline_id: pipelineId })
}

/** Adds an opportunity status after the last one of its pipeline. */
export async function insertOpportunityStatus(
  db: Queryable,
  input: { organizationId: string; pipelineId: string; label: string; type: OpportunityStatusType; now: string },
): Promise<string> {
  const id = newId('status')
  await db
    .insertInto('opportunity_status')
    .values({
      id,
      organization_id: input.organizationId,
      pipeline_id: input.pipelineId,
      label: input.label,
      type: input.type,
      position: await nextStatusPosition(db, input.pipelineId),
      date_created: input.now,
      date_updated: input.now,
    })
    .execute()
  return id
}

/** Changes a status; `pipelineId` and `position` together move it (within its pipeline or to another). */
export async function updateOpportunityStatus(
  db: Queryable,
  organizationId: string,
  id: string,
  input: { label?: string; type?: OpportunityStatusType; pipelineId?: string; position?: number; now: string },
): Promise<void> {
  await db
    .updateTable('opportunity_status')
    .set({
      ...(input.label === undefined ? {} : { label: input.label }),
      ...(input.type === undefined ? {} : { type: input.type }),
      ...(input.pipelineId === undefined ? {} : { pipeline_id: input.pipelineId }),
      ...(input.position === undefined ? {} : { position: input.position }),
      date_updated: input.now,
    })
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .execute()
}

export async function deleteOpportunityStatus(db: Queryable, organizationId: string, id: string): Promise<void> {
  await db.deleteFrom('opportunity_status').where('organization_id', '=', organizationId).where('id', '=', id).execute()
}
