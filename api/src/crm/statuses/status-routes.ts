import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { listEnvelopeSchema } from '@leadline/shared/list'
import { leadStatusSchema, opportunityStatusSchema, opportunityStatusTypeSchema } from '@leadline/shared/status-schema'
import type { Deps } from '../deps.js'
import { HttpError, NotFoundError, ValidationError } from '../../platform/http/errors.js'
import { fetchPage, fieldsQuerySchema, listQuerySchema } from '../../platform/http/list.js'
import { caller, callerToday } from '../../platform/http/request-context.js'
import { syncOpportunityDueOfStatus } from '../tasks/task-due.js'
import { dueTasksOfStatuses, taskChangeEvents } from '../tasks/task-events.js'
import { changeContext, recordEvents } from '../../integrations/events/event-repo.js'
import { requireAdmin, requireAdminOver } from '../../platform/security/roles.js'
import { formatTimestamp } from '../../platform/data/time.js'
import { findFirstPipeline, findPipeline, touchPipelines } from '../pipelines/pipeline-repo.js'
import { cleanLabel, labelSchema } from './status-input.js'
import {
  countLeadStatuses,
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

const leadTags = ['lead statuses']
const opportunityTags = ['opportunity statuses']
const params = Type.Object({ id: Type.String() })
const deletedSchema = Type.Object({})

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

export const statusRoutes: FastifyPluginAsyncTypebox<Deps> = async (app, { db, dialect, clock }) => {
  // Role checks read with no lock (platform/security/roles.ts), before the transaction that takes the organization's.
  const leadStatusOf = (id: string) => (organizationId: string) => findLeadStatus(db, organizationId, id)
  const opportunityStatusOf = (id: string) => (organizationId: string) => findOpportunityStatus(db, organizationId, id)
  const opportunityStatusNotFound = () => new NotFoundError('Opportunity status')

  // --- lead statuses ---

  app.get(
    '/status/lead/',
    {
      schema: {
        tags: leadTags,
        summary: 'The lead statuses of your organization, in order',
        querystring: listQuerySchema(),
        response: { 200: listEnvelopeSchema(leadStatusSchema) },
      },
    },
    async (request) => {
      const me = caller(request)
      const page = await fetchPage(leadStatusesQuery(db, me.organizationId), request.query)
      return { has_more: page.has_more, data: page.data.map(leadStatusView) }
    },
  )

  app.get(
    '/status/lead/:id/',
    {
      schema: {
        tags: leadTags,
        summary: 'One lead status',
        params,
        querystring: fieldsQuerySchema,
        response: { 200: leadStatusSchema },
      },
    },
    async (request) => {
      const me = caller(request)
      const status = await findLeadStatus(db, me.organizationId, request.params.id)
      if (status === undefined) throw new NotFoundError('Lead status')
      return leadStatusView(status)
    },
  )

  app.post(
    '/status/lead/',
    {
      schema: {
        tags: leadTags,
        summary: 'Create a lead status, placed after the others (admin)',
        querystring: fieldsQuerySchema,
        body: leadStatusBody,
        response: { 200: leadStatusSchema },
      },
    },
    async (request) => {
      const me = requireAdmin(request)
      const label = cleanLabel(request.body.label)
      return db.transaction().execute(async (tx) => {
        await lockOrganizationStatuses(tx, dialect, me.organizationId)
        if (await leadStatusLabelTaken(tx, me.organizationId, label)) {
          throw ValidationError.field('label', 'A lead status with this label already exists.')
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
    {
      schema: {
        tags: leadTags,
        summary: 'Rename a lead status (admin)',
        params,
        querystring: fieldsQuerySchema,
        body: leadStatusUpdateBody,
        response: { 200: leadStatusSchema },
      },
    },
    async (request) => {
      const me = await requireAdminOver(
        request,
        leadStatusOf(request.params.id),
        () => new NotFoundError('Lead status'),
      )
      return db.transaction().execute(async (tx) => {
        await lockOrganizationStatuses(tx, dialect, me.organizationId)
        const status = await findLeadStatus(tx, me.organizationId, request.params.id)
        if (status === undefined) throw new NotFoundError('Lead status')
        if (request.body.label === undefined) return leadStatusView(status)
        const label = cleanLabel(request.body.label)
        if (await leadStatusLabelTaken(tx, me.organizationId, label, status.id)) {
          throw ValidationError.field('label', 'A lead status with this label already exists.')
        }
        const ctx = changeContext(request, formatTimestamp(clock.now()))
        await renameLeadStatus(tx, me.organizationId, status.id, { label, now: ctx.now })
        const view = leadStatusView({ ...status, label })
        await recordEvents(tx, ctx.events, [
          { ...statusEvent('lead', view, 'updated'), previous: leadStatusView(status) },
        ])
        return view
      })
    },
  )

  app.delete(
    '/status/lead/:id/',
    {
      schema: {
        tags: leadTags,
        summary: 'Delete a lead status no lead uses; the last one stays (admin)',
        params,
        response: { 200: deletedSchema },
      },
    },
    async (request) => {
      const me = await requireAdminOver(
        request,
        leadStatusOf(request.params.id),
        () => new NotFoundError('Lead status'),
      )
      await db.transaction().execute(async (tx) => {
        await lockOrganizationStatuses(tx, dialect, me.organizationId)
        const status = await findLeadStatus(tx, me.organizationId, request.params.id)
        if (status === undefined) throw new NotFoundError('Lead status')
        refuseWhileUsed(await statusUsage(tx, me.organizationId, status.id), 'leads')
        if ((await countLeadStatuses(tx, me.organizationId)) <= 1) {
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

  app.get(
    '/status/opportunity/',
    {
      schema: {
        tags: opportunityTags,
        summary: 'The opportunity statuses of your organization, by pipeline, in order',
        querystring: listQuerySchema(),
        response: { 200: listEnvelopeSchema(opportunityStatusSchema) },
      },
    },
    async (request) => {
      const me = caller(request)
      const page = await fetchPage(opportunityStatusesQuery(db, me.organizationId), request.query)
      return { has_more: page.has_more, data: page.data.map(opportunityStatusView) }
    },
  )

  app.get(
    '/status/opportunity/:id/',
    {
      schema: {
        tags: opportunityTags,
        summary: 'One opportunity status',
        params,
        querystring: fieldsQuerySchema,
        response: { 200: opportunityStatusSchema },
      },
    },
    async (request) => {
      const me = caller(request)
      const status = await findOpportunityStatus(db, me.organizationId, request.params.id)
      if (status === undefined) throw new NotFoundError('Opportunity status')
      return opportunityStatusView(status)
    },
  )

  app.post(
    '/status/opportunity/',
    {
      schema: {
        tags: opportunityTags,
        summary: 'Create an opportunity status at the end of a pipeline (admin)',
        querystring: fieldsQuerySchema,
        body: opportunityStatusBody,
        response: { 200: opportunityStatusSchema },
      },
    },
    async (request) => {
      const me = requireAdmin(request)
      const label = cleanLabel(request.body.label)
      const type = request.body.type ?? 'active'
      const pipelineId = request.body.pipeline_id ?? undefined
      return db.transaction().execute(async (tx) => {
        await lockOrganizationStatuses(tx, dialect, me.organizationId)
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
          throw ValidationError.field('label', 'An opportunity status with this label already exists in the pipeline.')
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
    {
      schema: {
        tags: opportunityTags,
        summary: 'Rename an opportunity status, change its type or move it to another pipeline (admin)',
        params,
        querystring: fieldsQuerySchema,
        body: opportunityStatusUpdateBody,
        response: { 200: opportunityStatusSchema },
      },
    },
    async (request) => {
      const me = await requireAdminOver(request, opportunityStatusOf(request.params.id), opportunityStatusNotFound)
      return db.transaction().execute(async (tx) => {
        await lockOrganizationStatuses(tx, dialect, me.organizationId)
        const status = await findOpportunityStatus(tx, me.organizationId, request.params.id)
        if (status === undefined) throw opportunityStatusNotFound()
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
          throw ValidationError.field(
            label === undefined ? 'pipeline_id' : 'label',
            'An opportunity status with this label already exists in the pipeline.',
          )
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
      })
    },
  )

  app.delete(
    '/status/opportunity/:id/',
    {
      schema: {
        tags: opportunityTags,
        summary: 'Delete an opportunity status no opportunity uses, the last of its pipeline too (admin)',
        description:
          'A pipeline may be left without statuses, and then deleted (decision 0040); an opportunity created without a status takes the first active one of the first pipeline that has statuses.',
        params,
        response: { 200: deletedSchema },
      },
    },
    async (request) => {
      const me = await requireAdminOver(request, opportunityStatusOf(request.params.id), opportunityStatusNotFound)
      await db.transaction().execute(async (tx) => {
        await lockOrganizationStatuses(tx, dialect, me.organizationId)
        const status = await findOpportunityStatus(tx, me.organizationId, request.params.id)
        if (status === undefined) throw opportunityStatusNotFound()
        refuseWhileUsed(await statusUsage(tx, me.organizationId, status.id, 'opportunity'), 'opportunities')
        await deleteOpportunityStatus(tx, me.organizationId, status.id)
        const ctx = changeContext(request, formatTimestamp(clock.now()))
        await recordEvents(tx, ctx.events, [statusEvent('opportunity', opportunityStatusView(status), 'deleted')])
      })
      return {}
    },
  )
}
