import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { organizationSchema } from '@leadline/shared/organization-schema'
import type { Deps } from '../deps.js'
import { NotFoundError, ValidationError } from '../../platform/http/errors.js'
import { crudSchemas } from '../../platform/http/crud-routes.js'
import { caller } from '../../platform/http/request-context.js'
import { requireAdmin } from '../../platform/security/roles.js'
import { formatTimestamp } from '../../platform/data/time.js'

const schemas = crudSchemas(['organizations'], organizationSchema, { writeFields: false })
const CURRENCIES = new Set(Intl.supportedValuesOf('currency'))

const updateBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$' })),
    country: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$' })),
    lead_statuses: Type.Optional(
      Type.Array(Type.Union([Type.String(), Type.Object({ id: Type.String() }, { additionalProperties: true })]), {
        description: 'Every lead status of the organization, in the new order (objects with `id`, or ids).',
      }),
    ),
  },
  { additionalProperties: false },
)

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
      'Rename the organization, change its currency or country, or reorder its lead statuses (admin)',
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
      await db.transaction().execute(async (tx) => {
        if (body.lead_statuses !== undefined) {
          const order = body.lead_statuses.map((s) => (typeof s === 'string' ? s : s.id))
          const existing = await tx
            .selectFrom('lead_status')
            .select('id')
            .where('organization_id', '=', me.organizationId)
            .execute()
          const known = new Set(existing.map((s) => s.id))
          const isPermutation =
            order.length === known.size && new Set(order).size === order.length && order.every((id) => known.has(id))
          if (!isPermutation) {
            throw ValidationError.field(
              'lead_statuses',
              'List every lead status of the organization exactly once, in the new order.',
            )
          }
          for (const [position, id] of order.entries()) {
            await tx
              .updateTable('lead_status')
              .set({ position })
              .where('id', '=', id)
              .where('organization_id', '=', me.organizationId)
              .execute()
          }
        }
        await tx
          .updateTable('organization')
          .set({
            ...(body.name === undefined ? {} : { name: body.name.trim() }),
            ...(body.currency === undefined ? {} : { currency: body.currency }),
            ...(body.country === undefined ? {} : { country: body.country }),
            updated_by: me.userId,
            date_updated: formatTimestamp(clock.now()),
          })
          .where('id', '=', me.organizationId)
          .execute()
      })
      const org = (await meta.get(me.organizationId))?.organization
      if (org === undefined) throw new NotFoundError('Organization')
      return org
    },
  )
}
