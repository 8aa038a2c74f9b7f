import type { OpportunityStatusType } from '@leadline/shared/status-schema'
import type { Db } from '../../platform/data/database.js'
import { insertPipeline, updatePipeline } from '../../crm/pipelines/pipeline-repo.js'
import { insertOpportunityStatus, updateOpportunityStatus } from '../../crm/statuses/status-repo.js'

interface DemoPipeline {
  name: string
  statuses: readonly { label: string; type: OpportunityStatusType }[]
}

/** A pipeline whose active statuses come in order, then one won and one lost. */
function demoPipeline(name: string, active: readonly string[], won: string, lost: string): DemoPipeline {
  return {
    name,
    statuses: [
      ...active.map((label) => ({ label, type: 'active' as const })),
      { label: won, type: 'won' },
      { label: lost, type: 'lost' },
    ],
  }
}

/** The demo's pipelines, in order, each with its statuses in order. */
export const DEMO_PIPELINES: readonly DemoPipeline[] = [
  demoPipeline('Sales', ['Qualification', 'Demo', 'Proposal', 'Negotiation'], 'Won', 'Lost'),
  demoPipeline('Renewals', ['Upcoming', 'In review'], 'Renewed', 'Churned'),
]

/**
 * Gives a new organization the demo's pipelines. The pipelines it has are taken in order (a new organization has
 * the default one) and renamed, and their statuses relabelled and reordered, each reused for a demo status of its
 * type; the rest are added. Nothing is left empty or deleted.
 */
export async function setUpDemoPipelines(
  db: Db,
  organizationId: string,
  change: { userId: string; now: string },
): Promise<void> {
  const { userId, now } = change
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
    const existingPipeline = pipelines[position]?.id
    // A pipeline the organization lacks goes after the others, at this position.
    const pipelineId =
      existingPipeline ?? (await insertPipeline(db, { organizationId, name: wanted.name, userId, now }))
    if (existingPipeline !== undefined)
      await updatePipeline(db, organizationId, pipelineId, { name: wanted.name, userId, now })
    const unused = statuses.filter((s) => s.pipeline_id === pipelineId)
    for (const [statusPosition, status] of wanted.statuses.entries()) {
      const reused = unused.findIndex((s) => s.type === status.type)
      const [existing] = reused < 0 ? [] : unused.splice(reused, 1)
      const statusId =
        existing?.id ??
        (await insertOpportunityStatus(db, { organizationId, pipelineId, label: status.label, type: status.type, now }))
      await updateOpportunityStatus(db, organizationId, statusId, {
        label: status.label,
        position: statusPosition,
        now,
      })
    }
    // Statuses of no use to the demo keep their order, after its own.
    for (const [n, status] of unused.entries()) {
      await updateOpportunityStatus(db, organizationId, status.id, { position: wanted.statuses.length + n, now })
    }
  }
}
