import type { Db, Tx } from '../../platform/data/database.js'
import { newId } from '../../platform/security/ids.js'
import { createdStamps } from '../../platform/data/stamps.js'
import { formatTimestamp, type Clock } from '../../platform/data/time.js'

export const DEFAULT_LEAD_STATUSES = ['Potential', 'Bad Fit', 'Qualified', 'Customer']
export const DEFAULT_PIPELINE_NAME = 'Sales'
export const DEFAULT_OPPORTUNITY_STATUSES = [
  { label: 'Active', type: 'active' },
  { label: 'Won', type: 'won' },
  { label: 'Lost', type: 'lost' },
] as const

export interface NewOrganization {
  name: string
  currency?: string
  country?: string
  createdBy?: string | null
}

/** Creates an organization with the default lead statuses and a default pipeline with Active/Won/Lost. */
export async function createOrganization(tx: Db | Tx, clock: Clock, input: NewOrganization): Promise<string> {
  const now = formatTimestamp(clock.now())
  const id = newId('organization')
  await tx
    .insertInto('organization')
    .values({
      id,
      name: input.name,
      currency: input.currency ?? 'USD',
      country: input.country ?? 'US',
      ...createdStamps(input.createdBy ?? null, now),
    })
    .execute()
  await tx
    .insertInto('lead_status')
    .values(
      DEFAULT_LEAD_STATUSES.map((label, position) => ({
        id: newId('status'),
        organization_id: id,
        label,
        position,
        date_created: now,
        date_updated: now,
      })),
    )
    .execute()
  const pipelineId = newId('pipeline')
  await tx
    .insertInto('pipeline')
    .values({
      id: pipelineId,
      organization_id: id,
      name: DEFAULT_PIPELINE_NAME,
      position: 0,
      ...createdStamps(input.createdBy ?? null, now),
    })
    .execute()
  await tx
    .insertInto('opportunity_status')
    .values(
      DEFAULT_OPPORTUNITY_STATUSES.map((status, position) => ({
        id: newId('status'),
        organization_id: id,
        pipeline_id: pipelineId,
        label: status.label,
        type: status.type,
        position,
        date_created: now,
        date_updated: now,
      })),
    )
    .execute()
  return id
}

export async function findOrganization(db: Db | Tx, id: string) {
  return db.selectFrom('organization').selectAll().where('id', '=', id).executeTakeFirst()
}
