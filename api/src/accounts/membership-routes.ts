import { Type, type Static } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import type { Deps } from '../crm/deps.js'
import type { Db, Dialect, Tx } from '../platform/data/database.js'
import { eventContext, recordEvents } from '../integrations/events/event-repo.js'
import { auditContext, recordAudit, type AuditInput } from '../integrations/events/audit-repo.js'
import { formatTimestamp } from '../platform/data/time.js'
import { HttpError, NotFoundError, ValidationError } from '../platform/http/errors.js'
import { requireAdmin } from '../platform/security/roles.js'
import type { KeyOwner } from '../platform/security/api-key-repo.js'
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
  two_factor_enabled: Type.Boolean({ description: 'Whether the member signs in with two factors.' }),
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

/**
 * The memberships of an organization as admins see them, with their users and when each last used a key; with
 * `membershipId`, that one alone (its keys alone are read for the last use).
 */
function membershipViews(db: Db, organizationId: string, membershipId?: string) {
  const query = db
    .selectFrom('membership')
    .innerJoin('user', 'user.id', 'membership.user_id')
    .leftJoin(
      (qb) => {
        const keys = qb.selectFrom('api_key').where('organization_id', '=', organizationId)
        return (membershipId === undefined ? keys : keys.where('membership_id', '=', membershipId))
          .select(['membership_id', (eb) => eb.fn.max('date_last_used').as('last_used')])
          .groupBy('membership_id')
          .as('used')
      },
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
      'user.totp_enabled_at',
    ])
    .where('membership.organization_id', '=', organizationId)
  return membershipId === undefined ? query : query.where('membership.id', '=', membershipId)
}

function viewOf({
  totp_enabled_at,
  ...row
}: Awaited<ReturnType<ReturnType<typeof membershipViews>['executeTakeFirstOrThrow']>>): Static<
  typeof membershipSchema
> {
  return { ...row, last_used: row.last_used ?? null, two_factor_enabled: totp_enabled_at !== null }
}

async function membershipView(db: Db, organizationId: string, id: string): Promise<Static<typeof membershipSchema>> {
  const row = await membershipViews(db, organizationId, id).executeTakeFirst()
  if (row === undefined) throw new NotFoundError('Membership')
  return viewOf(row)
}

type MembershipView = Static<typeof membershipSchema>

/**
 * Changes a membership's role or status and records the change as a `membership` event, so every process learns of
 * it: the BFFs end a deactivated member's sessions and close their open tabs from it (decision 0043). `last_used`
 * moves with every request and is no part of the change. Answers the membership as it is now.
 */
type MembershipChanges = { role?: 'admin' | 'user'; status?: 'active' | 'inactive'; date_deactivated?: string | null }

async function changeMembership(
  tx: Db,
  request: FastifyRequest,
  organizationId: string,
  id: string,
  changes: MembershipChanges,
  now: string,
): Promise<MembershipView> {
  const { last_used: _before, ...previous } = await membershipView(tx, organizationId, id)
  await tx
    .updateTable('membership')
    .set({ ...changes, date_updated: now })
    .where('id', '=', id)
    .execute()
  const after = await membershipView(tx, organizationId, id)
  const { last_used: _after, ...data } = after
  await recordEvents(tx, eventContext(request, now), [
    { objectType: 'membership', objectId: id, action: 'updated', leadId: null, data, previous },
  ])
  const member = { member_user_id: after.user_id, member_email: after.email }
  const audits: AuditInput[] = []
  if (changes.role !== undefined && changes.role !== previous.role_id)
    audits.push({
      action: 'role_changed',
      objectType: 'membership',
      objectId: id,
      details: { ...member, from: previous.role_id, to: changes.role },
    })
  if (changes.status !== undefined && changes.status !== previous.status)
    audits.push({
      action: changes.status === 'inactive' ? 'member_deactivated' : 'member_reactivated',
      objectType: 'membership',
      objectId: id,
      details: member,
    })
  await recordAudit(tx, auditContext(request, now), audits)
  return after
}

type LockedMembership = Awaited<ReturnType<typeof lockedMembership>>

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
  /**
   * An admin's change to one membership, under the organization's membership lock (404 when it is not there):
   * `decide` makes its checks and answers the changes, or nothing when the membership is already as asked. This
   * process forgets the member's cached keys at once; other processes within the auth cache's seconds.
   */
  async function changeMember(
    request: FastifyRequest,
    id: string,
    me: KeyOwner,
    decide: (tx: Tx, membership: LockedMembership, now: string) => Promise<MembershipChanges | undefined>,
  ): Promise<MembershipView> {
    const view = await db.transaction().execute(async (tx) => {
      const membership = await lockedMembership(tx, dialect, me.organizationId, id)
      const now = formatTimestamp(clock.now())
      const changes = await decide(tx, membership, now)
      if (changes === undefined) return membershipView(tx, me.organizationId, membership.id)
      return changeMembership(tx, request, me.organizationId, membership.id, changes, now)
    })
    auth.forget((owner) => owner.membershipId === id)
    return view
  }

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
      return { has_more: false, data: rows.map(viewOf) }
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
      return changeMember(request, request.params.id, me, async (tx, membership) => {
        if (role === undefined || role === membership.role) return undefined
        if (
          role === 'user' &&
          membership.status === 'active' &&
          !(await anotherAdmin(tx, me.organizationId, membership.id))
        )
          throw ValidationError.field('role_id', LAST_ADMIN)
        return { role: role === 'admin' ? ('admin' as const) : ('user' as const) }
      })
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
      return changeMember(request, request.params.id, me, async (tx, membership, now) => {
        if (membership.status === 'inactive') return undefined
        if (membership.role === 'admin' && !(await anotherAdmin(tx, me.organizationId, membership.id)))
          throw new HttpError(400, LAST_ADMIN)
        await tx
          .updateTable('api_key')
          .set({ date_revoked: now })
          .where('membership_id', '=', membership.id)
          .where('date_revoked', 'is', null)
          .execute()
        return { status: 'inactive' as const, date_deactivated: now }
      })
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
      return changeMember(request, request.params.id, me, async (_tx, membership) =>
        membership.status === 'active' ? undefined : { status: 'active' as const, date_deactivated: null },
      )
    },
  )
}
