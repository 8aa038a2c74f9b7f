import { Type, type Static } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { pipelineSchema, type Pipeline } from '@leadline/shared/pipeline-schema'
import { opportunityStatusTypeSchema, type OpportunityStatus } from '@leadline/shared/status-schema'
import type { Db, Tx } from '../../platform/data/database.js'
import type { Deps } from '../deps.js'
import { countInList, setPosition } from '../ordered-lists.js'
import { found } from '../../platform/data/find-or-404.js'
import { adminChange, crudSchemas, idParams, listPageViews, type Target } from '../../platform/http/crud-routes.js'
import { HttpError, ValidationError } from '../../platform/http/errors.js'
import { caller, callerToday } from '../../platform/http/request-context.js'
import { syncOpportunityDueOfStatus } from '../tasks/task-due.js'
import { dueTasksOfStatuses, taskChangeEvents } from '../tasks/task-events.js'
import { changeContext, recordEvents, type EventAction, type EventInput } from '../../integrations/events/event-repo.js'
import { requireAdmin } from '../../platform/security/roles.js'
import { formatTimestamp } from '../../platform/data/time.js'
import { LABEL_MAX, labelProblem, labelSchema, sameLabel } from '../statuses/status-input.js'
import {
  insertOpportunityStatus,
  lockOrganizationStatuses,
  opportunityStatusesQuery,
  opportunityStatusView,
  statusEvent,
  updateOpportunityStatus,
} from '../statuses/status-repo.js'
import {
  deletePipeline,
  findPipelineView,
  insertPipeline,
  pipelineNameTaken,
  pipelinesQuery,
  pipelineViews,
  touchPipelines,
  updatePipeline,
} from './pipeline-repo.js'

const tags = ['pipelines']
const schemas = crudSchemas(tags, pipelineSchema)
/** More statuses than anyone would drag across a board; a body is refused past it. */
const STATUSES_MAX = 100

const nameSchema = Type.String({
  description: `Trimmed; 1 to ${LABEL_MAX} characters; unique in the organization ignoring case.`,
})

const createBody = Type.Object(
  {
    name: nameSchema,
    statuses: Type.Optional(
      Type.Array(
        Type.Object(
          {
            label: labelSchema,
            type: Type.Optional({ ...opportunityStatusTypeSchema, description: 'Defaults to `active`.' }),
          },
          { additionalProperties: false },
        ),
        { maxItems: STATUSES_MAX, description: 'Opportunity statuses to create in the new pipeline, in this order.' },
      ),
    ),
  },
  { additionalProperties: false },
)

const statusPlacement = Type.Object(
  {
    id: Type.String({
      description: 'A status of this pipeline, or of another pipeline of your organization to move it here.',
    }),
    label: Type.Optional(labelSchema),
    type: Type.Optional(opportunityStatusTypeSchema),
  },
  { additionalProperties: false },
)
type StatusPlacement = Static<typeof statusPlacement>

const updateBody = Type.Object(
  {
    name: Type.Optional(nameSchema),
    statuses: Type.Optional(
      Type.Array(statusPlacement, {
        maxItems: STATUSES_MAX,
        description:
          'The statuses of the pipeline in their new order. Every status of the pipeline must be listed; listing a status of another pipeline moves it here, at that place (the statuses left in its old pipeline keep their order). `label` and `type`, when sent, change the status too.',
      }),
    ),
  },
  { additionalProperties: false, description: 'Only the fields sent change.' },
)

/** Trims a name or label into `errors[field]` when it cannot be stored. */
function cleanInto(raw: string, field: string, errors: Record<string, string>): string {
  const text = raw.trim()
  const problem = labelProblem(text)
  if (problem !== undefined) errors[field] ??= problem
  return text
}

const LABEL_TAKEN = 'An opportunity status with this label already exists in the pipeline.'
const NAME_TAKEN = 'A pipeline with this name already exists.'

/** Flags, at `statuses.N.label`, every label that repeats an earlier one of the list (ignoring case). */
function flagRepeatedLabels(labels: string[], errors: Record<string, string>): void {
  labels.forEach((label, index) => {
    if (labels.slice(0, index).some((earlier) => sameLabel(earlier, label))) {
      errors[`statuses.${index}.label`] ??= LABEL_TAKEN
    }
  })
}

interface Placement {
  status: OpportunityStatus
  label: string
  type: OpportunityStatus['type']
}

/**
 * Checks a new order of a pipeline's statuses against the organization's statuses: every status of the pipeline
 * listed, each once, nothing unknown, labels still unique in the pipeline. Field errors go into `errors`.
 */
