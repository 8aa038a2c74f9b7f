import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { listEnvelopeSchema } from '@leadline/shared/list'
import {
  availabilitySchema,
  userSchema,
  type AVAILABILITY_TYPES,
  type Availability,
} from '@leadline/shared/user-schema'
import { membershipViews, organizationView } from '../organizations/organization-view.js'
import type { Deps } from '../platform/deps.js'
import { NotFoundError } from '../platform/errors.js'
import { fetchPage, fieldsQuerySchema, listQuerySchema } from '../platform/list.js'
import { caller } from '../platform/request-context.js'
import { formatTimestamp } from '../platform/time.js'
import { listPresence } from './presence-repo.js'
import { userView } from './user-view.js'

const tags = ['users']
const idParams = Type.Object({ id: Type.String() })

export const userRoutes: FastifyPluginAsyncTypebox<Deps> = async (app, { db, clock, config }) => {
  app.get(
    '/me/',
    {
      schema: {
        tags,
        summary: 'The user the API key belongs to, with their organization and memberships',
        querystring: fieldsQuerySchema,
      },
    },
    async (request) => {
      const me = caller(request)
      const user = await db.selectFrom('user').selectAll().where('id', '=', me.userId).executeTakeFirstOrThrow()
      const [organization, memberships, phoneNumbers] = await Promise.all([
        organizationView(db, me.organizationId),
        membershipViews(db, me.organizationId, me.userId),
        db
          .selectFrom('phone_number')
          .selectAll()
          .where('organization_id', '=', me.organizationId)
          .where('user_id', '=', me.userId)
          .execute(),
      ])
      return {
        ...userView(user, me.organizationId),
        organizations: organization === undefined ? [] : [organization],
        memberships,
        email_accounts: [],
        phone_numbers: phoneNumbers.map((p) => ({ id: p.id, number: p.number, label: p.label, type: p.type })),
        // The SIP credentials are the user's own: shown here and nowhere else.
        sip_user: { username: user.sip_username, password: user.sip_password },
      }
    },
  )

  app.get(
    '/user/',
    {
      schema: {
        tags,
        summary: 'The users of your organization',
        querystring: listQuerySchema('user'),
        response: { 200: listEnvelopeSchema(userSchema) },
      },
    },
    async (request) => {
      const me = caller(request)
      const page = await fetchPage(
        db
          .selectFrom('user')
          .innerJoin('membership', 'membership.user_id', 'user.id')
          .selectAll('user')
          .where('membership.organization_id', '=', me.organizationId)
          .orderBy('user.date_created')
          .orderBy('user.id'),
        request.query,
      )
      return { has_more: page.has_more, data: page.data.map((u) => userView(u, me.organizationId)) }
    },
  )

  app.get(
    '/user/availability/',
    {
      schema: {
        tags,
        summary: 'Whether each user of the organization is online, by client type',
        querystring: Type.Object({ organization_id: Type.Optional(Type.String()) }),
        response: { 200: listEnvelopeSchema(availabilitySchema) },
      },
    },
    async (request) => {
      const me = caller(request)
      const orgId = request.query.organization_id
      if (orgId !== undefined && orgId !== me.organizationId) throw new NotFoundError('Organization')
      const [members, presence] = await Promise.all([
        db
          .selectFrom('membership')
          .select('user_id')
          .where('organization_id', '=', me.organizationId)
          .orderBy('date_created')
          .orderBy('id')
          .execute(),
        listPresence(db, me.organizationId),
      ])
      const onlineSince = formatTimestamp(new Date(clock.now().getTime() - config.presenceWindowSeconds * 1000))
      const data = members.map(({ user_id }): Availability => {
        const seen = presence.filter((p) => p.user_id === user_id)
        const online = (type: (typeof AVAILABILITY_TYPES)[number]): 'online' | 'offline' =>
          seen.some((p) => p.client_type === type && p.last_seen >= onlineSince) ? 'online' : 'offline'
        const statusByType = { mobile: online('mobile'), native: online('native'), web: online('web') }
        const lastSeen =
          seen
            .map((p) => p.last_seen)
            .sort()
            .at(-1) ?? null
        return {
          user_id,
          status: Object.values(statusByType).includes('online') ? 'online' : 'offline',
          status_by_type: statusByType,
          last_seen: lastSeen,
          active_calls: [],
        }
      })
      return { has_more: false, data }
    },
  )

  app.get(
    '/user/:id/',
    {
      schema: {
        tags,
        summary: 'One user of your organization',
        params: idParams,
        querystring: fieldsQuerySchema,
        response: { 200: userSchema },
      },
    },
    async (request) => {
      const me = caller(request)
      const user = await db
        .selectFrom('user')
        .innerJoin('membership', 'membership.user_id', 'user.id')
        .selectAll('user')
        .where('membership.organization_id', '=', me.organizationId)
        .where('user.id', '=', request.params.id)
        .executeTakeFirst()
      if (user === undefined) throw new NotFoundError('User')
      return userView(user, me.organizationId)
    },
  )
}
