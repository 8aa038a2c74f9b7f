import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { listEnvelopeSchema } from '@leadline/shared/list'
import {
  availabilitySchema,
  userSchema,
  type AVAILABILITY_TYPES,
  type Availability,
  type ActiveCall,
} from '@leadline/shared/user-schema'
import type { Db } from '../../platform/data/database.js'
import type { Deps } from '../deps.js'
import { NotFoundError } from '../../platform/http/errors.js'
import { crudSchemas } from '../../platform/http/crud-routes.js'
import { fetchPage, fieldsQuerySchema, listQuerySchema } from '../../platform/http/list.js'
import { caller } from '../../platform/http/request-context.js'
import { RawJson } from '../../platform/http/raw-json.js'
import { formatTimestamp } from '../../platform/data/time.js'
import { listPresence } from './presence-repo.js'
import { userViews } from './user-view.js'
import { found } from '../../platform/data/find-or-404.js'

const tags = ['users']
const schemas = crudSchemas(tags, userSchema)

/**
 * What `/me/` and availability show of other domains, handed in by the composition root (app/app.ts): users sit
 * below email and telephony, which must not be imported from here.
 */
export interface UserRouteSources {
  /** The user's email accounts as the API shows them (`/me/`). */
  emailAccountsOf: (db: Db, organizationId: string, userId: string) => Promise<unknown[]>
  /** The calls each user is on now. */
  activeCallsByUser: (db: Db, organizationId: string, now: Date) => Promise<Map<string, ActiveCall[]>>
}

export const userRoutes: FastifyPluginAsyncTypebox<Deps & UserRouteSources> = async (
  app,
  { db, clock, config, meta, views, emailAccountsOf, activeCallsByUser },
) => {
  app.get(
    '/me/',
    {
      // Open before two-factor is on: the app needs to know who is signed in to send them to turn it on.
      config: { beforeTwoFactor: true },
      schema: {
        tags,
        summary: 'The user the API key belongs to, with their organization and memberships',
        querystring: fieldsQuerySchema,
      },
    },
    async (request) => {
      const me = caller(request)
      // Everything /me/ shows (the user, the organization, memberships, phone numbers, email accounts) moves the meta
      // version: that one number says whether the cached answer is current, and the metadata is needed only to build
      // a new one.
      const version = found(await meta.version(me.organizationId), 'Organization')
      const key = `me:${me.organizationId}:${me.userId}`
      const cached = views.get(key, 0, version)
      if (cached !== undefined) return new RawJson(cached)
      const organization = await meta.require(me.organizationId, version)
      const user = await db.selectFrom('user').selectAll().where('id', '=', me.userId).executeTakeFirstOrThrow()
      const [view] = await userViews(db, me.organizationId, [user])
      const text = JSON.stringify({
        ...view,
        organizations: [organization.organization],
        memberships: organization.organization.memberships.filter((m) => m.user_id === me.userId),
        email_accounts: await emailAccountsOf(db, me.organizationId, me.userId),
        // Leadline's own: the zone chosen on the Profile (null: the browser's), which the web app's session takes.
        time_zone: user.time_zone,
        // The SIP credentials are the user's own: shown here and nowhere else.
        sip_user: { username: user.sip_username, password: user.sip_password },
      })
      views.set(key, 0, organization.version, text)
      return new RawJson(text)
    },
  )

  app.get(
    '/user/',
    schemas.listBy(
      'The active users of your organization, each with their phone numbers in it',
      listQuerySchema('user'),
    ),
    async (request) => {
      const me = caller(request)
      const page = await fetchPage(
        db
          .selectFrom('user')
          .innerJoin('membership', 'membership.user_id', 'user.id')
          .selectAll('user')
          .where('membership.organization_id', '=', me.organizationId)
          // Deactivated members are not offered anywhere users are picked; `/user/{id}/` still shows them.
          .where('membership.status', '=', 'active')
          .orderBy('user.date_created')
          .orderBy('user.id'),
        request.query,
      )
      return { has_more: page.has_more, data: await userViews(db, me.organizationId, page.data) }
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
      const [members, presence, calls] = await Promise.all([
        db
          .selectFrom('membership')
          .select('user_id')
          .where('organization_id', '=', me.organizationId)
          .where('status', '=', 'active')
          .orderBy('date_created')
          .orderBy('id')
          .execute(),
        listPresence(db, me.organizationId),
        activeCallsByUser(db, me.organizationId, clock.now()),
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
        // A user on a call is online, whatever client they were last seen with.
        const activeCalls = calls.get(user_id) ?? []
        return {
          user_id,
          status: activeCalls.length > 0 || Object.values(statusByType).includes('online') ? 'online' : 'offline',
          status_by_type: statusByType,
          last_seen: lastSeen,
          active_calls: activeCalls,
        }
      })
      return { has_more: false, data }
    },
  )

  app.get(
    '/user/:id/',
    schemas.get('One user of your organization, with their phone numbers in it'),
    async (request) => {
      const me = caller(request)
      const user = await db
        .selectFrom('user')
        .innerJoin('membership', 'membership.user_id', 'user.id')
        .selectAll('user')
        .where('membership.organization_id', '=', me.organizationId)
        .where('user.id', '=', request.params.id)
        .executeTakeFirst()
      const [view] = user === undefined ? [] : await userViews(db, me.organizationId, [user])
      if (view === undefined) throw new NotFoundError('User')
      return view
    },
  )
}
