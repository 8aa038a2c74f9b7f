import { Type, type Static } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Deps } from '../crm/deps.js'
import type { Db, Dialect, Tx } from '../platform/data/database.js'
import { formatTimestamp } from '../platform/data/time.js'
import { HttpError, NotFoundError, ValidationError } from '../platform/http/errors.js'
import { requireAdmin } from '../platform/security/roles.js'
import { lockMemberships } from './account-repo.js'

const tags = ['memberships']
const params = Type.Object({ id: Type.String({ maxLength: 100 }) })

/** Close's predefined roles Leadline has; `superuser` and `restricteduser` are not (yet) Leadline's. */
const ROLES = ['admin', 'user'] as const

const membershipSchema = Type.Object({
  id: Type.String(),
  organization_id: Type.String(),
  user_id: Type.String(),
  role_id: Type.Union(ROLES.map((role) => Type.Literal(role))),
  status: Type.Union([Type.Literal('active'), Type.Literal('inactive')]),
  email: Type.String(),
  first_name: Type.Union([Type.String(), Type.Null()]),
  last_name: Type.Union([Type.String(), Type.Null()]),
  date_created: Type.String(),
  date_deactivated: Type.Union([Type.String(), Type.Null()]),
  last_used: Type.Union([Type.String(), Type.Null()], {
    description: 'When any key of the member (a session or an API key) was last used.',
  }),
  two_factor_enabled: Type.Boolean({ description: 'Whether the member signs in with a second factor.' }),
})

const updateBody = Type.Object(
  {
    role_id: Type.Optional(
      Type.String({ maxLength: 100, description: '`admin` or `user` (Close’s other roles are not offered).' }),
    ),
  },
  { additionalProperties: true },
)

const LAST_ADMIN = 'The organization needs at least one active admin.'

/** The memberships of an organization as admins see them, with their users and when each last used a key. */
function membershipViews(db: Db, organizationId: string) {
  return db
    .selectFrom('membership')
    .innerJoin('user', 'user.id', 'membership.user_id')
    .leftJoin(
      (qb) =>
        qb
          .selectFrom('api_key')
          .select(['membership_id', (eb) => eb.fn.max('date_last_used').as('last_used')])
          .where('organization_id', '=', organizationId)
          .groupBy('membership_id')
          .as('used'),
      (join) => join.onRef('used.membership_id', '=', 'membership.id'),
    )
    .select([
      'membership.id',
      'membership.organization_id',
      'membership.user_id',
      'membership.role as role_id',
      'membership.status',
      'user.email',
      'user.first_name',
      'user.last_name',
      'membership.date_created',
      'membership.date_deactivated',
      'used.last_used',
    ])
    .where('membership.organization_id', '=', organizationId)
}

async function membershipView(db: Db, organizationId: string, id: string): Promise<Static<typeof membershipSchema>> {
  const row = await membershipViews(db, organizationId).where('membership.id', '=', id).executeTakeFirst()
  if (row === undefined) throw new NotFoundError('Membership')
  return view(row)
}

/** Two-factor sign-in does not exist yet: no member has it on. */
function view(row: Awaited<ReturnType<ReturnType<typeof membershipViews>['executeTakeFirstOrThrow']>>) {
  return { ...row, last_used: row.last_used ?? null, two_factor_enabled: false }
}

/** One of the organization's memberships, read under the organization's membership lock; else 404. */
async function lockedMembership(tx: Tx, dialect: Dialect, organizationId: string, id: string) {
  await lockMemberships(tx, dialect, organizationId)
  const membership = await tx
    .selectFrom('membership')
    .select(['id', 'role', 'status'])
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst()
  if (membership === undefined) throw new NotFoundError('Membership')
  return membership
}

/** Whether another active admin than `membershipId` remains. */
async function anotherAdmin(tx: Tx, organizationId: string, membershipId: string): Promise<boolean> {
  const other = await tx
    .selectFrom('membership')
    .select('id')
    .where('organization_id', '=', organizationId)
    .where('role', '=', 'admin')
    .where('status', '=', 'active')
    .where('id', '!=', membershipId)
    .limit(1)
    .executeTakeFirst()
  return other !== undefined
}

/**
 * The organization's members for its admins (Close's `PUT /membership/{id}/` for the role; listing, deactivating and
 * reactivating are Leadline's own). The last active admin can be neither demoted nor deactivated.
 */