function arrangeStatuses(
  pipelineId: string,
  sent: StatusPlacement[],
  current: OpportunityStatus[],
  errors: Record<string, string>,
): Placement[] {
  const byId = new Map(current.map((status) => [status.id, status]))
  const seen = new Set<string>()
  const placements: Placement[] = []
  sent.forEach((item, index) => {
    const status = byId.get(item.id)
    const label = item.label === undefined ? status?.label : cleanInto(item.label, `statuses.${index}.label`, errors)
    if (status === undefined) errors[`statuses.${index}.id`] = 'Not an opportunity status of your organization.'
    else if (seen.has(status.id)) errors[`statuses.${index}.id`] = 'This status is listed more than once.'
    else if (label !== undefined) placements.push({ status, label, type: item.type ?? status.type })
    seen.add(item.id)
  })
  const missing = current.filter((status) => status.pipeline_id === pipelineId && !seen.has(status.id))
  if (missing.length > 0) {
    errors.statuses = `Every status of the pipeline must be listed; missing: ${missing.map((s) => s.id).join(', ')}.`
  }
  if (Object.keys(errors).length === 0) {
    flagRepeatedLabels(
      placements.map((p) => p.label),
      errors,
    )
  }
  return placements
}

/** A pipeline's event: organization-wide, under no lead. */
function pipelineEvent(view: Pipeline, action: EventAction): EventInput {
  return { objectType: 'pipeline', objectId: view.id, action, leadId: null, data: view }
}

/** The organization's pipelines and opportunity statuses as `tx` sees them; a change's events compare two of these. */
async function pipelineState(tx: Tx, organizationId: string) {
  const pipelines = await pipelineViews(tx, await pipelinesQuery(tx, organizationId).execute())
  const statuses = (await opportunityStatusesQuery(tx, organizationId).execute()).map(opportunityStatusView)
  return { pipelines, statuses }
}

/** An `updated` event for every pipeline and status of `after` (`recordEvents` drops those that did not change). */
function pipelineChanges(
  before: Awaited<ReturnType<typeof pipelineState>>,
  after: Awaited<ReturnType<typeof pipelineState>>,
): EventInput[] {
  const pipelines = new Map(before.pipelines.map((p) => [p.id, p]))
  const statuses = new Map(before.statuses.map((s) => [s.id, s]))
  return [
    ...after.pipelines.flatMap((p) => {
      const previous = pipelines.get(p.id)
      return previous === undefined ? [] : [{ ...pipelineEvent(p, 'updated'), previous }]
    }),
    ...after.statuses.flatMap((s) => {
      const previous = statuses.get(s.id)
      return previous === undefined ? [] : [{ ...statusEvent('opportunity', s, 'updated'), previous }]
    }),
  ]
}

async function viewOf(db: Db | Tx, organizationId: string, id: string): Promise<Pipeline> {
  return found(await findPipelineView(db, organizationId, id), 'Pipeline')
}

