import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import type { Deps } from '../crm/deps.js'
import type { Db } from '../platform/data/database.js'
import { formatTimestamp } from '../platform/data/time.js'
import { HttpError, ValidationError } from '../platform/http/errors.js'
import { caller } from '../platform/http/request-context.js'
import { totpSecretContext } from '../platform/security/stored-secrets.js'
import { MAX_PASSWORD_LENGTH } from './passwords.js'
import { callerAddress, checkCallerPassword, refuseWhenThrottled } from './session-routes.js'
import { recordFailure, SIGN_IN_LIMITS, throttleKeys } from './sign-in-throttle.js'
import { requiresTwoFactor } from './sign-in-policy-routes.js'
import {
  acceptSecondFactor,
  MAX_CODE_LENGTH,
  newTotpSecret,
  openTotpSecret,
  recoveryCodesLeft,
  replaceRecoveryCodes,
  totpStep,
} from './two-factor.js'

const tags = ['sign-in']

const NO_SECRET_KEY =
  'Two-factor sign-in needs the server’s LEADLINE_SECRET_KEY to store its secrets: ask your administrator to set it.'
const NOT_ON = 'Two-factor sign-in is not on.'
const REQUIRED = 'Your organization requires two-factor sign-in: it cannot be turned off.'

const stateSchema = Type.Object({
  enabled: Type.Boolean(),
  recovery_codes_left: Type.Integer(),
  required: Type.Boolean({ description: 'The organization requires two-factor sign-in.' }),
  has_password: Type.Boolean({
    description: 'The caller has a password (not someone who signs in by single sign-on only).',
  }),
})

const passwordBody = Type.Object(
  { password: Type.String({ maxLength: MAX_PASSWORD_LENGTH, description: 'The caller’s current password.' }) },
  { additionalProperties: false },
)

/** Turning two-factor off or making new codes: the password, or for someone without one, a code of theirs. */
const proofBody = Type.Object(
  {
    password: Type.Optional(
      Type.String({ maxLength: MAX_PASSWORD_LENGTH, description: 'The caller’s current password.' }),
    ),
    code: Type.Optional(
      Type.String({
        maxLength: MAX_CODE_LENGTH,
        description:
          'For someone without a password (single sign-on only): a code of their authenticator app, or a recovery code.',
      }),
    ),
  },
  { additionalProperties: false },
)

const recoveryCodesSchema = Type.Object({
  recovery_codes: Type.Array(Type.String(), {
    description: 'Ten single-use codes, shown this once: each signs in instead of an authenticator app’s code.',
  }),
})

async function twoFactorOf(db: Db, userId: string) {
  return db
    .selectFrom('user')
    .select(['email', 'email_lower', 'password_hash', 'totp_secret', 'totp_pending_secret', 'totp_enabled_at'])
    .where('id', '=', userId)
    .executeTakeFirstOrThrow()
}

/** Whether any organization the person is an active member of requires two-factor: it is theirs in all of them. */
async function requiredByAnyOrganization(db: Db, userId: string): Promise<boolean> {
  const row = await db
    .selectFrom('membership')
    .innerJoin('organization', 'organization.id', 'membership.organization_id')
    .select('membership.id')
    .where('membership.user_id', '=', userId)
    .where('membership.status', '=', 'active')
    .where('organization.require_two_factor', '=', 1)
    .limit(1)
    .executeTakeFirst()
  return row !== undefined
}

/**
 * The caller's two-factor sign-in (decision 0044): set up a TOTP secret, turn it on with a code of it, turn it off,
 * make new recovery codes. Open to a session key that the organization's policy holds back, so it can be turned on.
 */