export const membershipRoutes: FastifyPluginAsyncTypebox<Deps> = async (app, { db, dialect, clock, auth }) => {
  app.get(
    '/membership/',
    {
      schema: {
        tags,
        summary: 'The organization’s members, active and deactivated (admin)',
        response: { 200: Type.Object({ has_more: Type.Boolean(), data: Type.Array(membershipSchema) }) },
      },
    },
    async (request) => {
      const me = requireAdmin(request)
      const rows = await membershipViews(db, me.organizationId)
        .orderBy('membership.date_created')
        .orderBy('membership.id')
        .limit(1000)
        .execute()
      return { has_more: false, data: rows.map(view) }
    },
  )

  app.get(
    '/membership/:id/',
    { schema: { tags, summary: 'One member (admin)', params, response: { 200: membershipSchema } } },
    async (request) => {
      const me = requireAdmin(request)
      return membershipView(db, me.organizationId, request.params.id)
    },
  )

  app.put(
    '/membership/:id/',
    {
      schema: {
        tags,
        summary: 'Change a member’s role (admin); refused for the last active admin',
        params,
        body: updateBody,
        response: { 200: membershipSchema },
      },
    },
    async (request) => {
      const me = requireAdmin(request)
      const role = request.body.role_id
      if (role !== undefined && !ROLES.some((known) => known === role)) {
        throw ValidationError.field('role_id', 'Choose admin or user.')
      }
      await db.transaction().execute(async (tx) => {
        const membership = await lockedMembership(tx, dialect, me.organizationId, request.params.id)
        if (role === undefined || role === membership.role) return
        if (
          role === 'user' &&
          membership.status === 'active' &&
          !(await anotherAdmin(tx, me.organizationId, membership.id))
        )
          throw ValidationError.field('role_id', LAST_ADMIN)
        await tx
          .updateTable('membership')
          .set({ role: role === 'admin' ? 'admin' : 'user', date_updated: formatTimestamp(clock.now()) })
          .where('id', '=', membership.id)
          .execute()
      })
      // This process knows the new role at once; others within the auth cache's seconds.
      auth.forget((owner) => owner.membershipId === request.params.id)
      return membershipView(db, me.organizationId, request.params.id)
    },
  )

  app.post(
    '/membership/:id/deactivate/',
    {
      schema: {
        tags,
        summary:
          'Deactivate a member (admin): every key and session of theirs is refused, their records keep their name',
        params,
        response: { 200: membershipSchema },
      },
    },
    async (request) => {
      const me = requireAdmin(request)
      if (request.params.id === me.membershipId) throw new HttpError(400, 'You cannot deactivate yourself.')
      await db.transaction().execute(async (tx) => {
        const membership = await lockedMembership(tx, dialect, me.organizationId, request.params.id)
        if (membership.status === 'inactive') return
        if (membership.role === 'admin' && !(await anotherAdmin(tx, me.organizationId, membership.id)))
          throw new HttpError(400, LAST_ADMIN)
        const now = formatTimestamp(clock.now())
        await tx
          .updateTable('membership')
          .set({ status: 'inactive', date_deactivated: now, date_updated: now })
          .where('id', '=', membership.id)
          .execute()
        await tx
          .updateTable('api_key')
          .set({ date_revoked: now })
          .where('membership_id', '=', membership.id)
          .where('date_revoked', 'is', null)
          .execute()
      })
      auth.forget((owner) => owner.membershipId === request.params.id)
      return membershipView(db, me.organizationId, request.params.id)
    },
  )

  app.post(
    '/membership/:id/reactivate/',
    {
      schema: {
        tags,
        summary: 'Reactivate a member (admin); they sign in again (their old keys stay revoked)',
        params,
        response: { 200: membershipSchema },
      },
    },
    async (request) => {
      const me = requireAdmin(request)
      const now = formatTimestamp(clock.now())
      const result = await db
        .updateTable('membership')
        .set({ status: 'active', date_deactivated: null, date_updated: now })
        .where('organization_id', '=', me.organizationId)
        .where('id', '=', request.params.id)
        .executeTakeFirst()
      if (result.numUpdatedRows === 0n) throw new NotFoundError('Membership')
      return membershipView(db, me.organizationId, request.params.id)
    },
  )
}