export const pipelineRoutes: FastifyPluginAsyncTypebox<Deps> = async (app, { db, dialect, clock }) => {
  // Pipeline writes take the organization's status lock, after the role check (platform/security/roles.ts).
  const lock = (tx: Tx, organizationId: string) => lockOrganizationStatuses(tx, dialect, organizationId)
  const pipeline: Target<Pipeline> = { find: findPipelineView, what: 'Pipeline', lock }

  app.get(
    '/pipeline/',
    schemas.list('The pipelines of your organization, in order, each with its opportunity statuses'),
    async (request) =>
      listPageViews(pipelinesQuery(db, caller(request).organizationId), request.query, (rows) =>
        pipelineViews(db, rows),
      ),
  )

  app.get('/pipeline/:id/', schemas.get('One pipeline with its opportunity statuses'), async (request) =>
    viewOf(db, caller(request).organizationId, request.params.id),
  )

  app.post(
    '/pipeline/',
    schemas.createWith201('Create a pipeline, placed after the others, with its statuses (admin)', createBody),
    async (request, reply) => {
      const me = requireAdmin(request)
      const errors: Record<string, string> = {}
      const name = cleanInto(request.body.name, 'name', errors)
      const statuses = (request.body.statuses ?? []).map((status, index) => ({
        label: cleanInto(status.label, `statuses.${index}.label`, errors),
        type: status.type ?? 'active',
      }))
      flagRepeatedLabels(
        statuses.map((s) => s.label),
        errors,
      )
      if (Object.keys(errors).length > 0) throw new ValidationError(errors)
      const view = await db.transaction().execute(async (tx) => {
        await lock(tx, me.organizationId)
        if (await pipelineNameTaken(tx, me.organizationId, name)) throw ValidationError.field('name', NAME_TAKEN)
        const ctx = changeContext(request, formatTimestamp(clock.now()))
        const now = ctx.now
        const id = await insertPipeline(tx, { organizationId: me.organizationId, name, userId: me.userId, now })
        for (const status of statuses) {
          await insertOpportunityStatus(tx, { organizationId: me.organizationId, pipelineId: id, ...status, now })
        }
        const created = await viewOf(tx, me.organizationId, id)
        await recordEvents(tx, ctx.events, [
          pipelineEvent(created, 'created'),
          ...created.statuses.map((status) => statusEvent('opportunity', status, 'created')),
        ])
        return created
      })
      return reply.code(201).send(view)
    },
  )

  app.put(
    '/pipeline/:id/',
    schemas.update(
      'Rename a pipeline, reorder its statuses, or move statuses of other pipelines into it (admin)',
      updateBody,
    ),
    async (request) => {
      const body = request.body
      return adminChange(db, request, request.params.id, pipeline, async (tx, view, me) => {
        if (body.name === undefined && body.statuses === undefined) return view

        const errors: Record<string, string> = {}
        const name = body.name === undefined ? undefined : cleanInto(body.name, 'name', errors)
        if (name !== undefined && errors.name === undefined) {
          if (await pipelineNameTaken(tx, me.organizationId, name, view.id)) errors.name = NAME_TAKEN
        }
        const placements =
          body.statuses === undefined
            ? undefined
            : arrangeStatuses(
                view.id,
                body.statuses,
                await opportunityStatusesQuery(tx, me.organizationId).execute(),
                errors,
              )
        if (Object.keys(errors).length > 0) throw new ValidationError(errors)

        const at = clock.now()
        const ctx = changeContext(request, formatTimestamp(at))
        const now = ctx.now
        const before = await pipelineState(tx, me.organizationId)
        // Statuses given a new type complete or reopen their opportunities' due tasks: those are told too.
        const retyped = (placements ?? []).filter((p) => p.type !== p.status.type).map((p) => p.status.id)
        const viewer = { offsetHours: request.tzOffsetHours, now: at }
        const dueBefore = await dueTasksOfStatuses(tx, me.organizationId, retyped, viewer)
        const leftBehind = new Set<string>()
        for (const [position, { status, label, type }] of (placements ?? []).entries()) {
          const moves = status.pipeline_id !== view.id
          if (moves) leftBehind.add(status.pipeline_id)
          if (moves || label !== status.label || type !== status.type) {
            await updateOpportunityStatus(tx, me.organizationId, status.id, {
              label,
              type,
              pipelineId: view.id,
              position,
              now,
            })
            if (type !== status.type) {
              const change = { userId: me.userId, now, today: callerToday(request, at) }
              await syncOpportunityDueOfStatus(tx, me.organizationId, status.id, type, change)
            }
          } else {
            await setPosition(tx, 'opportunity_status', me.organizationId, status.id, position)
          }
        }
        await touchPipelines(tx, me.organizationId, [...leftBehind], { userId: me.userId, now })
        await updatePipeline(tx, me.organizationId, view.id, {
          ...(name === undefined ? {} : { name }),
          userId: me.userId,
          now,
        })
        const after = await pipelineState(tx, me.organizationId)
        await recordEvents(tx, ctx.events, [
          ...pipelineChanges(before, after),
          ...taskChangeEvents(dueBefore, await dueTasksOfStatuses(tx, me.organizationId, retyped, viewer)),
        ])
        return viewOf(tx, me.organizationId, view.id)
      })
    },
  )

  app.delete(
    '/pipeline/:id/',
    {
      schema: {
        tags,
        summary: 'Delete a pipeline that holds no statuses; the last one stays (admin)',
        description: 'Move its statuses to another pipeline, or delete them, first.',
        params: idParams,
        response: { 204: Type.Null({ description: 'No content.' }) },
      },
    },
    async (request, reply) => {
      await adminChange(db, request, request.params.id, pipeline, async (tx, view, me) => {
        if ((await countInList(tx, 'pipeline', me.organizationId)) <= 1) {
          throw new HttpError(400, 'The last pipeline of an organization cannot be deleted.')
        }
        const held = view.statuses.length
        if (held > 0) {
          throw new HttpError(
            400,
            `This pipeline still holds ${held} opportunity ${held === 1 ? 'status' : 'statuses'}: move them to another pipeline or delete them first.`,
          )
        }
        await deletePipeline(tx, me.organizationId, view.id)
        const ctx = changeContext(request, formatTimestamp(clock.now()))
        await recordEvents(tx, ctx.events, [pipelineEvent(view, 'deleted')])
      })
      return reply.code(204).send(null)
    },
  )
}
