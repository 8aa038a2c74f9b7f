import { Type, type Static } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import type { Deps } from '../crm/deps.js'
import type { Db } from '../platform/data/database.js'
import { formatTimestamp, type Clock } from '../platform/data/time.js'
import { ForbiddenError, HttpError, NotFoundError, ValidationError } from '../platform/http/errors.js'
import { caller } from '../platform/http/request-context.js'
import { publicAuditContext, recordAudit } from '../integrations/events/audit-repo.js'
import { createApiKey, type KeyOwner } from '../platform/security/api-key-repo.js'
import type { AuthCache } from '../platform/security/auth-cache.js'
import { setPassword, WeakPasswordError } from './account-repo.js'
import { SINGLE_SIGN_ON_REQUIRED, singleSignOnRequired } from './single-sign-on-repo.js'
import { MAX_PASSWORD_LENGTH, verifyPassword } from './passwords.js'
import { requiresTwoFactor } from './sign-in-policy-routes.js'
import { acceptSecondFactor, MAX_CODE_LENGTH } from './two-factor.js'
import {
  clearAccountFailures,
  recordFailure,
  SIGN_IN_LIMITS,
  throttleKeys,
  throttleWait,
  type ThrottleKeys,
} from './sign-in-throttle.js'

const tags = ['sign-in']

/** One answer for every refused sign-in: it never says whether the address has an account. */
export const SIGN_IN_REFUSED = 'That email and password do not match an account.'

const DAY_SECONDS = 24 * 60 * 60
/** A session's lifetime when the caller names none, and the longest it may name. */
const DEFAULT_EXPIRES_IN = 30 * DAY_SECONDS
const MAX_EXPIRES_IN = 3650 * DAY_SECONDS
const DEFAULT_IDLE_SECONDS = 12 * 60 * 60
const MAX_IDLE_SECONDS = 365 * DAY_SECONDS

/** What a sign-in may say of the session it starts; every route that signs someone in takes them. */
export const sessionTerms = {
  description: Type.Optional(
    Type.String({
      maxLength: 200,
      description: 'What the session is, as its owner will see it (a browser, a device).',
    }),
  ),
  expires_in: Type.Optional(
    Type.Integer({
      minimum: 60,
      maximum: MAX_EXPIRES_IN,
      description: `Seconds until the session key expires, used or not (default ${String(DEFAULT_EXPIRES_IN)}).`,
    }),
  ),
  idle_seconds: Type.Optional(
    Type.Integer({
      minimum: 60,
      maximum: MAX_IDLE_SECONDS,
      description: `Seconds without use after which the session key expires (default ${String(DEFAULT_IDLE_SECONDS)}).`,
    }),
  ),
}

const signInBody = Type.Object(
  {
    email: Type.String({ minLength: 1, maxLength: 320 }),
    password: Type.String({ minLength: 1, maxLength: MAX_PASSWORD_LENGTH }),
    organization_id: Type.Optional(
      Type.String({ maxLength: 100, description: 'Which of the person’s organizations (default: the first joined).' }),
    ),
    code: Type.Optional(
      Type.String({
        maxLength: MAX_CODE_LENGTH,
        description: 'For someone with two-factor sign-in on: the code of their authenticator app, or a recovery code.',
      }),
    ),
    ...sessionTerms,
  },
  { additionalProperties: false },
)

export const sessionKeySchema = Type.Object({
  api_key_id: Type.String(),
  api_key: Type.String({ description: 'Shown once. Send it as any API key: HTTP Basic, the key as the user name.' }),
  user_id: Type.String(),
  organization_id: Type.String(),
  date_expires: Type.String(),
})

export const signInAnswerSchema = Type.Object({
  ...sessionKeySchema.properties,
  two_factor_setup_required: Type.Boolean({
    description:
      'The organization requires two-factor sign-in and this person has not turned it on: until they do, the key ' +
      'works only to turn it on (`/auth/two_factor/`), on `/me/`, `/auth/session/` and `/auth/password/`.',
  }),
})

