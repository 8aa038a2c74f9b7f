import { Type, type Static } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import type { Deps } from '../crm/deps.js'
import { displayName, findUserByEmail } from '../crm/users/user-repo.js'
import type { Db } from '../platform/data/database.js'
import { formatTimestamp } from '../platform/data/time.js'
import { HttpError, NotFoundError, ValidationError } from '../platform/http/errors.js'
import { requireAdmin, requireAdminOver } from '../platform/security/roles.js'
import { linkTokenHash } from '../platform/security/single-use-link.js'
import { lockMemberships } from './account-repo.js'
import {
  createInvitation,
  INVITATION_INVALID,
  INVITATIONS_PER_HOUR,
  invitationStatus,
  joinByInvitation,
  memberOf,
  pendingInvitationByToken,
  resendInvitation,
  type InvitedUser,
} from './invitation-repo.js'
import { hashPassword, MAX_PASSWORD_LENGTH, passwordProblem, verifyPassword } from './passwords.js'
import {
  callerAddress,
  mintSessionKey,
  refuseWhenThrottled,
  signInAnswerSchema,
  sessionTerms,
} from './session-routes.js'
import { findSingleSignOn } from './single-sign-on-repo.js'
import { clearAccountFailures, recordFailure, SIGN_IN_LIMITS, throttleKeys } from './sign-in-throttle.js'

const tags = ['invitations']
const params = Type.Object({ id: Type.String({ maxLength: 100 }) })
const ROLES = ['admin', 'user'] as const
const nullableString = Type.Union([Type.String(), Type.Null()])

const invitationSchema = Type.Object({
  id: Type.String(),
  organization_id: Type.String(),
  email: Type.String(),
  role_id: Type.Union(ROLES.map((role) => Type.Literal(role))),
  status: Type.Union(['pending', 'accepted', 'revoked', 'expired'].map((status) => Type.Literal(status))),
  invited_by: Type.Union([Type.String(), Type.Null()], { description: 'Null when an operator invited with the CLI.' }),
  invited_by_name: nullableString,
  date_created: Type.String(),
  date_expires: Type.String(),
  date_last_sent: Type.String(),
  date_accepted: nullableString,
})

const createBody = Type.Object({
  email: Type.String({ maxLength: 320 }),
  role_id: Type.Optional(Type.String({ maxLength: 100, description: '`admin` or `user` (default).' })),
})

const tokenField = Type.String({ maxLength: 100, description: 'The token of the emailed link.' })

const acceptBody = Type.Object(
  {
    token: tokenField,
    first_name: Type.Optional(Type.String({ maxLength: 100, description: 'Required for a new user; else ignored.' })),
    last_name: Type.Optional(Type.String({ maxLength: 100, description: 'Required for a new user; else ignored.' })),
    password: Type.String({
      maxLength: MAX_PASSWORD_LENGTH,
      description: 'A new user’s password; for an existing user, their current password.',
    }),
    ...sessionTerms,
  },
  { additionalProperties: false },
)

/** The organization's invitations as its admins see them, with the inviter's name. */
function invitationViews(db: Db, organizationId: string) {
  return db
    .selectFrom('invitation')
    .leftJoin('user', 'user.id', 'invitation.invited_by')
    .select([
      'invitation.id',
      'invitation.organization_id',
      'invitation.email',
      'invitation.role',
      'invitation.invited_by',
      'user.first_name',
      'user.last_name',
      'user.email as inviter_email',
      'invitation.date_created',
      'invitation.date_expires',
      'invitation.date_last_sent',
      'invitation.date_accepted',
      'invitation.date_revoked',
    ])
    .where('invitation.organization_id', '=', organizationId)
}

type InvitationRow = Awaited<ReturnType<ReturnType<typeof invitationViews>['executeTakeFirstOrThrow']>>