export const twoFactorRoutes: FastifyPluginAsyncTypebox<Deps> = async (app, { db, clock, auth, config }) => {
  /**
   * That it is the person, before their second factor changes: their current password; someone who has none (they
   * sign in by single sign-on) gives a code of the factor itself instead, counted against sign-in limits when wrong.
   */
  const checkCaller = async (request: FastifyRequest, userId: string, proof: { password?: string; code?: string }) => {
    const now = clock.now()
    const user = await twoFactorOf(db, userId)
    if (user.password_hash !== null || user.totp_secret === null)
      return checkCallerPassword(db, request, userId, proof.password ?? '', 'password', now)
    const keys = throttleKeys(user.email_lower, callerAddress(request))
    await refuseWhenThrottled(db, keys, now)
    const code = proof.code?.trim() ?? ''
    if (code === '')
      throw ValidationError.field('code', 'Enter a code from your authenticator app, or a recovery code.')
    if (!(await acceptSecondFactor(db, config.secretBox, { id: userId, totp_secret: user.totp_secret }, code, now))) {
      await recordFailure(db, keys, SIGN_IN_LIMITS, now)
      throw ValidationError.field('code', 'That code is not right.')
    }
  }

  app.get(
    '/auth/two_factor/',
    {
      config: { beforeTwoFactor: true },
      schema: {
        tags,
        summary: 'Whether the caller has two-factor sign-in on, and how many recovery codes they have left',
        response: { 200: stateSchema },
      },
    },
    async (request) => {
      const me = caller(request)
      const user = await twoFactorOf(db, me.userId)
      const enabled = user.totp_enabled_at !== null
      return {
        enabled,
        recovery_codes_left: enabled ? await recoveryCodesLeft(db, me.userId) : 0,
        required: await requiresTwoFactor(db, me.organizationId),
        has_password: user.password_hash !== null,
      }
    },
  )

  app.post(
    '/auth/two_factor/setup/',
    {
      config: { beforeTwoFactor: true },
      schema: {
        tags,
        summary: 'A new TOTP secret for the caller’s authenticator app, pending until a code of it turns it on',
        description:
          'Replaces any pending secret; a secret already on stays on until `enable` confirms the new one. 400 when ' +
          'the server has no LEADLINE_SECRET_KEY to store it with.',
        body: passwordBody,
        response: {
          200: Type.Object({
            secret: Type.String({ description: 'Base32, for typing into the app.' }),
            otpauth_url: Type.String({ description: 'The `otpauth://totp/…` URL, for a QR code.' }),
          }),
        },
      },
    },
    async (request) => {
      const me = caller(request)
      const box = config.secretBox
      if (box === null) throw new HttpError(400, NO_SECRET_KEY)
      await checkCallerPassword(db, request, me.userId, request.body.password, 'password', clock.now())
      const user = await twoFactorOf(db, me.userId)
      const { secret, otpauthUrl } = newTotpSecret(user.email)
      await db
        .updateTable('user')
        .set({ totp_pending_secret: box.seal(secret, totpSecretContext(me.userId)) })
        .where('id', '=', me.userId)
        .execute()
      return { secret, otpauth_url: otpauthUrl }
    },
  )

  app.post(
    '/auth/two_factor/enable/',
    {
      config: { beforeTwoFactor: true },
      schema: {
        tags,
        summary: 'Turn two-factor sign-in on with a code of the pending secret: the recovery codes, shown once',
        body: Type.Object(
          { code: Type.String({ maxLength: MAX_CODE_LENGTH, description: 'The code the app shows now.' }) },
          { additionalProperties: false },
        ),
        response: { 200: recoveryCodesSchema },
      },
    },
    async (request) => {
      const me = caller(request)
      const now = clock.now()
      const user = await twoFactorOf(db, me.userId)
      if (user.totp_pending_secret === null) {
        throw ValidationError.field('code', 'Set up two-factor sign-in first: there is no secret to confirm.')
      }
      const step = totpStep(
        openTotpSecret(config.secretBox, me.userId, user.totp_pending_secret),
        request.body.code,
        now,
      )
      if (step === undefined) throw ValidationError.field('code', 'That code is not right.')
      const codes = await db.transaction().execute(async (tx) => {
        // Only the pending secret that was checked is turned on: a setup at the same moment leaves nothing half-done.
        const result = await tx
          .updateTable('user')
          .set({
            totp_secret: user.totp_pending_secret,
            totp_pending_secret: null,
            totp_enabled_at: formatTimestamp(now),
            totp_last_step: step,
          })
          .where('id', '=', me.userId)
          .where('totp_pending_secret', '=', user.totp_pending_secret)
          .executeTakeFirst()
        if (result.numUpdatedRows !== 1n) throw ValidationError.field('code', 'Set up two-factor sign-in again.')
        return replaceRecoveryCodes(tx, me.userId, now)
      })
      // The caller's keys verified a moment ago may carry the policy's restriction: they are checked again.
      auth.forget((owner) => owner.userId === me.userId)
      return { recovery_codes: codes }
    },
  )

  app.post(
    '/auth/two_factor/disable/',
    {
      config: { beforeTwoFactor: true },
      schema: {
        tags,
        summary: 'Turn the caller’s two-factor sign-in off (refused while the organization requires it)',
        body: proofBody,
        response: { 200: Type.Object({}) },
      },
    },
    async (request) => {
      const me = caller(request)
      if (await requiredByAnyOrganization(db, me.userId)) throw new HttpError(400, REQUIRED)
      await checkCaller(request, me.userId, request.body)
      await db.transaction().execute(async (tx) => {
        await tx
          .updateTable('user')
          .set({ totp_secret: null, totp_pending_secret: null, totp_enabled_at: null, totp_last_step: null })
          .where('id', '=', me.userId)
          .execute()
        await tx.deleteFrom('recovery_code').where('user_id', '=', me.userId).execute()
      })
      return {}
    },
  )

  app.post(
    '/auth/two_factor/recovery_codes/',
    {
      config: { beforeTwoFactor: true },
      schema: {
        tags,
        summary: 'New recovery codes for the caller, shown once; the old ones stop working',
        body: proofBody,
        response: { 200: recoveryCodesSchema },
      },
    },
    async (request) => {
      const me = caller(request)
      await checkCaller(request, me.userId, request.body)
      const user = await twoFactorOf(db, me.userId)
      if (user.totp_enabled_at === null) throw new HttpError(400, NOT_ON)
      const codes = await db.transaction().execute((tx) => replaceRecoveryCodes(tx, me.userId, clock.now()))
      return { recovery_codes: codes }
    },
  )
}
