import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Deps } from '../crm/deps.js'
import type { Db } from '../platform/data/database.js'
import { formatTimestamp } from '../platform/data/time.js'
import { NotFoundError } from '../platform/http/errors.js'
import { requireAdmin } from '../platform/security/roles.js'

const tags = ['sign-in']

const policySchema = Type.Object({
  require_two_factor: Type.Boolean({
    description:
      'Members must sign in with two factors. One without it still signs in, but their session key works only to ' +
      'turn it on until they do; API keys are not affected.',
  }),
})

/** Whether an organization requires two-factor sign-in of its members. */
export async function requiresTwoFactor(db: Db, organizationId: string): Promise<boolean> {
  const row = await db
    .selectFrom('organization')
    .select('require_two_factor')
    .where('id', '=', organizationId)
    .executeTakeFirst()
  return row?.require_two_factor === 1
}

/** The organization's sign-in policy, its admins' to read and set (decision 0044). */
export const signInPolicyRoutes: FastifyPluginAsyncTypebox<Deps> = async (app, { db, clock, auth }) => {
  app.get(
    '/auth/policy/',
    {
      schema: {
        tags,
        summary: 'The organization’s sign-in policy (admins)',
        response: { 200: policySchema },
      },
    },
    async (request) => {
      const me = requireAdmin(request)
      return { require_two_factor: await requiresTwoFactor(db, me.organizationId) }
    },
  )

  app.put(
    '/auth/policy/',
    {
      schema: {
        tags,
        summary: 'Set the organization’s sign-in policy (admins)',
        body: Type.Object(policySchema.properties, { additionalProperties: false }),
        response: { 200: policySchema },
      },
    },
    async (request) => {
      const me = requireAdmin(request)
      const result = await db
        .updateTable('organization')
        .set({
          require_two_factor: request.body.require_two_factor ? 1 : 0,
          updated_by: me.userId,
          date_updated: formatTimestamp(clock.now()),
        })
        .where('id', '=', me.organizationId)
        .executeTakeFirst()
      if (result.numUpdatedRows === 0n) throw new NotFoundError('Organization')
      // Session keys verified a moment ago are checked again, so the policy holds at once in this process.
      auth.forget((owner) => owner.organizationId === me.organizationId)
      return { require_two_factor: request.body.require_two_factor }
    },
  )
}