const sessionSchema = Type.Object({
  id: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  date_created: Type.String(),
  date_last_used: Type.Union([Type.String(), Type.Null()]),
  date_expires: Type.String(),
  current: Type.Boolean({ description: 'Whether this is the session of the key making the request.' }),
})

const passwordBody = Type.Object(
  {
    current_password: Type.String({ maxLength: MAX_PASSWORD_LENGTH }),
    password: Type.String({ maxLength: MAX_PASSWORD_LENGTH }),
  },
  { additionalProperties: false },
)

export type Terms = Pick<Static<typeof signInBody>, 'description' | 'expires_in' | 'idle_seconds'>

/** How someone signed in, as the audit log tells it. */
export type SignInMethod = 'password' | 'api_key' | 'single_sign_on' | 'invitation'

/**
 * A key for a new session of a member, as every sign-in answers it (password, API key, invitation, single sign-on),
 * with whether their organization holds it until they turn two-factor sign-in on. The key and the sign-in's audit
 * entry are stored together.
 */
export async function mintSessionKey(
  db: Db,
  clock: Clock,
  owner: { organizationId: string; userId: string; membershipId: string },
  terms: Terms,
  signIn: { request: FastifyRequest; method: SignInMethod },
): Promise<Static<typeof signInAnswerSchema>> {
  const now = clock.now()
  const expires = new Date(now.getTime() + (terms.expires_in ?? DEFAULT_EXPIRES_IN) * 1000)
  const key = await db.transaction().execute(async (tx) => {
    const made = await createApiKey(tx, clock, owner, {
      description: terms.description ?? null,
      session: {
        expires,
        idleSeconds: Math.min(terms.idle_seconds ?? DEFAULT_IDLE_SECONDS, terms.expires_in ?? DEFAULT_EXPIRES_IN),
      },
    })
    const actor = { organizationId: owner.organizationId, userId: owner.userId, apiKeyId: made.api_key_id }
    await recordAudit(tx, publicAuditContext(signIn.request, actor, formatTimestamp(now)), [
      { action: 'sign_in', objectType: 'user', objectId: owner.userId, details: { method: signIn.method } },
    ])
    return made
  })
  return {
    ...key,
    user_id: owner.userId,
    organization_id: owner.organizationId,
    date_expires: formatTimestamp(expires),
    two_factor_setup_required: await setupRequired(db, owner.userId, owner.organizationId),
  }
}

/** The live session keys of one user in one organization. */
function liveSessions(db: Db, owner: KeyOwner, now: Date) {
  return db
    .selectFrom('api_key')
    .select(['id', 'description', 'date_created', 'date_last_used', 'date_expires', 'idle_seconds'])
    .where('user_id', '=', owner.userId)
    .where('organization_id', '=', owner.organizationId)
    .where('kind', '=', 'session')
    .where('date_revoked', 'is', null)
    .where('date_expires', '>', formatTimestamp(now))
    .orderBy('date_created', 'desc')
    .limit(1000)
}

/** The sessions as their owner sees them: those still within their idle time. */
function sessionViews(
  rows: Awaited<ReturnType<ReturnType<typeof liveSessions>['execute']>>,
  me: KeyOwner,
  now: Date,
): Static<typeof sessionSchema>[] {
  return rows
    .filter((row) => {
      const idleMs = (row.idle_seconds ?? Infinity) * 1000
      return Date.parse(row.date_last_used ?? row.date_created) + idleMs > now.getTime()
    })
    .map(({ idle_seconds: _idle, date_expires, ...row }) => ({
      ...row,
      date_expires: date_expires ?? '',
      current: row.id === me.apiKeyId,
    }))
}

/** Ends every session key of a user but `keep`, in every organization: after a password change or a reset. */
export async function revokeSessionKeys(db: Db, userId: string, now: Date, keep?: string): Promise<number> {
  let query = db
    .updateTable('api_key')
    .set({ date_revoked: formatTimestamp(now) })
    .where('user_id', '=', userId)
    .where('kind', '=', 'session')
    .where('date_revoked', 'is', null)
  if (keep !== undefined) query = query.where('id', '!=', keep)
  const result = await query.executeTakeFirst()
  return Number(result.numUpdatedRows)
}

