import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Deps } from '../crm/deps.js'
import { HttpError, ValidationError } from '../platform/http/errors.js'
import { setPassword, WeakPasswordError } from './account-repo.js'
import { RESET_INVALID, requestPasswordReset, usableReset, useResetLinks } from './password-reset.js'
import { MAX_PASSWORD_LENGTH } from './passwords.js'
import { callerAddress, endSessions, refuseWhenThrottled } from './session-routes.js'
import { addressKey, clearAccountFailures, throttleKeys } from './sign-in-throttle.js'

const tags = ['sign-in']

/** A forgotten password, public: asking for a link by email, and setting a new password with it. */
export const passwordResetRoutes: FastifyPluginAsyncTypebox<Deps> = async (app, { db, clock, auth }) => {
  app.post(
    '/auth/password_reset/',
    {
      config: { public: true },
      schema: {
        tags,
        security: [],
        summary: 'Email a link that sets a new password (1 hour, once) to the address, if an account uses it',
        description:
          'Always `{}`, whether or not the address has an account, so the answer never tells; at most 3 links an hour ' +
          'go to one address. 429 with `Retry-After` while the caller’s address is over the sign-in limit.',
        body: Type.Object({ email: Type.String({ maxLength: 320 }) }, { additionalProperties: false }),
        response: { 200: Type.Object({}) },
      },
    },
    async (request) => {
      await refuseWhenThrottled(db, addressKey(callerAddress(request)), clock.now())
      await requestPasswordReset(db, clock, request.body.email)
      return {}
    },
  )

  app.post(
    '/auth/password_reset/complete/',
    {
      config: { public: true },
      schema: {
        tags,
        security: [],
        summary: 'Set a new password with a reset link; every session of the person ends',
        description: 'The link works once; every other reset link of the person stops working too.',
        body: Type.Object(
          {
            token: Type.String({ maxLength: 100, description: 'The token of the emailed link.' }),
            password: Type.String({ maxLength: MAX_PASSWORD_LENGTH }),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({}) },
      },
    },
    async (request) => {
      const reset = await usableReset(db, request.body.token, clock.now())
      if (reset === undefined) throw new HttpError(400, RESET_INVALID)
      await db.transaction().execute(async (tx) => {
        if (!(await useResetLinks(tx, reset, clock.now()))) throw new HttpError(400, RESET_INVALID)
        try {
          await setPassword(tx, clock, reset.user_id, request.body.password)
        } catch (error) {
          if (error instanceof WeakPasswordError) throw ValidationError.field('password', error.message)
          throw error
        }
        await endSessions(tx, auth, clock.now(), reset.user_id)
      })
      // Whoever locked the account out by guessing has lost: its owner signs in with the new password at once.
      await clearAccountFailures(db, throttleKeys(reset.email_lower, callerAddress(request)))
      return {}
    },
  )
}
