import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { leadStatusSchema, opportunityStatusSchema, opportunityStatusTypeSchema } from '@leadline/shared/status-schema'
import type { Deps } from '../deps.js'
import { countInList } from '../ordered-lists.js'
import type { LeadStatusTable, OpportunityStatusTable, Tx } from '../../platform/data/database.js'
import { adminChange, crudSchemas, readRoutes, type Target } from '../../platform/http/crud-routes.js'
import { HttpError, ValidationError } from '../../platform/http/errors.js'
import { callerToday } from '../../platform/http/request-context.js'
import { syncOpportunityDueOfStatus } from '../tasks/task-due.js'
import { dueTasksOfStatuses, taskChangeEvents } from '../tasks/task-events.js'
import { changeContext, recordEvents } from '../../integrations/events/event-repo.js'
import { requireAdmin } from '../../platform/security/roles.js'
import { formatTimestamp } from '../../platform/data/time.js'
import { findFirstPipeline, findPipeline, touchPipelines } from '../pipelines/pipeline-repo.js'
import { cleanLabel, labelSchema } from './status-input.js'
import {
  deleteLeadStatus,
  deleteOpportunityStatus,
  findLeadStatus,
  findOpportunityStatus,
  insertLeadStatus,
  insertOpportunityStatus,
  leadStatusesQuery,
  leadStatusLabelTaken,
  leadStatusView,
  lockOrganizationStatuses,
  nextStatusPosition,
  opportunityStatusesQuery,
  opportunityStatusLabelTaken,
  opportunityStatusView,
  renameLeadStatus,
  statusEvent,
  statusUsage,
  updateOpportunityStatus,
} from './status-repo.js'

const leadSchemas = crudSchemas(['lead statuses'], leadStatusSchema)
const opportunitySchemas = crudSchemas(['opportunity statuses'], opportunityStatusSchema)

const leadStatusBody = Type.Object({ label: labelSchema }, { additionalProperties: false })
const leadStatusUpdateBody = Type.Object({ label: Type.Optional(labelSchema) }, { additionalProperties: false })

const opportunityStatusBody = Type.Object(
  {
    label: labelSchema,
    type: Type.Optional({ ...opportunityStatusTypeSchema, description: 'Defaults to `active`.' }),
    pipeline_id: Type.Optional(
      Type.Union([Type.Null(), Type.String()], {
        description: 'A pipeline of your organization; defaults to its first pipeline.',
      }),
    ),
  },
  { additionalProperties: false },
)
const opportunityStatusUpdateBody = Type.Object(
  {
    label: Type.Optional(labelSchema),
    type: Type.Optional(opportunityStatusTypeSchema),
    pipeline_id: Type.Optional(
      Type.String({
        description: 'Another pipeline of your organization moves the status there, placed after its statuses.',
      }),
    ),
  },
  { additionalProperties: false, description: 'Only the fields sent change.' },
)

function refuseWhileUsed(usage: number, holders: 'leads' | 'opportunities'): void {
  if (usage > 0) {
    throw new HttpError(400, `This status is still used by ${usage} ${holders}: move them to another status first.`)
  }
}

const LEAD_LABEL_TAKEN = 'A lead status with this label already exists.'
const OPPORTUNITY_LABEL_TAKEN = 'An opportunity status with this label already exists in the pipeline.'