/**
 * Ends every session key of a user but `keep`, everywhere, and at once in this process (others within the auth
 * cache's seconds): after a password change or a reset.
 */
export async function endSessions(tx: Db, auth: AuthCache, now: Date, userId: string, keep?: string): Promise<number> {
  const ended = await revokeSessionKeys(tx, userId, now, keep)
  auth.forget((owner) => owner.userId === userId && owner.kind === 'session' && owner.apiKeyId !== keep)
  return ended
}

/** Refuses an attempt while its account (when given) or address is over its limit; 429 with `Retry-After`. */
export async function refuseWhenThrottled(
  db: Db,
  keys: ThrottleKeys | Pick<ThrottleKeys, 'address'>,
  now: Date,
): Promise<void> {
  const wait = await throttleWait(db, keys, SIGN_IN_LIMITS, now)
  if (wait > 0) {
    throw new HttpError(429, `Too many failed attempts; try again in ${String(Math.ceil(wait / 60))} minute(s).`, {
      'retry-after': String(wait),
    })
  }
}

/**
 * The client's address: Fastify's `request.ip`, the connection's peer, or the last address of `X-Forwarded-For` that
 * a peer `LEADLINE_TRUST_PROXY` names (the BFF) put there. The throttle and the audit log read the same one.
 */
export function callerAddress(request: FastifyRequest): string {
  return request.ip
}

/**
 * A failed sign-in's audit entries: one in each organization the account tried belongs to. An email with no
 * account behind it writes none (no organization's admins could read it), and the throttle has already refused
 * an account past its failures, so a spray adds at most SIGN_IN_LIMITS.perAccount entries per account and window.
 * The password is never stored: the email tried and why it failed are.
 */
export async function recordFailedSignIn(
  db: Db,
  request: FastifyRequest,
  failed: { userId: string; email: string; reason: 'password' | 'two_factor' | 'inactive'; keys: ThrottleKeys },
  now: Date,
): Promise<void> {
  await db.transaction().execute(async (tx) => {
    await recordFailure(tx, failed.keys, SIGN_IN_LIMITS, now)
    const memberships = await tx
      .selectFrom('membership')
      .select('organization_id')
      .where('user_id', '=', failed.userId)
      .execute()
    for (const { organization_id } of memberships) {
      const actor = { organizationId: organization_id, userId: null, apiKeyId: null }
      await recordAudit(tx, publicAuditContext(request, actor, formatTimestamp(now)), [
        {
          action: 'sign_in_failed',
          objectType: 'user',
          objectId: failed.userId,
          email: failed.email,
          details: { reason: failed.reason },
        },
      ])
    }
  })
}

/**
 * Checks the caller's current password before a change to how they sign in: a wrong one is a 400 on `field` and
 * counts against the account as a failed sign-in does. Someone who has never set a password has none to give.
 */
export async function checkCallerPassword(
  db: Db,
  request: FastifyRequest,
  userId: string,
  password: string,
  field: string,
  now: Date,
): Promise<void> {
  const user = await db
    .selectFrom('user')
    .select(['email_lower', 'password_hash'])
    .where('id', '=', userId)
    .executeTakeFirstOrThrow()
  if (user.password_hash === null) return
  const keys = throttleKeys(user.email_lower, callerAddress(request))
  await refuseWhenThrottled(db, keys, now)
  if (!(await verifyPassword(user.password_hash, password))) {
    await recordFailure(db, keys, SIGN_IN_LIMITS, now)
    throw ValidationError.field(field, 'That is not your current password.')
  }
}

/** Whether the organization requires two-factor sign-in and the user has not turned it on. */
async function setupRequired(db: Db, userId: string, organizationId: string): Promise<boolean> {
  if (!(await requiresTwoFactor(db, organizationId))) return false
  const user = await db.selectFrom('user').select('totp_enabled_at').where('id', '=', userId).executeTakeFirst()
  return user?.totp_enabled_at === null
}

