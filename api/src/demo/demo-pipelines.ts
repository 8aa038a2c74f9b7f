import type { Db } from '../db/database.js'
import { newId } from '../platform/ids.js'

type StatusType = 'active' | 'won' | 'lost'

/** The demo's pipelines, in order, each with its statuses in order. */
export const DEMO_PIPELINES: readonly { name: string; statuses: readonly { label: string; type: StatusType }[] }[] = [
  {
    name: 'Sales',
    statuses: [
      { label: 'Qualification', type: 'active' },
      { label: 'Demo', type: 'active' },
      { label: 'Proposal', type: 'active' },
      { label: 'Negotiation', type: 'active' },
      { label: 'Won', type: 'won' },
      { label: 'Lost', type: 'lost' },
    ],
  },
  {
    name: 'Renewals',
    statuses: [
      { label: 'Upcoming', type: 'active' },
      { label: 'In review', type: 'active' },
      { label: 'Renewed', type: 'won' },
      { label: 'Churned', type: 'lost' },
    ],
  },
]

/**
 * Gives a new organization the demo's pipelines. The pipelines it has are taken in order (a new organization has
 * the default one) and renamed, and their statuses relabelled and reordered, each reused for a demo status of its
 * type; the rest are added. Nothing is left empty or deleted.
 */
export async function setUpDemoPipelines(db: Db, organizationId: string, now: string): Promise<void> {
  const [pipelines, statuses] = await Promise.all([
    db
      .selectFrom('pipeline')
      .select('id')
      .where('organization_id', '=', organizationId)
      .orderBy('position')
      .orderBy('id')
      .execute(),
    db
      .selectFrom('opportunity_status')
      .select(['id', 'pipeline_id', 'type'])
      .where('organization_id', '=', organizationId)
      .orderBy('position')
      .orderBy('id')
      .execute(),
  ])
  for (const [position, wanted] of DEMO_PIPELINES.entries()) {
    const pipelineId = pipelines[position]?.id ?? newId('pipeline')
    if (pipelines[position] === undefined) {
      await db
        .insertInto('pipeline')
        .values({
          id: pipelineId,
          organization_id: organizationId,
          name: wanted.name,
          position,
          date_created: now,
          date_updated: now,
        })
        .execute()
    } else {
      await db
        .updateTable('pipeline')
        .set({ name: wanted.name, position, date_updated: now })
        .where('organization_id', '=', organizationId)
        .where('id', '=', pipelineId)
        .execute()
    }
    const unused = statuses.filter((s) => s.pipeline_id === pipelineId)
    for (const [statusPosition, status] of wanted.statuses.entries()) {
      const reused = unused.findIndex((s) => s.type === status.type)
      const [existing] = reused < 0 ? [] : unused.splice(reused, 1)
      if (existing === undefined) {
        await db
          .insertInto('opportunity_status')
          .values({
            id: newId('status'),
            organization_id: organizationId,
            pipeline_id: pipelineId,
            label: status.label,
            type: status.type,
            position: statusPosition,
            date_created: now,
            date_updated: now,
          })
          .execute()
      } else {
        await db
          .updateTable('opportunity_status')
          .set({ label: status.label, position: statusPosition, date_updated: now })
          .where('organization_id', '=', organizationId)
          .where('id', '=', existing.id)
          .execute()
      }
    }
    // Statuses of no use to the demo keep their order, after its own.
    for (const [n, status] of unused.entries()) {
      await db
        .updateTable('opportunity_status')
        .set({ position: wanted.statuses.length + n, date_updated: now })
        .where('organization_id', '=', organizationId)
        .where('id', '=', status.id)
        .execute()
    }
  }
}