export const statusRoutes: FastifyPluginAsyncTypebox<Deps> = async (app, { db, dialect, clock }) => {
  // Status writes take the organization's lock, after the role check (platform/security/roles.ts).
  const lock = (tx: Tx, organizationId: string) => lockOrganizationStatuses(tx, dialect, organizationId)
  const leadStatus: Target<LeadStatusTable> = { find: findLeadStatus, what: 'Lead status', lock }
  const opportunityStatus: Target<OpportunityStatusTable> = {
    find: findOpportunityStatus,
    what: 'Opportunity status',
    lock,
  }

  // --- lead statuses ---

  readRoutes(app, db, {
    path: '/status/lead/',
    list: leadSchemas.list('The lead statuses of your organization, in order'),
    one: leadSchemas.get('One lead status'),
    query: leadStatusesQuery,
    target: leadStatus,
    view: leadStatusView,
  })

  app.post(
    '/status/lead/',
    leadSchemas.create('Create a lead status, placed after the others (admin)', leadStatusBody),
    async (request) => {
      const me = requireAdmin(request)
      const label = cleanLabel(request.body.label)
      return db.transaction().execute(async (tx) => {
        await lock(tx, me.organizationId)
        if (await leadStatusLabelTaken(tx, me.organizationId, label)) {
          throw ValidationError.field('label', LEAD_LABEL_TAKEN)
        }
        const ctx = changeContext(request, formatTimestamp(clock.now()))
        const id = await insertLeadStatus(tx, { organizationId: me.organizationId, label, now: ctx.now })
        const view = leadStatusView({ id, label, organization_id: me.organizationId })
        await recordEvents(tx, ctx.events, [statusEvent('lead', view, 'created')])
        return view
      })
    },
  )

  app.put(
    '/status/lead/:id/',
    leadSchemas.update('Rename a lead status (admin)', leadStatusUpdateBody),
    async (request) =>
      adminChange(db, request, request.params.id, leadStatus, async (tx, status, me) => {
        if (request.body.label === undefined) return leadStatusView(status)
        const label = cleanLabel(request.body.label)
        if (await leadStatusLabelTaken(tx, me.organizationId, label, status.id)) {
          throw ValidationError.field('label', LEAD_LABEL_TAKEN)
        }
        const ctx = changeContext(request, formatTimestamp(clock.now()))
        await renameLeadStatus(tx, me.organizationId, status.id, { label, now: ctx.now })
        const view = leadStatusView({ ...status, label })
        await recordEvents(tx, ctx.events, [
          { ...statusEvent('lead', view, 'updated'), previous: leadStatusView(status) },
        ])
        return view
      }),
  )

  app.delete(
    '/status/lead/:id/',
    leadSchemas.delete('Delete a lead status no lead uses; the last one stays (admin)'),
    async (request) => {
      await adminChange(db, request, request.params.id, leadStatus, async (tx, status, me) => {
        refuseWhileUsed(await statusUsage(tx, me.organizationId, status.id), 'leads')
        if ((await countInList(tx, 'lead_status', me.organizationId)) <= 1) {
          throw new HttpError(400, 'The last lead status cannot be deleted: every lead needs a status.')
        }
        await deleteLeadStatus(tx, me.organizationId, status.id)
        const ctx = changeContext(request, formatTimestamp(clock.now()))
        await recordEvents(tx, ctx.events, [statusEvent('lead', leadStatusView(status), 'deleted')])
      })
      return {}
    },
  )

  // --- opportunity statuses ---

  readRoutes(app, db, {
    path: '/status/opportunity/',
    list: opportunitySchemas.list('The opportunity statuses of your organization, by pipeline, in order'),
    one: opportunitySchemas.get('One opportunity status'),
    query: opportunityStatusesQuery,
    target: opportunityStatus,
    view: opportunityStatusView,
  })

  app.post(
    '/status/opportunity/',
    opportunitySchemas.create('Create an opportunity status at the end of a pipeline (admin)', opportunityStatusBody),
    async (request) => {
      const me = requireAdmin(request)
      const label = cleanLabel(request.body.label)
      const type = request.body.type ?? 'active'
      const pipelineId = request.body.pipeline_id ?? undefined
      return db.transaction().execute(async (tx) => {
        await lock(tx, me.organizationId)
        const pipeline =
          pipelineId === undefined
            ? await findFirstPipeline(tx, me.organizationId)
            : await findPipeline(tx, me.organizationId, pipelineId)
        if (pipeline === undefined) {
          throw ValidationError.field(
            'pipeline_id',
            pipelineId === undefined
              ? 'Your organization has no pipeline: create one first.'
              : 'Not a pipeline of your organization.',
          )
        }
        if (await opportunityStatusLabelTaken(tx, pipeline.id, label)) {
          throw ValidationError.field('label', OPPORTUNITY_LABEL_TAKEN)
        }
        const ctx = changeContext(request, formatTimestamp(clock.now()))
        const id = await insertOpportunityStatus(tx, {
          organizationId: me.organizationId,
          pipelineId: pipeline.id,
          label,
          type,
          now: ctx.now,
        })
        const view = opportunityStatusView({
          id,
          label,
          type,
          pipeline_id: pipeline.id,
          organization_id: me.organizationId,
        })
        await recordEvents(tx, ctx.events, [statusEvent('opportunity', view, 'created')])
        return view
      })
    },
  )

  app.put(
    '/status/opportunity/:id/',
    opportunitySchemas.update(
      'Rename an opportunity status, change its type or move it to another pipeline (admin)',
      opportunityStatusUpdateBody,
    ),
    async (request) =>
      adminChange(db, request, request.params.id, opportunityStatus, async (tx, status, me) => {
        const label = request.body.label === undefined ? undefined : cleanLabel(request.body.label)
        const type = request.body.type
        const pipelineId = request.body.pipeline_id
        const moves = pipelineId !== undefined && pipelineId !== status.pipeline_id
        if (label === undefined && type === undefined && !moves) return opportunityStatusView(status)
        if (moves && (await findPipeline(tx, me.organizationId, pipelineId)) === undefined) {
          throw ValidationError.field('pipeline_id', 'Not a pipeline of your organization.')
        }
        const target = moves ? pipelineId : status.pipeline_id
        if (await opportunityStatusLabelTaken(tx, target, label ?? status.label, status.id)) {
          throw ValidationError.field(label === undefined ? 'pipeline_id' : 'label', OPPORTUNITY_LABEL_TAKEN)
        }
        const at = clock.now()
        const ctx = changeContext(request, formatTimestamp(at))
        const now = ctx.now
        // A new type completes or reopens the due tasks of its opportunities (their events follow the status's).
        const retyped = type !== undefined && type !== status.type ? [status.id] : []
        const viewer = { offsetHours: request.tzOffsetHours, now: at }
        const dueBefore = await dueTasksOfStatuses(tx, me.organizationId, retyped, viewer)
        await updateOpportunityStatus(tx, me.organizationId, status.id, {
          ...(label === undefined ? {} : { label }),
          ...(type === undefined ? {} : { type }),
          ...(moves ? { pipelineId: target, position: await nextStatusPosition(tx, target) } : {}),
          now,
        })
        if (moves) await touchPipelines(tx, me.organizationId, [status.pipeline_id, target], { userId: me.userId, now })
        if (type !== undefined && retyped.length > 0) {
          // The opportunities in it changed type: their due tasks follow (crm/tasks/task-due.ts).
          await syncOpportunityDueOfStatus(tx, me.organizationId, status.id, type, {
            userId: me.userId,
            now,
            today: callerToday(request, at),
          })
        }
        const view = opportunityStatusView({
          ...status,
          label: label ?? status.label,
          type: type ?? status.type,
          pipeline_id: target,
        })
        await recordEvents(tx, ctx.events, [
          { ...statusEvent('opportunity', view, 'updated'), previous: opportunityStatusView(status) },
          ...taskChangeEvents(dueBefore, await dueTasksOfStatuses(tx, me.organizationId, retyped, viewer)),
        ])
        return view
      }),
  )

  app.delete(
    '/status/opportunity/:id/',
    opportunitySchemas.delete({
      summary: 'Delete an opportunity status no opportunity uses, the last of its pipeline too (admin)',
      description:
        'A pipeline may be left without statuses, and then deleted (decision 0040); an opportunity created without a status takes the first active one of the first pipeline that has statuses.',
    }),
    async (request) => {
      await adminChange(db, request, request.params.id, opportunityStatus, async (tx, status, me) => {
        refuseWhileUsed(await statusUsage(tx, me.organizationId, status.id, 'opportunity'), 'opportunities')
        await deleteOpportunityStatus(tx, me.organizationId, status.id)
        const ctx = changeContext(request, formatTimestamp(clock.now()))
        await recordEvents(tx, ctx.events, [statusEvent('opportunity', opportunityStatusView(status), 'deleted')])
      })
      return {}
    },
  )
}