export const TWO_FACTOR_CODE_NEEDED = 'Enter the code from your authenticator app, or a recovery code.'
export const TWO_FACTOR_CODE_WRONG = 'That code is not right.'

/**
 * Leadline's own sign-in endpoints, outside the Close surface (decision 0043): a password becomes a session key,
 * any key can be exchanged for one, and a person sees and ends their sessions and changes their password.
 */
export const sessionRoutes: FastifyPluginAsyncTypebox<Deps> = async (app, { db, clock, auth, config }) => {
  app.post(
    '/auth/sign_in/',
    {
      config: { public: true },
      schema: {
        tags,
        security: [],
        summary: 'Sign in with email and password: a key for this session alone',
        description:
          'Refused with 401 and one message whatever was wrong, so the answer never says whether the address has an ' +
          'account; 429 with `Retry-After` after too many failures for the account or from the address. For someone ' +
          'with two-factor sign-in on, the right password without `code`, or with a wrong one, is refused with 401 ' +
          '`{"error", "two_factor": "required"}`; a wrong code counts as a failed attempt. Where the organization ' +
          'requires single sign-on, a member who is not an admin is refused (401) once the password matched.',
        body: signInBody,
        response: { 200: signInAnswerSchema },
      },
    },
    async (request) => {
      const now = clock.now()
      const body = request.body
      const emailLower = body.email.trim().toLowerCase()
      const keys = throttleKeys(emailLower, callerAddress(request))
      await refuseWhenThrottled(db, keys, now)
      const user = await db
        .selectFrom('user')
        .select(['id', 'password_hash', 'totp_secret', 'totp_enabled_at'])
        .where('email_lower', '=', emailLower)
        .executeTakeFirst()
      const matches = await verifyPassword(user?.password_hash ?? null, body.password)
      let membership = undefined as { id: string; organization_id: string; role: string } | undefined
      if (user !== undefined && matches) {
        let query = db
          .selectFrom('membership')
          .select(['id', 'organization_id', 'role'])
          .where('user_id', '=', user.id)
          .where('status', '=', 'active')
        if (body.organization_id !== undefined) query = query.where('organization_id', '=', body.organization_id)
        membership = await query.orderBy('date_created').orderBy('id').limit(1).executeTakeFirst()
      }
      if (user === undefined) {
        await recordFailure(db, keys, SIGN_IN_LIMITS, now)
        throw new HttpError(401, SIGN_IN_REFUSED)
      }
      if (membership === undefined) {
        const reason = matches ? 'inactive' : 'password'
        await recordFailedSignIn(db, request, { userId: user.id, email: emailLower, reason, keys }, now)
        throw new HttpError(401, SIGN_IN_REFUSED)
      }
      const totpSecret = user.totp_enabled_at === null ? null : user.totp_secret
      if (totpSecret !== null) {
        const code = body.code?.trim() ?? ''
        if (code === '') throw new HttpError(401, TWO_FACTOR_CODE_NEEDED, {}, { two_factor: 'required' })
        if (!(await acceptSecondFactor(db, config.secretBox, { id: user.id, totp_secret: totpSecret }, code, now))) {
          await recordFailedSignIn(db, request, { userId: user.id, email: emailLower, reason: 'two_factor', keys }, now)
          throw new HttpError(401, TWO_FACTOR_CODE_WRONG, {}, { two_factor: 'required' })
        }
      }
      await clearAccountFailures(db, keys)
      // Said only once the password matched, so the refusal tells nothing to someone who does not know it.
      if (await singleSignOnRequired(db, membership.organization_id, membership.role)) {
        throw new HttpError(401, SINGLE_SIGN_ON_REQUIRED)
      }
      return mintSessionKey(
        db,
        clock,
        { organizationId: membership.organization_id, userId: user.id, membershipId: membership.id },
        body,
        { request, method: 'password' },
      )
    },
  )

  app.post(
    '/auth/session/',
    {
      config: { beforeTwoFactor: true },
      schema: {
        tags,
        summary: 'A session key for the caller: how a browser signs in with an API key without ever holding it',
        description: 'Called with an API key; a session’s own key is refused (403), so no session outlives its own.',
        body: Type.Object(sessionTerms, { additionalProperties: false }),
        response: { 200: signInAnswerSchema },
      },
    },
    async (request) => {
      const me = caller(request)
      // A session's key would otherwise outlive its session through the one it makes.
      if (me.kind === 'session') throw new ForbiddenError('A session’s key cannot start another session.')
      return mintSessionKey(db, clock, me, request.body, { request, method: 'api_key' })
    },
  )

  app.get(
    '/auth/session/',
    {
      config: { beforeTwoFactor: true },
      schema: {
        tags,
        summary: 'The caller’s live sessions in this organization, newest first',
        response: { 200: Type.Object({ has_more: Type.Boolean(), data: Type.Array(sessionSchema) }) },
      },
    },
    async (request) => {
      const me = caller(request)
      const now = clock.now()
      const rows = await liveSessions(db, me, now).execute()
      return { has_more: false, data: sessionViews(rows, me, now) }
    },
  )

  app.get(
    '/auth/session/:id/',
    {
      config: { beforeTwoFactor: true },
      schema: {
        tags,
        summary: 'One of the caller’s live sessions',
        params: Type.Object({ id: Type.String({ maxLength: 100 }) }),
        response: { 200: sessionSchema },
      },
    },
    async (request) => {
      const me = caller(request)
      const now = clock.now()
      const rows = await liveSessions(db, me, now).where('id', '=', request.params.id).execute()
      const [view] = sessionViews(rows, me, now)
      if (view === undefined) throw new NotFoundError('Session')
      return view
    },
  )

  app.delete(
    '/auth/session/:id/',
    {
      config: { beforeTwoFactor: true },
      schema: {
        tags,
        summary: 'End one of the caller’s sessions (its key is refused from then on); the BFF’s sign-out',
        params: Type.Object({ id: Type.String({ maxLength: 100 }) }),
      },
    },
    async (request) => {
      const me = caller(request)
      const result = await db
        .updateTable('api_key')
        .set({ date_revoked: formatTimestamp(clock.now()) })
        .where('id', '=', request.params.id)
        .where('user_id', '=', me.userId)
        .where('organization_id', '=', me.organizationId)
        .where('kind', '=', 'session')
        .where('date_revoked', 'is', null)
        .executeTakeFirst()
      if (result.numUpdatedRows === 0n) throw new NotFoundError('Session')
      auth.forget((owner) => owner.apiKeyId === request.params.id)
      return {}
    },
  )

  app.post(
    '/auth/session/sign_out_others/',
    {
      config: { beforeTwoFactor: true },
      schema: {
        tags,
        summary: 'End every session of the caller but the one making the request',
        response: { 200: Type.Object({ ended: Type.Integer() }) },
      },
    },
    async (request) => {
      const me = caller(request)
      return { ended: await endSessions(db, auth, clock.now(), me.userId, me.apiKeyId) }
    },
  )

  app.put(
    '/auth/password/',
    {
      config: { beforeTwoFactor: true },
      schema: {
        tags,
        summary: 'Change the caller’s password; their other sessions end',
        description:
          '`current_password` is required once a password is set. A wrong one counts against the account as a failed ' +
          'sign-in does.',
        body: passwordBody,
        response: { 200: Type.Object({ ended_sessions: Type.Integer() }) },
      },
    },
    async (request) => {
      const me = caller(request)
      await checkCallerPassword(db, request, me.userId, request.body.current_password, 'current_password', clock.now())
      const ended = await db.transaction().execute(async (tx) => {
        try {
          await setPassword(tx, clock, me.userId, request.body.password)
        } catch (error) {
          if (error instanceof WeakPasswordError) throw ValidationError.field('password', error.message)
          throw error
        }
        return endSessions(tx, auth, clock.now(), me.userId, me.apiKeyId)
      })
      return { ended_sessions: ended }
    },
  )
}
