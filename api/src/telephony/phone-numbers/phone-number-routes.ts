import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { phoneNumberSchema, phoneNumberTypeSchema } from '@leadline/shared/phone-number-schema'
import type { Db, PhoneNumberTable } from '../../platform/data/database.js'
import { found } from '../../platform/data/find-or-404.js'
import { adminChange, crudSchemas, listPage, viewOne, type Target } from '../../platform/http/crud-routes.js'
import { findOrganization } from '../../crm/organizations/organization-repo.js'
import type { Deps } from '../../crm/deps.js'
import { ValidationError } from '../../platform/http/errors.js'
import { listQuerySchema } from '../../platform/http/list.js'
import { caller } from '../../platform/http/request-context.js'
import { requireAdmin } from '../../platform/security/roles.js'
import { formatTimestamp } from '../../platform/data/time.js'
import { changeContext, recordEvents } from '../../integrations/events/event-repo.js'
import {
  DuplicatePhoneNumberError,
  deletePhoneNumber,
  findPhoneNumber,
  insertPhoneNumber,
  phoneNumberEvent,
  phoneNumberView,
  phoneNumbersQuery,
  updatePhoneNumber,
} from './phone-number-repo.js'
import { normalizePhoneNumber } from '../../platform/text/phone-format.js'
import { isMemberOf } from '../../crm/users/user-repo.js'

const schemas = crudSchemas(['phone numbers'], phoneNumberSchema)

const LABEL_MAX = 200
const numberSchema = Type.String({
  maxLength: 64,
  description: 'As dialled in the organization’s country, or international with `+`; stored in E.164.',
})
const labelSchema = Type.Union([Type.Null(), Type.String({ maxLength: LABEL_MAX })])
const userIdSchema = Type.Union([Type.Null(), Type.String()], {
  description: 'A user of your organization the number belongs to, or null.',
})

const listQuery = Type.Composite([
  listQuerySchema(),
  Type.Object({
    number: Type.Optional(Type.String({ description: 'Normalized like a stored number before comparing.' })),
    user_id: Type.Optional(Type.String()),
    type: Type.Optional(phoneNumberTypeSchema),
  }),
])

const createBody = Type.Object(
  {
    number: numberSchema,
    label: Type.Optional(labelSchema),
    type: Type.Optional(phoneNumberTypeSchema),
    user_id: Type.Optional(userIdSchema),
  },
  { additionalProperties: false },
)

const updateBody = Type.Object(
  {
    label: Type.Optional(labelSchema),
    type: Type.Optional(phoneNumberTypeSchema),
    user_id: Type.Optional(userIdSchema),
  },
  { additionalProperties: false, description: '`number` cannot change: it is ignored.' },
)

function cleanLabel(label: string | null | undefined): string | null | undefined {
  if (label === undefined || label === null) return label
  const trimmed = label.trim()
  return trimmed === '' ? null : trimmed
}

async function organizationCountry(db: Db, organizationId: string): Promise<string> {
  return found(await findOrganization(db, organizationId), 'Organization').country
}

/** An unencoded `+` in a query string arrives as a space: `?number=+4420…` means `+4420…`. */
function restorePlus(raw: string): string {
  return raw.replace(/^ (?=\d)/, '+')
}

export const phoneNumberRoutes: FastifyPluginAsyncTypebox<Deps> = async (app, { db, clock }) => {
  const phoneNumber: Target<PhoneNumberTable> = { find: findPhoneNumber, what: 'Phone number' }

  async function checkMember(tx: Db, organizationId: string, userId: string | null | undefined): Promise<void> {
    if (typeof userId === 'string' && !(await isMemberOf(tx, organizationId, userId))) {
      throw ValidationError.field('user_id', 'Not a user of your organization.')
    }
  }

  app.get(
    '/phone_number/',
    schemas.listBy('The phone numbers of your organization, optionally by number, user or type', listQuery),
    async (request) => {
      const me = caller(request)
      const { number: rawNumber, user_id, type } = request.query
      let number: string | undefined
      if (rawNumber !== undefined) {
        number = normalizePhoneNumber(restorePlus(rawNumber), await organizationCountry(db, me.organizationId))
        // What is not a phone number matches none.
        if (number === undefined) return { has_more: false, data: [] }
      }
      const query = phoneNumbersQuery(db, me.organizationId, {
        ...(number === undefined ? {} : { number }),
        ...(user_id === undefined ? {} : { user_id }),
        ...(type === undefined ? {} : { type }),
      })
      return listPage(query, request.query, phoneNumberView)
    },
  )

  app.get('/phone_number/:id/', schemas.get('One phone number'), async (request) =>
    viewOne(db, caller(request), request.params.id, phoneNumber, phoneNumberView),
  )

  app.post(
    '/phone_number/',
    schemas.create('Add a phone number to your organization (admin)', createBody),
    async (request) => {
      const me = requireAdmin(request)
      const body = request.body
      const number = normalizePhoneNumber(body.number, await organizationCountry(db, me.organizationId))
      if (number === undefined) throw ValidationError.field('number', 'Enter a valid phone number.')
      await checkMember(db, me.organizationId, body.user_id)
      const ctx = changeContext(request, formatTimestamp(clock.now()))
      try {
        return await db.transaction().execute(async (tx) => {
          const row = await insertPhoneNumber(tx, {
            organizationId: me.organizationId,
            number,
            label: cleanLabel(body.label) ?? null,
            type: body.type ?? 'internal',
            userId: body.user_id ?? null,
            now: ctx.now,
          })
          const view = phoneNumberView(row)
          await recordEvents(tx, ctx.events, [phoneNumberEvent(view, 'created')])
          return view
        })
      } catch (error) {
        if (error instanceof DuplicatePhoneNumberError) {
          throw ValidationError.field('number', 'Your organization already has this phone number.')
        }
        throw error
      }
    },
  )

  app.put(
    '/phone_number/:id/',
    schemas.update('Change the label, type or user of a phone number (admin)', updateBody),
    async (request) =>
      adminChange(db, request, request.params.id, phoneNumber, async (tx, existing, me) => {
        const body = request.body
        await checkMember(tx, me.organizationId, body.user_id)
        const label = cleanLabel(body.label)
        const ctx = changeContext(request, formatTimestamp(clock.now()))
        await updatePhoneNumber(tx, me.organizationId, existing.id, {
          ...(label === undefined ? {} : { label }),
          ...(body.type === undefined ? {} : { type: body.type }),
          ...(body.user_id === undefined ? {} : { user_id: body.user_id }),
          now: ctx.now,
        })
        const after = await viewOne(tx, me, existing.id, phoneNumber, phoneNumberView)
        await recordEvents(tx, ctx.events, [phoneNumberEvent(after, 'updated', phoneNumberView(existing))])
        return after
      }),
  )

  app.delete(
    '/phone_number/:id/',
    schemas.delete('Remove a phone number from your organization (admin)'),
    async (request) => {
      await adminChange(db, request, request.params.id, phoneNumber, async (tx, existing, me) => {
        const ctx = changeContext(request, formatTimestamp(clock.now()))
        await deletePhoneNumber(tx, me.organizationId, existing.id)
        await recordEvents(tx, ctx.events, [phoneNumberEvent(phoneNumberView(existing), 'deleted')])
      })
      return {}
    },
  )
}
