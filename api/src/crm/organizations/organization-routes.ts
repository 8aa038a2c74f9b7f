import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { organizationSchema, type Organization } from '@leadline/shared/organization-schema'
import type { Db } from '../../platform/data/database.js'
import { changeContext, recordEvents, type EventInput } from '../../integrations/events/event-repo.js'
import type { Deps } from '../deps.js'
import { reorderOutcomes } from '../outcomes/outcome-repo.js'
import { NotFoundError, ValidationError } from '../../platform/http/errors.js'
import { crudSchemas } from '../../platform/http/crud-routes.js'
import { caller } from '../../platform/http/request-context.js'
import { requireAdmin } from '../../platform/security/roles.js'
import { formatTimestamp } from '../../platform/data/time.js'
import { organizationView } from './organization-view.js'
import { REORDER_MAX, setPositions } from '../ordered-lists.js'

const schemas = crudSchemas(['organizations'], organizationSchema, { writeFields: false })
const CURRENCIES = new Set(Intl.supportedValuesOf('currency'))

const orderSchema = (what: string) =>
  Type.Array(
    Type.Union([
      Type.String({ maxLength: 100 }),
      Type.Object({ id: Type.String({ maxLength: 100 }) }, { additionalProperties: true }),
    ]),
    {
      maxItems: REORDER_MAX,
      description: `Every ${what} of the organization, in the new order (objects with \`id\`, or ids).`,
    },
  )

const updateBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$' })),
    country: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$' })),
    lead_statuses: Type.Optional(orderSchema('lead status')),
    outcomes: Type.Optional({
      ...orderSchema('outcome'),
      description:
        'Every outcome of the organization, in the new order (objects with `id`, or ids): `GET /outcome/` answers in it (Leadline).',
    }),
  },
  { additionalProperties: false },
)

type OrderItem = string | { id: string }

/**
 * The ids of `items` when they are every row of `table` in the organization, each once; otherwise a field error on
 * `field` (unknown ids, another organization's, repeats and missing ones alike).
 */
async function checkedOrder(
  tx: Db,
  table: 'lead_status' | 'outcome',
  organizationId: string,
  items: readonly OrderItem[],
  field: string,
  message: string,
): Promise<string[]> {
  const order = items.map((item) => (typeof item === 'string' ? item : item.id))
  const existing = await tx.selectFrom(table).select('id').where('organization_id', '=', organizationId).execute()
  const known = new Set(existing.map((row) => row.id))
  const isPermutation =
    order.length === known.size && new Set(order).size === order.length && order.every((id) => known.has(id))
  if (!isPermutation) throw ValidationError.field(field, message)
  return order
}

/**
 * The organization as its events carry it: its own fields and its lead statuses' order, without the members (a
 * webhook of every change need not receive every member's email address), its custom fields or pipelines (their
 * own events carry them).
 */
function organizationEventData(org: Organization): Record<string, unknown> {
  const {
    memberships: _members,
    inactive_memberships: _inactive,
    lead_custom_fields: _lead,
    contact_custom_fields: _contact,
    opportunity_custom_fields: _opportunity,
    pipelines: _pipelines,
    ...rest
  } = org
  return rest
}

function organizationEvent(after: Organization, before: Organization): EventInput {
  return {
    objectType: 'organization',
    objectId: after.id,
    action: 'updated',
    leadId: null,
    data: organizationEventData(after),
    previous: organizationEventData(before),
  }
}

export const organizationRoutes: FastifyPluginAsyncTypebox<Deps> = async (app, { db, clock, meta }) => {
  app.get('/organization/:id/', schemas.get('Your organization'), async (request) => {
    const me = caller(request)
    const org = request.params.id === me.organizationId ? (await meta.get(me.organizationId))?.organization : undefined
    if (org === undefined) throw new NotFoundError('Organization')
    return org
  })

  app.put(
    '/organization/:id/',
    schemas.update(
      'Rename the organization, change its currency or country, or reorder its lead statuses or outcomes (admin)',
      updateBody,
    ),
    async (request) => {
      const me = caller(request)
      if (request.params.id !== me.organizationId) throw new NotFoundError('Organization')
      requireAdmin(request)
      const body = request.body
      if (body.name !== undefined && body.name.trim() === '')
        throw ValidationError.field('name', 'This field may not be blank.')
      if (body.currency !== undefined && !CURRENCIES.has(body.currency)) {
        throw ValidationError.field('currency', 'Not a valid ISO 4217 currency code.')
      }
      const ctx = changeContext(request, formatTimestamp(clock.now()))
      await db.transaction().execute(async (tx) => {
        const before = await organizationView(tx, me.organizationId)
        if (before === undefined) throw new NotFoundError('Organization')
        if (body.lead_statuses !== undefined) {
          const order = await checkedOrder(
            tx,
            'lead_status',
            me.organizationId,
            body.lead_statuses,
            'lead_statuses',
            'List every lead status of the organization exactly once, in the new order.',
          )
          await setPositions(tx, 'lead_status', me.organizationId, order)
        }
        const outcomeEvents =
          body.outcomes === undefined
            ? []
            : await reorderOutcomes(
                tx,
                me.organizationId,
                await checkedOrder(
                  tx,
                  'outcome',
                  me.organizationId,
                  body.outcomes,
                  'outcomes',
                  'List every outcome of the organization exactly once, in the new order.',
                ),
                { userId: me.userId, now: ctx.now },
              )
        await tx
          .updateTable('organization')
          .set({
            ...(body.name === undefined ? {} : { name: body.name.trim() }),
            ...(body.currency === undefined ? {} : { currency: body.currency }),
            ...(body.country === undefined ? {} : { country: body.country }),
            updated_by: me.userId,
            date_updated: ctx.now,
          })
          .where('id', '=', me.organizationId)
          .execute()
        const after = await organizationView(tx, me.organizationId)
        if (after === undefined) throw new NotFoundError('Organization')
        // Other admins' screens refresh from these: the organization's name, currency and lead statuses' order, and
        // each outcome that moved.
        await recordEvents(tx, ctx.events, [organizationEvent(after, before), ...outcomeEvents])
      })
      const org = (await meta.get(me.organizationId))?.organization
      if (org === undefined) throw new NotFoundError('Organization')
      return org
    },
  )
}