function invitationView(row: InvitationRow, now: Date): Static<typeof invitationSchema> {
  const { role, first_name, last_name, inviter_email, date_revoked: _revoked, ...rest } = row
  return {
    ...rest,
    role_id: role,
    status: invitationStatus(row, now),
    invited_by_name: inviter_email === null ? null : displayName({ first_name, last_name, email: inviter_email }),
  }
}

async function findInvitation(db: Db, organizationId: string, id: string) {
  return invitationViews(db, organizationId).where('invitation.id', '=', id).executeTakeFirst()
}

const notFound = () => new NotFoundError('Invitation')

/**
 * Invitations to join the organization (admins), and the public side of their links: what a link is for, and
 * accepting it, which signs the new member in.
 */
export const invitationRoutes: FastifyPluginAsyncTypebox<Deps> = async (app, { db, dialect, clock }) => {
  const viewOf = async (organizationId: string, id: string) => {
    const row = await findInvitation(db, organizationId, id)
    if (row === undefined) throw notFound()
    return invitationView(row, clock.now())
  }
  const adminOver = (request: FastifyRequest, id: string) =>
    requireAdminOver(request, (organizationId) => findInvitation(db, organizationId, id), notFound)

  app.get(
    '/invitation/',
    {
      schema: {
        tags,
        summary: 'The organization’s invitations not accepted or revoked, newest first (admin)',
        response: { 200: Type.Object({ has_more: Type.Boolean(), data: Type.Array(invitationSchema) }) },
      },
    },
    async (request) => {
      const me = requireAdmin(request)
      const now = clock.now()
      const rows = await invitationViews(db, me.organizationId)
        .where('invitation.date_accepted', 'is', null)
        .where('invitation.date_revoked', 'is', null)
        .orderBy('invitation.date_created', 'desc')
        .orderBy('invitation.id')
        .limit(1000)
        .execute()
      return { has_more: false, data: rows.map((row) => invitationView(row, now)) }
    },
  )

  app.get(
    '/invitation/:id/',
    { schema: { tags, summary: 'One invitation (admin)', params, response: { 200: invitationSchema } } },
    async (request) => {
      const me = await adminOver(request, request.params.id)
      return viewOf(me.organizationId, request.params.id)
    },
  )

  app.post(
    '/invitation/',
    {
      schema: {
        tags,
        summary: 'Invite an address to join the organization (admin); the link is emailed by the system mailer',
        description:
          'Refused on `email` for a member’s address (active or deactivated) or one invited already and pending; ' +
          `429 with \`Retry-After\` past ${String(INVITATIONS_PER_HOUR)} invitation emails an hour.`,
        body: createBody,
        response: { 200: invitationSchema },
      },
    },
    async (request) => {
      const me = requireAdmin(request)
      const role = request.body.role_id ?? 'user'
      if (role !== 'admin' && role !== 'user') throw ValidationError.field('role_id', 'Choose admin or user.')
      const made = await db.transaction().execute((tx) =>
        createInvitation(tx, dialect, clock, {
          organizationId: me.organizationId,
          email: request.body.email,
          role,
          invitedBy: me.userId,
        }),
      )
      return viewOf(me.organizationId, made.id)
    },
  )

  app.post(
    '/invitation/:id/resend/',
    {
      schema: {
        tags,
        summary: 'Email a pending or expired invitation again with a new link, for 7 more days (admin)',
        description: 'The old link stops working. Refused within a minute of the last email.',
        params,
        response: { 200: invitationSchema },
      },
    },
    async (request) => {
      const me = await adminOver(request, request.params.id)
      await db.transaction().execute(async (tx) => {
        await lockMemberships(tx, dialect, me.organizationId)
        const row = await findInvitation(tx, me.organizationId, request.params.id)
        if (row === undefined) throw notFound()
        await resendInvitation(tx, clock, row)
      })
      return viewOf(me.organizationId, request.params.id)
    },
  )

  app.delete(
    '/invitation/:id/',
    { schema: { tags, summary: 'Revoke an invitation: its link stops working (admin)', params } },
    async (request) => {
      const me = await adminOver(request, request.params.id)
      const row = await findInvitation(db, me.organizationId, request.params.id)
      if (row === undefined) throw notFound()
      if (row.date_accepted !== null) throw new HttpError(400, 'This invitation was accepted: it cannot be revoked.')
      await db
        .updateTable('invitation')
        .set({ date_revoked: formatTimestamp(clock.now()) })
        .where('id', '=', row.id)
        .where('date_revoked', 'is', null)
        .execute()
      return {}
    },
  )

  app.post(
    '/auth/invitation/lookup/',
    {
      config: { public: true },
      schema: {
        tags,
        security: [],
        summary: 'What an invitation link is for: the address, the organization, and whether the person has an account',
        body: Type.Object({ token: tokenField }, { additionalProperties: false }),
        response: {
          200: Type.Object({
            email: Type.String(),
            organization_name: Type.String(),
            existing_user: Type.Boolean(),
            single_sign_on: Type.Boolean({
              description: 'The organization signs in by single sign-on: the invitation can be accepted through it.',
            }),
          }),
        },
      },
    },
    async (request) => {
      const invitation = await pendingInvitationByToken(db, request.body.token, clock.now())
      if (invitation === undefined || (await memberOf(db, invitation)) !== undefined)
        throw new HttpError(400, INVITATION_INVALID)
      const user = await findUserByEmail(db, invitation.email_lower)
      return {
        email: invitation.email,
        organization_name: invitation.organization_name,
        existing_user: user !== undefined,
        single_sign_on: (await findSingleSignOn(db, invitation.organization_id))?.enabled === true,
      }
    },
  )

  app.post(
    '/auth/invitation/accept/',
    {
      config: { public: true },
      schema: {
        tags,
        security: [],
        summary: 'Accept an invitation: a new user, or an existing one with their password, joins; a session key',
        description:
          'A new user gives their names and a password; a person with an account gives its current password (a ' +
          'wrong one counts as a failed sign-in) and their names are ignored. The link works once.',
        body: acceptBody,
        response: { 200: signInAnswerSchema },
      },
    },
    async (request) => {
      const body = request.body
      const now = clock.now()
      const invitation = await pendingInvitationByToken(db, body.token, now)
      if (invitation === undefined || (await memberOf(db, invitation)) !== undefined)
        throw new HttpError(400, INVITATION_INVALID)
      const existing = await findUserByEmail(db, invitation.email_lower)
      let newUser: InvitedUser | undefined
      if (existing === undefined) {
        const firstName = body.first_name?.trim() ?? ''
        const lastName = body.last_name?.trim() ?? ''
        const problems: Record<string, string> = {}
        if (firstName === '') problems.first_name = 'Enter your first name.'
        if (lastName === '') problems.last_name = 'Enter your last name.'
        const weak = await passwordProblem(body.password, [invitation.email_lower, firstName, lastName])
        if (weak !== undefined) problems.password = weak
        if (Object.keys(problems).length > 0) throw new ValidationError(problems)
        newUser = { firstName, lastName, passwordHash: await hashPassword(body.password) }
      } else {
        const keys = throttleKeys(invitation.email_lower, callerAddress(request))
        await refuseWhenThrottled(db, keys, now)
        if (!(await verifyPassword(existing.password_hash, body.password))) {
          await recordFailure(db, keys, SIGN_IN_LIMITS, now)
          throw ValidationError.field('password', 'That is not the password of this account.')
        }
        await clearAccountFailures(db, keys)
      }
      const joined = await db
        .transaction()
        .execute((tx) => joinByInvitation(tx, dialect, clock, invitation, linkTokenHash(body.token), newUser))
      return mintSessionKey(db, clock, joined, body, { request, method: 'invitation' })
    },
  )
}
