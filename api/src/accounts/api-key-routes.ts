import { Type, type Static } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Deps } from '../crm/deps.js'
import type { Db } from '../platform/data/database.js'
import { formatTimestamp } from '../platform/data/time.js'
import { NotFoundError } from '../platform/http/errors.js'
import { caller } from '../platform/http/request-context.js'
import { auditContext, recordAudit } from '../integrations/events/audit-repo.js'
import { createApiKey, type KeyOwner } from '../platform/security/api-key-repo.js'

const tags = ['api-keys']
const params = Type.Object({ id: Type.String({ maxLength: 100 }) })

const apiKeySchema = Type.Object({
  id: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  user_id: Type.String(),
  user_name: Type.String({ description: 'The owner’s name, or their email when they have none.' }),
  date_created: Type.String(),
  date_last_used: Type.Union([Type.String(), Type.Null()]),
  is_current: Type.Boolean({ description: 'Whether this is the key the request was made with.' }),
})

const createBody = Type.Object(
  {
    description: Type.Optional(
      Type.String({ maxLength: 200, description: 'What the key is for, as its owner will see it (a script, a tool).' }),
    ),
  },
  { additionalProperties: false },
)

/**
 * The live API keys (not sessions' keys) an organization's admins see all of, and anyone else their own. Keys are
 * never shown again after they are made: only their ids.
 */
function visibleKeys(db: Db, me: KeyOwner) {
  let query = db
    .selectFrom('api_key')
    .innerJoin('user', 'user.id', 'api_key.user_id')
    .select([
      'api_key.id',
      'api_key.description',
      'api_key.user_id',
      'user.first_name',
      'user.last_name',
      'user.email',
      'api_key.date_created',
      'api_key.date_last_used',
    ])
    .where('api_key.organization_id', '=', me.organizationId)
    .where('api_key.kind', '=', 'api')
    .where('api_key.date_revoked', 'is', null)
  if (me.role !== 'admin') query = query.where('api_key.user_id', '=', me.userId)
  return query
}

type KeyRow = Awaited<ReturnType<ReturnType<typeof visibleKeys>['execute']>>[number]

function keyView(me: KeyOwner, { first_name, last_name, email, ...row }: KeyRow): Static<typeof apiKeySchema> {
  const name = [first_name, last_name].filter((part) => part !== null && part !== '').join(' ')
  return { ...row, user_name: name === '' ? email : name, is_current: row.id === me.apiKeyId }
}

/** Leadline's own API keys resource: list, make (shown once) and revoke. */
export const apiKeyRoutes: FastifyPluginAsyncTypebox<Deps> = async (app, { db, clock, auth }) => {
  app.get(
    '/api_key/',
    {
      schema: {
        tags,
        summary: 'Live API keys: every one of the organization’s for an admin, one’s own for anyone else',
        response: { 200: Type.Object({ has_more: Type.Boolean(), data: Type.Array(apiKeySchema) }) },
      },
    },
    async (request) => {
      const me = caller(request)
      const rows = await visibleKeys(db, me)
        .orderBy('api_key.date_created', 'desc')
        .orderBy('api_key.id')
        .limit(1000)
        .execute()
      return { has_more: false, data: rows.map((row) => keyView(me, row)) }
    },
  )

  app.get(
    '/api_key/:id/',
    { schema: { tags, summary: 'One live API key, as the list shows it', params, response: { 200: apiKeySchema } } },
    async (request) => {
      const me = caller(request)
      const row = await visibleKeys(db, me).where('api_key.id', '=', request.params.id).executeTakeFirst()
      if (row === undefined) throw new NotFoundError('API key')
      return keyView(me, row)
    },
  )

  app.post(
    '/api_key/',
    {
      schema: {
        tags,
        summary: 'Make an API key for oneself; the answer is the only time the key is shown',
        body: createBody,
        response: {
          200: Type.Object({
            ...apiKeySchema.properties,
            api_key: Type.String({ description: 'Shown once: keep it somewhere safe.' }),
          }),
        },
      },
    },
    async (request) => {
      const me = caller(request)
      const description = request.body.description ?? null
      const issued = await db.transaction().execute(async (tx) => {
        const made = await createApiKey(tx, clock, me, { description })
        await recordAudit(tx, auditContext(request, formatTimestamp(clock.now())), [
          { action: 'api_key_created', objectType: 'api_key', objectId: made.api_key_id, details: { description } },
        ])
        return made
      })
      const row = await visibleKeys(db, me).where('api_key.id', '=', issued.api_key_id).executeTakeFirstOrThrow()
      return { ...keyView(me, row), api_key: issued.api_key }
    },
  )

  app.delete(
    '/api_key/:id/',
    {
      schema: {
        tags,
        summary: 'Revoke an API key: one’s own, or any of the organization’s for an admin',
        params,
      },
    },
    async (request) => {
      const me = caller(request)
      const row = await visibleKeys(db, me).where('api_key.id', '=', request.params.id).executeTakeFirst()
      if (row === undefined) throw new NotFoundError('API key')
      const now = formatTimestamp(clock.now())
      await db.transaction().execute(async (tx) => {
        await tx.updateTable('api_key').set({ date_revoked: now }).where('id', '=', row.id).execute()
        await recordAudit(tx, auditContext(request, now), [
          {
            action: 'api_key_revoked',
            objectType: 'api_key',
            objectId: row.id,
            details: { description: row.description, owner_user_id: row.user_id, owner_email: row.email },
          },
        ])
      })
      auth.forget((owner) => owner.apiKeyId === row.id)
      return {}
    },
  )
}
