import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import {
  outcomeAppliesToSchema,
  outcomeSchema,
  outcomeTypeSchema,
  type OutcomeAppliesTo,
} from '@leadline/shared/outcome-schema'
import type { OutcomeTable } from '../../platform/data/database.js'
import { changeContext, recordEvents } from '../../integrations/events/event-repo.js'
import type { Deps } from '../deps.js'
import { adminChange, crudSchemas, readRoutes, type Target } from '../../platform/http/crud-routes.js'
import { ValidationError } from '../../platform/http/errors.js'
import { requireAdmin } from '../../platform/security/roles.js'
import { cleanText } from '../../platform/text/text.js'
import { formatTimestamp } from '../../platform/data/time.js'
import { LABEL_MAX, labelProblem } from '../statuses/status-input.js'
import {
  deleteOutcome,
  findOutcome,
  insertOutcome,
  outcomeEvent,
  outcomesQuery,
  outcomeView,
  updateOutcome,
  type OutcomeFields,
} from './outcome-repo.js'

const schemas = crudSchemas(['outcomes'], outcomeSchema)
const DESCRIPTION_MAX = 2000

const nameSchema = Type.String({
  description: `Trimmed; 1 to ${LABEL_MAX} characters; unique in the organization ignoring case.`,
})
const descriptionSchema = Type.Union([Type.String({ maxLength: DESCRIPTION_MAX }), Type.Null()], {
  description: 'What the outcome means and when to use it; blank is null.',
})
const appliesToSchema = Type.Array(outcomeAppliesToSchema, {
  minItems: 1,
  description:
    'What the outcome may be set on: `calls`, `meetings` or both. Defaults by `type`: `custom` both, `vm-dropped` calls only.',
})

const createBody = Type.Object(
  {
    name: nameSchema,
    description: Type.Optional(descriptionSchema),
    type: Type.Optional({ ...outcomeTypeSchema, description: 'Defaults to `custom`.' }),
    applies_to: Type.Optional(Type.Union([appliesToSchema, Type.Null()])),
  },
  { additionalProperties: false },
)

const updateBody = Type.Object(
  {
    name: Type.Optional(Type.Union([nameSchema, Type.Null()])),
    description: Type.Optional(descriptionSchema),
    type: Type.Optional(Type.Union([outcomeTypeSchema, Type.Null()])),
    applies_to: Type.Optional(Type.Union([appliesToSchema, Type.Null()])),
  },
  {
    additionalProperties: false,
    description: 'Only the fields sent change; a null `name`, `type` or `applies_to` is not sent.',
  },
)

/** What an outcome of `type` applies to when the request does not say. */
function defaultAppliesTo(type: OutcomeFields['type']): OutcomeAppliesTo[] {
  return type === 'vm-dropped' ? ['calls'] : ['calls', 'meetings']
}

/** The fields an outcome is to have, checked; a field error for each problem. */
function checkedFields(fields: OutcomeFields): OutcomeFields {
  const errors: Record<string, string> = {}
  const name = fields.name.trim()
  const problem = labelProblem(name)
  if (problem !== undefined) errors.name = problem
  const appliesTo = [...new Set(fields.applies_to)]
  // A dropped voicemail happens on a call only.
  if (fields.type === 'vm-dropped' && appliesTo.includes('meetings')) {
    errors.applies_to = 'A vm-dropped outcome applies to calls only.'
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors)
  return { name, description: cleanText(fields.description) ?? null, type: fields.type, applies_to: appliesTo }
}

function sameFields(row: OutcomeTable, fields: OutcomeFields): boolean {
  const view = outcomeView(row)
  return (
    view.name === fields.name &&
    view.description === fields.description &&
    view.type === fields.type &&
    JSON.stringify(view.applies_to) === JSON.stringify(fields.applies_to)
  )
}

export const outcomeRoutes: FastifyPluginAsyncTypebox<Deps> = async (app, { db, dialect, clock }) => {
  const outcome: Target<OutcomeTable> = { find: findOutcome, what: 'Outcome' }

  readRoutes(app, db, {
    path: '/outcome/',
    list: schemas.list(
      'The call and meeting outcomes of your organization, in its order (`PUT /organization/{id}/` with `outcomes` changes it; a new one goes last)',
    ),
    one: schemas.get('One outcome'),
    query: (db, organizationId) => outcomesQuery(db, dialect, organizationId),
    target: outcome,
    view: outcomeView,
  })

  app.post(
    '/outcome/',
    schemas.createWith201('Create an outcome (admin; answers 201)', createBody),
    async (request, reply) => {
      const me = requireAdmin(request)
      const body = request.body
      const type = body.type ?? 'custom'
      const fields = checkedFields({
        name: body.name,
        description: body.description ?? null,
        type,
        applies_to: body.applies_to ?? defaultAppliesTo(type),
      })
      const ctx = changeContext(request, formatTimestamp(clock.now()))
      const view = await db.transaction().execute(async (tx) => {
        const row = await insertOutcome(tx, {
          ...fields,
          organizationId: me.organizationId,
          userId: me.userId,
          now: ctx.now,
        })
        const created = outcomeView(row)
        await recordEvents(tx, ctx.events, [outcomeEvent(created, 'created')])
        return created
      })
      return reply.code(201).send(view)
    },
  )

  app.put('/outcome/:id/', schemas.update('Change an outcome (admin)', updateBody), async (request) => {
    const body = request.body
    return adminChange(db, request, request.params.id, outcome, async (tx, row, me) => {
      const ctx = changeContext(request, formatTimestamp(clock.now()))
      const before = outcomeView(row)
      const type = body.type ?? before.type
      const fields = checkedFields({
        name: body.name ?? before.name,
        description: body.description === undefined ? before.description : body.description,
        type,
        // A type changed to vm-dropped without a new applies_to takes that type's default.
        applies_to: body.applies_to ?? (type === before.type ? before.applies_to : defaultAppliesTo(type)),
      })
      if (sameFields(row, fields)) return before
      const after = outcomeView(await updateOutcome(tx, row, fields, { userId: me.userId, now: ctx.now }))
      await recordEvents(tx, ctx.events, [outcomeEvent(after, 'updated', before)])
      return after
    })
  })

  app.delete(
    '/outcome/:id/',
    schemas.delete('Delete an outcome (admin); calls that have it keep its id'),
    async (request) => {
      await adminChange(db, request, request.params.id, outcome, async (tx, row) => {
        const ctx = changeContext(request, formatTimestamp(clock.now()))
        await deleteOutcome(tx, row)
        await recordEvents(tx, ctx.events, [outcomeEvent(outcomeView(row), 'deleted')])
      })
      return {}
    },
  )
}
