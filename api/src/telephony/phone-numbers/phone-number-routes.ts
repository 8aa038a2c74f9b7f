import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { listEnvelopeSchema } from '@leadline/shared/list'
import { phoneNumberSchema, phoneNumberTypeSchema } from '@leadline/shared/phone-number-schema'
import type { Db } from '../../platform/data/database.js'
import { findOrganization } from '../../crm/organizations/organization-repo.js'
import type { Deps } from '../../crm/deps.js'
import { NotFoundError, ValidationError } from '../../platform/http/errors.js'
import { fetchPage, fieldsQuerySchema, listQuerySchema } from '../../platform/http/list.js'
import { caller } from '../../platform/http/request-context.js'
import { requireAdmin, requireAdminOver } from '../../platform/security/roles.js'
import { formatTimestamp } from '../../platform/data/time.js'
import {
  DuplicatePhoneNumberError,
  deletePhoneNumber,
  findPhoneNumber,
  insertPhoneNumber,
  isMemberOf,
  phoneNumberView,
  phoneNumbersQuery,
  updatePhoneNumber,
} from './phone-number-repo.js'
import { normalizePhoneNumber } from '../../platform/text/phone-format.js'

const tags = ['phone numbers']
const params = Type.Object({ id: Type.String() })

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
  const org = await findOrganization(db, organizationId)
  if (org === undefined) throw new NotFoundError('Organization')
  return org.country
}

/** An unencoded `+` in a query string arrives as a space: `?number=+4420…` means `+4420…`. */
function restorePlus(raw: string): string {
  return raw.replace(/^ (?=\d)/, '+')
}

export const phoneNumberRoutes: FastifyPluginAsyncTypebox<Deps> = async (app, { db, clock }) => {
  // Role checks come first, with one read (platform/security/roles.ts).
  const phoneNumberOf = (id: string) => (organizationId: string) => findPhoneNumber(db, organizationId, id)
  const phoneNumberNotFound = () => new NotFoundError('Phone number')

  async function checkMember(organizationId: string, userId: string | null | undefined): Promise<void> {
    if (typeof userId === 'string' && !(await isMemberOf(db, organizationId, userId))) {
      throw ValidationError.field('user_id', 'Not a user of your organization.')
    }
  }

  app.get(
    '/phone_number/',
    {
      schema: {
        tags,
        summary: 'The phone numbers of your organization, optionally by number, user or type',
        querystring: listQuery,
        response: { 200: listEnvelopeSchema(phoneNumberSchema) },
      },
    },
    async (request) => {
      const me = caller(request)
      const { number: rawNumber, user_id, type } = request.query
      let number: string | undefined
      if (rawNumber !== undefined) {
        number = normalizePhoneNumber(restorePlus(rawNumber), await organizationCountry(db, me.organizationId))
        // What is not a phone number matches none.
        if (number === undefined) return { has_more: false, data: [] }
      }
      const page = await fetchPage(
        phoneNumbersQuery(db, me.organizationId, {
          ...(number === undefined ? {} : { number }),
          ...(user_id === undefined ? {} : { user_id }),
          ...(type === undefined ? {} : { type }),
        }),
        request.query,
      )
      return { has_more: page.has_more, data: page.data.map(phoneNumberView) }
    },
  )

  app.get(
    '/phone_number/:id/',
    {
      schema: {
        tags,
        summary: 'One phone number',
        params,
        querystring: fieldsQuerySchema,
        response: { 200: phoneNumberSchema },
      },
    },
    async (request) => {
      const me = caller(request)
      const row = await findPhoneNumber(db, me.organizationId, request.params.id)
      if (row === undefined) throw new NotFoundError('Phone number')
      return phoneNumberView(row)
    },
  )

  app.post(
    '/phone_number/',
    {
      schema: {
        tags,
        summary: 'Add a phone number to your organization (admin)',
        querystring: fieldsQuerySchema,
        body: createBody,
        response: { 200: phoneNumberSchema },
      },
    },
    async (request) => {
      const me = requireAdmin(request)
      const body = request.body
      const number = normalizePhoneNumber(body.number, await organizationCountry(db, me.organizationId))
      if (number === undefined) throw ValidationError.field('number', 'Enter a valid phone number.')
      await checkMember(me.organizationId, body.user_id)
      try {
        const row = await insertPhoneNumber(db, {
          organizationId: me.organizationId,
          number,
          label: cleanLabel(body.label) ?? null,
          type: body.type ?? 'internal',
          userId: body.user_id ?? null,
          now: formatTimestamp(clock.now()),
        })
        return phoneNumberView(row)
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
    {
      schema: {
        tags,
        summary: 'Change the label, type or user of a phone number (admin)',
        params,
        querystring: fieldsQuerySchema,
        body: updateBody,
        response: { 200: phoneNumberSchema },
      },
    },
    async (request) => {
      const me = await requireAdminOver(request, phoneNumberOf(request.params.id), phoneNumberNotFound)
      const existing = await findPhoneNumber(db, me.organizationId, request.params.id)
      if (existing === undefined) throw phoneNumberNotFound()
      const body = request.body
      await checkMember(me.organizationId, body.user_id)
      const label = cleanLabel(body.label)
      await updatePhoneNumber(db, me.organizationId, existing.id, {
        ...(label === undefined ? {} : { label }),
        ...(body.type === undefined ? {} : { type: body.type }),
        ...(body.user_id === undefined ? {} : { user_id: body.user_id }),
        now: formatTimestamp(clock.now()),
      })
      const row = await findPhoneNumber(db, me.organizationId, existing.id)
      if (row === undefined) throw new NotFoundError('Phone number')
      return phoneNumberView(row)
    },
  )

  app.delete(
    '/phone_number/:id/',
    {
      schema: {
        tags,
        summary: 'Remove a phone number from your organization (admin)',
        params,
        response: { 200: Type.Object({}) },
      },
    },
    async (request) => {
      const me = await requireAdminOver(request, phoneNumberOf(request.params.id), phoneNumberNotFound)
      const existing = await findPhoneNumber(db, me.organizationId, request.params.id)
      if (existing === undefined) throw phoneNumberNotFound()
      await deletePhoneNumber(db, me.organizationId, existing.id)
      return {}
    },
  )
}
